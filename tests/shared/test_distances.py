"""Distance conventions against values worked out from the TSPLIB definitions by hand."""

from __future__ import annotations

import pytest

from vrpcoder.distances import DistanceKind, distance_matrix, pair_distance


@pytest.mark.parametrize(
    ("kind", "a", "b", "expected"),
    [
        ("euclidean", (0, 0), (3, 4), 5.0),
        ("euclidean", (0, 0), (1, 1), 2**0.5),
        ("euclidean_trunc1", (0, 0), (1, 1), 1.4),  # 1.414 truncated to one decimal
        ("euclidean_trunc1", (0, 0), (3, 4), 5.0),  # an exact length keeps its value
        ("euclidean_trunc1", (40, 50), (45, 68), 18.6),  # 18.68 truncated, not rounded
        ("euc_2d", (0, 0), (1, 1), 1.0),  # 1.414 rounds to 1
        ("euc_2d", (0, 0), (1.5, 1.5), 2.0),  # 2.121 rounds to 2
        ("euc_2d", (0, 0), (0, 2.5), 3.0),  # halves round up
        ("ceil_2d", (0, 0), (1, 1), 2.0),
        ("att", (0, 0), (10, 0), 4.0),  # sqrt(10) = 3.16 -> 3 < 3.16 -> 4
        ("geo", (0, 0), (0, 0), 1.0),  # TSPLIB adds 1 before truncating, even for coincident nodes
    ],
)
def test_pair_distance(kind: str, a: tuple[float, float], b: tuple[float, float], expected: float) -> None:
    assert pair_distance(kind, a, b) == pytest.approx(expected)


def test_geo_one_degree_of_latitude_is_111_km() -> None:
    # One degree on TSPLIB's sphere of radius 6378.388 km is 111.3 km, truncated up to 112 by the +1.
    assert pair_distance("geo", (10.0, 20.0), (11.0, 20.0)) == 112.0


def test_matrix_diagonal_is_zero_whatever_the_convention() -> None:
    assert distance_matrix(DistanceKind.GEO, [(10.0, 20.0), (10.0, 20.0)])[0] == [0.0, 1.0]


def test_explicit_matrix_keeps_given_values_and_zero_diagonal() -> None:
    matrix = distance_matrix(DistanceKind.EXPLICIT, [(0, 0)] * 2, [[7, 3], [4, 9]])
    assert matrix == [[0.0, 3.0], [4.0, 0.0]]


def test_unknown_convention_is_refused() -> None:
    with pytest.raises(ValueError):
        pair_distance("manhattan", (0, 0), (1, 1))
    with pytest.raises(ValueError, match="needs a matrix"):
        distance_matrix("explicit", [(0, 0)])

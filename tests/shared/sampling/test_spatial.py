"""Customer layouts: inside the square, two decimals, and the exact shapes of profile 13."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vrpcoder.sampling.profiles import Layout
from vrpcoder.sampling.spatial import MAIN_DEPOT, customer_points, depot_points, hexagon

SEEDS = range(25)


@pytest.mark.parametrize("layout", list(Layout))
def test_points_are_inside_the_square_and_have_two_decimals(layout: Layout) -> None:
    n = 6 if layout is Layout.HEXAGON else 8
    for seed in SEEDS:
        points = customer_points(layout, np.random.default_rng(seed), n)
        assert len(points) == n
        for x, y in points:
            assert 5 <= x <= 95 and 5 <= y <= 95
            assert round(x, 2) == x and round(y, 2) == y


@pytest.mark.parametrize("layout", list(Layout))
def test_layouts_are_reproducible(layout: Layout) -> None:
    n = 6 if layout is Layout.HEXAGON else 7
    first = customer_points(layout, np.random.default_rng(3), n)
    assert customer_points(layout, np.random.default_rng(3), n) == first
    assert customer_points(layout, np.random.default_rng(4), n) != first


def test_depots() -> None:
    assert depot_points(False) == ((50.0, 50.0),)
    assert depot_points(True) == ((25.0, 50.0), (75.0, 50.0))


def _sides(points: tuple[tuple[float, float], ...]) -> list[float]:
    return [math.dist(a, b) for a, b in zip(points, points[1:] + points[:1], strict=True)]


def test_hexagon_is_regular_and_the_depot_is_an_edge_midpoint() -> None:
    for seed in SEEDS:
        points = hexagon(np.random.default_rng(seed), 6)
        sides = _sides(points)
        assert 15 - 0.02 <= min(sides) and max(sides) <= 25 + 0.02
        assert max(sides) - min(sides) < 0.03
        midpoints = [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in zip(points, points[1:] + points[:1])]
        assert min(math.dist(m, MAIN_DEPOT) for m in midpoints) < 0.02


def test_hexagon_needs_six_customers() -> None:
    with pytest.raises(ValueError, match="6 customers"):
        hexagon(np.random.default_rng(0), 5)


@pytest.mark.parametrize("n", [4, 6, 8])
def test_polygon_is_regular_around_a_central_centre(n: int) -> None:
    for seed in SEEDS:
        points = customer_points(Layout.POLYGON, np.random.default_rng(seed), n)
        cx, cy = sum(p[0] for p in points) / n, sum(p[1] for p in points) / n
        assert 45 - 0.01 <= cx <= 55 + 0.01 and 45 - 0.01 <= cy <= 55 + 0.01
        radii = [math.dist(p, (cx, cy)) for p in points]
        assert 25 - 0.02 <= min(radii) and max(radii) <= 40 + 0.02
        assert max(radii) - min(radii) < 0.03
        sides = _sides(points)
        assert max(sides) - min(sides) < 0.03


@pytest.mark.parametrize("n", [5, 6, 7, 8])
def test_collinear_points_are_equally_spaced_on_a_line(n: int) -> None:
    for seed in SEEDS:
        points = customer_points(Layout.COLLINEAR, np.random.default_rng(seed), n)
        gaps = [math.dist(a, b) for a, b in zip(points, points[1:], strict=False)]
        assert 3 - 0.02 <= min(gaps) and max(gaps) <= 8 + 0.02
        assert max(gaps) - min(gaps) < 0.03
        assert math.dist(points[0], points[-1]) == pytest.approx(sum(gaps), abs=0.02)


def test_local_cluster_is_tight() -> None:
    for seed in SEEDS:
        points = customer_points(Layout.LOCAL_CLUSTER, np.random.default_rng(seed), 8)
        assert max(math.dist(a, b) for a in points for b in points) <= 6 + 0.02


def test_radial_points_keep_their_distance_from_the_depot() -> None:
    for seed in SEEDS:
        points = customer_points(Layout.RADIAL, np.random.default_rng(seed), 10)
        assert all(8 - 0.01 <= math.dist(p, MAIN_DEPOT) <= 45 + 0.01 for p in points)


def test_split_layout_forms_two_separated_groups() -> None:
    for seed in SEEDS:
        points = customer_points(Layout.SPLIT, np.random.default_rng(seed), 10)
        even, odd = points[0::2], points[1::2]
        centre_even = np.mean(even, axis=0)
        centre_odd = np.mean(odd, axis=0)
        assert np.linalg.norm(centre_even - centre_odd) > 25


def test_elongated_layout_is_a_narrow_corridor() -> None:
    for seed in SEEDS:
        points = np.array(customer_points(Layout.ELONGATED, np.random.default_rng(seed), 12))
        spread = np.linalg.svd(points - points.mean(axis=0), compute_uv=False)
        assert spread[1] < 0.25 * spread[0]


def test_a_layout_needs_customers() -> None:
    with pytest.raises(ValueError, match="at least one customer"):
        customer_points(Layout.UNIFORM, np.random.default_rng(0), 0)

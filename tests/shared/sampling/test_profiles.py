"""The profile table as data, the boundary grids, and which profiles apply to which variant."""

from __future__ import annotations

import pytest

from vrpcoder.sampling import PROFILES, applicable_profiles
from vrpcoder.sampling.profiles import (
    COMPARTMENT_GRID,
    EXTENDED_CAPACITY_GRID,
    SMALL_CAPACITY_GRID,
    SPLIT_CAPACITY_GRID,
    TIME_GRID,
    CapacityCell,
    Layout,
    Subfamily,
    capacity_cells,
    geometry_subfamilies,
    pd_customer_counts,
    resource_subfamilies,
)
from vrpcoder.variants import VARIANTS, get_variant

# (n, k, layout, demand) of the regular profiles, typed in from the paper's profile table.
PAPER_REGULAR = {
    1: (5, 2, Layout.UNIFORM, (2, 10)),
    2: (6, 2, Layout.CLUSTERED, (1, 10)),
    3: (7, 2, Layout.RADIAL, (2, 8)),
    4: (7, 3, Layout.ELONGATED, (1, 10)),
    5: (8, 3, Layout.UNIFORM, (1, 10)),
    6: (9, 3, Layout.CLUSTERED, (2, 12)),
    7: (10, 3, Layout.SPLIT, (1, 8)),
    8: (8, 3, Layout.UNIFORM, (0.5, 3)),
    9: (9, 4, Layout.UNIFORM, (5, 15)),
    10: (12, 4, Layout.UNIFORM, (1, 8)),
    11: (12, 4, Layout.CLUSTERED, (2, 10)),
    12: (12, 4, Layout.ELONGATED, (1, 12)),
}

# Hand-derived from the brief: 14 needs capacity kind Q and no MC; 15 needs windows or MC.
CAPACITY_BOUNDARY = set(
    "CVRP MDVRP PDP OVRP DCVRP VRPB SDVRP VRPHTW VRPSTW MDVRPSTW PDPSTW OVRPHTW DCVRPHTW".split()
)
RESOURCE_BOUNDARY = set(
    "MCVRP VRPHTW VRPSTW HFMCVRP HFVRPHTW MDVRPSTW PDPSTW PDPTW OVRPHTW MCVRPSTW DCVRPHTW".split()
)


def test_there_are_fifteen_numbered_profiles() -> None:
    assert sorted(PROFILES) == list(range(1, 16))
    assert all(p.number == number for number, p in PROFILES.items())


@pytest.mark.parametrize("number", sorted(PAPER_REGULAR))
def test_regular_profiles_match_the_paper(number: int) -> None:
    n, k, layout, demand = PAPER_REGULAR[number]
    profile = PROFILES[number]
    assert profile.regular and not profile.locked
    assert (profile.n, profile.k, profile.spatial, profile.demand) == ((n, n), (k, k), (layout,), demand)


def test_boundary_profiles_carry_their_subfamilies_and_lock_flags() -> None:
    assert PROFILES[13].subfamilies == (
        Subfamily.HEXAGON,
        Subfamily.POLYGON,
        Subfamily.COLLINEAR,
        Subfamily.LOCAL_CLUSTER,
    )
    assert not PROFILES[13].locked
    assert PROFILES[14].locked and PROFILES[15].locked
    resource = {Subfamily.TIME_WINDOW, Subfamily.PD_TIME_WINDOW, Subfamily.COMPARTMENT}
    assert set(PROFILES[15].subfamilies) == resource


def test_small_capacity_grid_is_the_papers() -> None:
    cells = {(c.n, c.k, c.capacity, c.demand) for c in SMALL_CAPACITY_GRID}
    assert cells == {
        (5, 2, 12, (3, 6)),
        (6, 2, 14, (3, 7)),
        (6, 3, 12, (2, 5)),
        (8, 3, 16, (2, 6)),
        (6, 3, 8, (3, 4)),
        (8, 4, 8, (3, 4)),
        (6, 2, 12, (3, 5)),
        (8, 3, 12, (3, 5)),
    }


@pytest.mark.parametrize("cell", EXTENDED_CAPACITY_GRID + SPLIT_CAPACITY_GRID)
def test_extended_grid_cells_sit_just_below_their_capacity(cell: CapacityCell) -> None:
    n, k, q, (lo, hi) = cell.n, cell.k, cell.capacity, cell.demand
    assert 4 <= n <= 12 and 1 <= k <= 4
    assert 2 <= lo <= hi <= 20
    assert 0.85 <= n * (lo + hi) / 2 / k / q <= 0.95


def test_grid_capacities_respect_the_envelopes() -> None:
    assert all(8 <= c.capacity <= 100 and c.demand[1] <= c.capacity for c in EXTENDED_CAPACITY_GRID)
    assert all(30 <= c.capacity <= 85 for c in SPLIT_CAPACITY_GRID)


def test_time_and_compartment_grids_are_the_papers() -> None:
    assert {(c.n, c.k, c.capacity, c.horizon) for c in TIME_GRID} == {
        (8, 3, 60, 240),
        (10, 3, 70, 260),
        (10, 4, 60, 260),
        (12, 4, 80, 300),
    }
    assert {(c.n, c.k, c.capacity, c.compartments) for c in COMPARTMENT_GRID} == {
        (8, 3, 24, 2),
        (10, 3, 26, 2),
        (10, 4, 24, 2),
        (12, 4, 28, 2),
    }


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_applicable_profiles(variant: str) -> None:
    expected = list(range(1, 14))
    if variant in CAPACITY_BOUNDARY:
        expected.append(14)
    if variant in RESOURCE_BOUNDARY:
        expected.append(15)
    assert applicable_profiles(variant) == tuple(expected)


def test_applicable_profiles_rejects_unknown_variants() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        applicable_profiles("VRPXYZ")


def test_split_delivery_uses_only_its_own_grid() -> None:
    cells = capacity_cells(get_variant("SDVRP"))
    assert {c for _, c in cells} == set(SPLIT_CAPACITY_GRID)
    assert {s for s, _ in cells} == {Subfamily.EXTENDED_GRID}


@pytest.mark.parametrize(
    ("variant", "subfamilies"),
    [
        ("VRPHTW", {Subfamily.TIME_WINDOW}),
        ("PDPTW", {Subfamily.PD_TIME_WINDOW}),
        ("PDPSTW", {Subfamily.PD_TIME_WINDOW}),
        ("MCVRP", {Subfamily.COMPARTMENT}),
        ("HFMCVRP", {Subfamily.COMPARTMENT}),
        ("MCVRPSTW", {Subfamily.TIME_WINDOW, Subfamily.COMPARTMENT}),
        ("CVRP", set()),
    ],
)
def test_resource_subfamilies(variant: str, subfamilies: set[Subfamily]) -> None:
    assert set(resource_subfamilies(get_variant(variant))) == subfamilies


def test_multi_depot_variants_have_no_hexagon() -> None:
    for name in ("MDVRP", "HFMDVRP", "MDVRPSTW"):
        assert Subfamily.HEXAGON not in geometry_subfamilies(get_variant(name))
    assert Subfamily.HEXAGON in geometry_subfamilies(get_variant("CVRP"))


@pytest.mark.parametrize(
    ("candidates", "expected"),
    [
        ((5,), (4,)),
        ((7,), (6,)),
        ((9,), (8,)),
        ((12,), (12,)),
        ((5, 6, 7, 8), (6, 8)),
        ((4, 5, 6, 7, 8), (4, 6, 8)),
    ],
)
def test_pickup_delivery_counts_are_even(candidates: tuple[int, ...], expected: tuple[int, ...]) -> None:
    assert pd_customer_counts(get_variant("PDP"), candidates) == expected
    assert pd_customer_counts(get_variant("CVRP"), candidates) == candidates

"""Variant rules: two-decimal rounding towards feasibility, envelopes, windows and vehicle types."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vrpcoder.instances import PickupDelivery
from vrpcoder.sampling import rules
from vrpcoder.sampling.rules import VehicleSize
from vrpcoder.variants import get_variant


@pytest.mark.parametrize(
    ("value", "up", "down"),
    [
        (1.0, 1.0, 1.0),
        (1.001, 1.01, 1.0),
        (2.345, 2.35, 2.34),
        (0.1 + 0.2, 0.31, 0.3),
        (23.450000000000003, 23.46, 23.45),
    ],
)
def test_two_decimal_rounding_never_crosses_the_value(value: float, up: float, down: float) -> None:
    assert rules.ceil2(value) == up and rules.ceil2(value) >= value
    assert rules.floor2(value) == down and rules.floor2(value) <= value + 1e-9


@pytest.mark.parametrize(
    ("variant", "horizon"),
    [("CVRP", None), ("VRPHTW", 500.0), ("VRPSTW", 500.0), ("PDPSTW", 1200.0), ("PDPTW", 1200.0)],
)
def test_default_horizon(variant: str, horizon: float | None) -> None:
    assert rules.default_horizon(get_variant(variant), 10) == horizon


@pytest.mark.parametrize(("pairs", "horizon"), [(2, 1200.0), (5, 1200.0), (6, 1320.0)])
def test_pickup_delivery_horizon_grows_with_the_pairs(pairs: int, horizon: float) -> None:
    assert rules.pd_horizon(pairs) == horizon


def test_split_demand_is_capped_so_one_vehicle_can_carry_everything() -> None:
    assert rules.split_demand_range(1, 6, 85.0) == (2.0, 14.16)
    assert rules.split_demand_range(4, 8, None) == (2.0, 20.0)


def test_compartment_demand_is_capped_only_under_fixed_capacity() -> None:
    assert rules.compartment_demand_range(12, None) == (0.0, 6.0)
    assert rules.compartment_demand_range(8, 3 * 24.0) == (0.0, 5.4)
    assert rules.floor2(1.2 * 72 / 16) == 5.4


def test_backhaul_labels_always_have_both_kinds() -> None:
    for seed in range(200):
        labels = rules.draw_backhaul(np.random.default_rng(seed), 4)
        assert set(labels) == {True, False}


def test_pairs_cover_every_customer_once() -> None:
    pairs = rules.draw_pairs(np.random.default_rng(1), 8, 1, (1.0, 8.0))
    nodes = sorted(n for p in pairs for n in (p.pickup, p.delivery))
    assert nodes == list(range(1, 9))
    assert all(1 <= p.quantity <= 8 for p in pairs)
    with pytest.raises(ValueError, match="even"):
        rules.draw_pairs(np.random.default_rng(1), 7, 1, (1.0, 8.0))


def test_compartment_demands_are_never_all_zero() -> None:
    demands = rules.draw_compartment_demands(np.random.default_rng(0), 300, (0.0, 0.01))
    assert all(sum(d) > 0 for d in demands)


def test_homogeneous_capacity_covers_the_heaviest_route_or_gives_up() -> None:
    rng = np.random.default_rng(0)
    capacity = rules.homogeneous_capacity(rng, 4321, 10.0, (8.0, 100.0))
    assert capacity is not None and 43.21 <= capacity <= 100
    assert rules.homogeneous_capacity(rng, 1, 1.0, (8.0, 100.0)) == 8.0
    assert rules.homogeneous_capacity(rng, 10_001, 10.0, (8.0, 100.0)) is None


def test_compartments_split_the_capacity_and_cover_the_needs() -> None:
    for seed in range(50):
        split = rules.split_compartments(np.random.default_rng(seed), 4000, (0, 0))
        assert split is not None and sum(split) == 4000
        assert all(1800 <= c <= 2200 for c in split)
    raised = rules.split_compartments(np.random.default_rng(0), 4000, (3000, 0))
    assert raised is not None and raised[0] == 3000
    assert rules.split_compartments(np.random.default_rng(0), 4000, (5600, 0)) is None


def test_distance_limit_has_slack_and_stays_in_the_envelope() -> None:
    for seed in range(50):
        limit = rules.distance_limit(np.random.default_rng(seed), 123.4)
        assert limit is not None and 1.1 * 123.4 - 0.01 <= limit <= 1.4 * 123.4 + 0.01
    assert rules.distance_limit(np.random.default_rng(0), 5.0) == 60.0
    assert rules.distance_limit(np.random.default_rng(0), 1001.0) is None


def test_sized_types_grow_with_size_and_cover_the_needs() -> None:
    needs = {VehicleSize.SMALL: 3000, VehicleSize.MEDIUM: 1000, VehicleSize.LARGE: 4000}
    for seed in range(50):
        types = rules.sized_types(np.random.default_rng(seed), needs)
        assert types is not None
        small, medium, large = (types[s] for s in VehicleSize)
        assert 30 <= small.capacity <= medium.capacity <= large.capacity <= 65
        assert large.capacity >= 40
        for t in types.values():
            assert 20 <= t.fixed_cost <= 70 and 0.8 <= t.cost_per_distance <= 1.2
    assert rules.sized_types(np.random.default_rng(0), {VehicleSize.LARGE: 6600}) is None


def test_compartment_types_have_the_papers_totals() -> None:
    types = rules.compartment_types(np.random.default_rng(0), rules.fleet_mix(4))
    assert {s: t.capacity for s, t in types.items()} == {
        VehicleSize.SMALL: 15.0,
        VehicleSize.MEDIUM: 30.0,
        VehicleSize.LARGE: 50.0,
    }
    for t in types.values():
        assert t.compartments is not None and math.isclose(sum(t.compartments), t.capacity)
        assert all(5 <= c <= 55 for c in t.compartments)


@pytest.mark.parametrize(("fleet", "sizes"), [(1, 1), (2, 2), (3, 3), (4, 3)])
def test_fleet_mix_shows_every_size_from_three_vehicles(fleet: int, sizes: int) -> None:
    mix = rules.fleet_mix(fleet)
    assert len(mix) == fleet and len(set(mix)) == sizes


def test_fleet_mix_rejects_large_fleets() -> None:
    with pytest.raises(ValueError, match="1 to 4"):
        rules.fleet_mix(5)


def _windows(seed: int, planned: dict[int, float] | None, pairs: tuple[PickupDelivery, ...] = ()) -> dict:
    distances = [[0.0, 30.0, 40.0], [30.0, 0.0, 50.0], [40.0, 50.0, 0.0]]
    return rules.draw_windows(
        np.random.default_rng(seed),
        nodes=[1, 2],
        reach={1: 30.0, 2: 40.0},
        planned=planned,
        service={1: 5.0, 2: 5.0},
        pairs=pairs,
        distances=distances,
    )


@pytest.mark.parametrize(
    "planned", [{1: 30.0, 2: 85.0}, {1: 0.004, 2: 133.337}, {1: 410.0, 2: 499.99}]
)
def test_hard_windows_contain_the_planned_start(planned: dict[int, float]) -> None:
    for seed in range(100):
        for node, window in _windows(seed, planned).items():
            assert window.start <= planned[node] <= window.end - 0.01 + 1e-9
            assert 30 - 1e-9 <= window.end - window.start <= 120 + 1e-9
            assert window.start <= max(250.0, planned[node] - 120 + 0.01)


def test_soft_windows_follow_the_distance_rule() -> None:
    for seed in range(100):
        for node, window in _windows(seed, None).items():
            reach = {1: 30.0, 2: 40.0}[node]
            assert 0.5 * reach - 0.01 <= window.start <= 2.5 * reach + 0.01
            assert 30 - 1e-9 <= window.end - window.start <= 120 + 1e-9


@pytest.mark.parametrize("planned", [None, {1: 30.0, 2: 85.0}])
def test_delivery_window_starts_after_pickup_service_and_half_the_way(
    planned: dict[int, float] | None,
) -> None:
    pair = (PickupDelivery(pickup=1, delivery=2, quantity=3.0),)
    for seed in range(100):
        windows = _windows(seed, planned, pair)
        assert windows[2].start >= windows[1].start + 5.0 + 50.0 / 2 - 1e-9
        if planned is not None:
            assert windows[2].start <= planned[2] <= windows[2].end

"""The feasible probe s+: heuristic plans on tiny and sampled instances, and the gold fallback."""

from __future__ import annotations

import pytest
from vrpcoder import feasible
from vrpcoder.checker import check
from vrpcoder.feasible import construct_feasible, feasible_probe
from vrpcoder.instances import Customer, Depot, Instance, PickupDelivery, TimeWindow, Vehicle
from vrpcoder.sampling import applicable_profiles, sample_instance
from vrpcoder.solutions import Solution
from vrpcoder.variants import VARIANTS

from tests.shared.attacks.tiny import make, on_axes


@pytest.fixture
def roomy_cvrp() -> Instance:
    """Four customers of demand 1 and two vehicles of capacity 100: one vehicle could take all."""
    return make("CVRP", on_axes((1, 1, 1, 1)), (Vehicle(capacity=100),) * 2)


@pytest.fixture
def split_needed() -> Instance:
    """Three customers of 6 and two vehicles of 10: 18 units only fit if one customer is split."""
    return make("SDVRP", on_axes((6, 6, 6, 0))[:3], (Vehicle(capacity=10),) * 2)


@pytest.fixture
def impossible() -> Instance:
    """A customer of demand 20 and vehicles of 10: no plan exists."""
    return make("CVRP", on_axes((20, 1, 1, 1)), (Vehicle(capacity=10),) * 2)


def test_a_roomy_fleet_still_gets_routes_on_both_vehicles(roomy_cvrp: Instance) -> None:
    """Attacks need customers on more than one route, so the quota pass shares them out."""
    plan = construct_feasible(roomy_cvrp)
    assert plan is not None and check(roomy_cvrp, plan).feasible
    assert sorted(len(r.visits) for r in plan.routes) == [2, 2]


def test_split_delivery_spreads_a_customer_over_two_routes(split_needed: Instance) -> None:
    plan = construct_feasible(split_needed)
    assert plan is not None and check(split_needed, plan).feasible
    delivered: dict[int, float] = {}
    for route in plan.routes:
        assert route.deliveries is not None
        assert sum(route.deliveries) <= 10 + 1e-9
        for customer, amount in zip(route.visits, route.deliveries, strict=True):
            delivered[customer] = delivered.get(customer, 0.0) + amount
    assert delivered == pytest.approx({1: 6.0, 2: 6.0, 3: 6.0})
    assert sum(len(r.visits) for r in plan.routes) == 4, "exactly one customer is visited twice"


def test_pairs_ride_together_pickup_first() -> None:
    pairs = (
        PickupDelivery(pickup=4, delivery=1, quantity=3),
        PickupDelivery(pickup=2, delivery=3, quantity=2),
    )
    instance = make("PDP", on_axes((0, 0, 0, 0)), (Vehicle(capacity=4),) * 2, pairs=pairs)
    plan = construct_feasible(instance)
    assert plan is not None and check(instance, plan).feasible
    for pair in pairs:
        (route,) = [r for r in plan.routes if pair.pickup in r.visits]
        assert route.visits.index(pair.pickup) < route.visits.index(pair.delivery)


def test_windows_decide_the_order_not_the_distance() -> None:
    """A at (1, 0) opens at 50, B at (10, 0) closes at 20: visiting the nearer A first makes B late,
    so the only feasible route is [B, A] (B at 10, then A at 19, waiting until 50)."""
    near = Customer(x=1, y=0, demand=1, window=TimeWindow(start=50, end=60))
    far = Customer(x=10, y=0, demand=1, window=TimeWindow(start=0, end=20))
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=100))
    instance = make("VRPHTW", (near, far), (Vehicle(capacity=10),), depots=(depot,))
    plan = construct_feasible(instance)
    assert plan is not None
    assert [r.visits for r in plan.routes] == [(2, 1)]


def test_no_plan_when_no_plan_exists(impossible: Instance) -> None:
    assert construct_feasible(impossible) is None
    assert feasible_probe(impossible, fallback_time_limit=5) is None


def test_the_heuristic_plan_is_the_probe_when_there_is_one(roomy_cvrp: Instance) -> None:
    probe = feasible_probe(roomy_cvrp)
    assert probe is not None and probe.source == "heuristic"
    assert probe.solution == construct_feasible(roomy_cvrp)


def test_the_gold_solve_steps_in_when_the_heuristic_fails(
    roomy_cvrp: Instance, monkeypatch: pytest.MonkeyPatch
) -> None:
    def stuck(instance: Instance) -> Solution | None:
        return None

    monkeypatch.setattr(feasible, "construct_feasible", stuck)
    probe = feasible_probe(roomy_cvrp, fallback_time_limit=5)
    assert probe is not None and probe.source == "gold_fallback"
    assert check(roomy_cvrp, probe.solution).feasible


@pytest.mark.parametrize("limit", [0.0, -1.0])
def test_fallback_time_limit_must_be_positive(roomy_cvrp: Instance, limit: float) -> None:
    with pytest.raises(ValueError, match="fallback_time_limit"):
        feasible_probe(roomy_cvrp, fallback_time_limit=limit)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_sampled_instances_get_a_heuristic_plan(variant: str) -> None:
    for profile in (1, 5, 10, 12):
        instance = sample_instance(variant, profile, 0)
        plan = construct_feasible(instance)
        assert plan is not None, f"{variant} profile {profile}"
        assert check(instance, plan).feasible


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_heuristic_covers_almost_every_sampled_instance(variant: str) -> None:
    """The fallback exists for the rest, but it should be rare: at most 1 in 20 over the grid."""
    grid = [(p, s) for p in applicable_profiles(variant) for s in range(3)]
    misses = [(p, s) for p, s in grid if construct_feasible(sample_instance(variant, p, s)) is None]
    assert len(misses) <= len(grid) / 20, misses

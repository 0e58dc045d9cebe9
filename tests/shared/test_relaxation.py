"""One-way relaxation around s+: hand-computed widenings and, over sampled instances, the two
promises (s+ stays feasible, no bound is narrowed)."""

from __future__ import annotations

import pytest
from vrpcoder.checker import check
from vrpcoder.feasible import construct_feasible
from vrpcoder.instances import Depot, Instance, PickupDelivery, TimeWindow, Vehicle
from vrpcoder.relaxation import WINDOW_LIMIT, capacity_usage, relax, split_capacity_need
from vrpcoder.sampling import sample_instance
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import VARIANTS

from tests.shared.attacks.tiny import TWO_ROUTES, make, on_axes, plan

# TWO_ROUTES is [1, 2] on vehicle 0 and [3, 4] on vehicle 1: lengths 12 and 16; with demands
# 3, 4, 5, 1 the loads are 7 and 6.


def cvrp(capacity: float) -> Instance:
    return make("CVRP", on_axes((3, 4, 5, 1)), (Vehicle(capacity=capacity),) * 2)


@pytest.mark.parametrize(("capacity", "relaxed"), [(7.5, 7.7), (7.0, 7.7), (10.0, 10.0)])
def test_capacity_becomes_at_least_ten_percent_above_the_heaviest_route(
    capacity: float, relaxed: float
) -> None:
    out = relax(cvrp(capacity), TWO_ROUTES)
    assert [v.capacity for v in out.vehicles] == pytest.approx([relaxed, relaxed])


def test_heterogeneous_capacities_are_widened_per_vehicle() -> None:
    """Vehicle 0 (7.2) carries 7 -> 7.7; vehicle 1 (12) carries 6 and keeps 12."""
    fleet = (Vehicle(capacity=7.2), Vehicle(capacity=12))
    out = relax(make("HFVRP", on_axes((3, 4, 5, 1)), fleet), TWO_ROUTES)
    assert [v.capacity for v in out.vehicles] == pytest.approx([7.7, 12.0])


@pytest.mark.parametrize(("limit", "relaxed"), [(16.5, 17.6), (40.0, 40.0)])
def test_distance_limit_becomes_at_least_ten_percent_above_the_longest_route(
    limit: float, relaxed: float
) -> None:
    instance = make("DCVRP", on_axes((1, 1, 1, 1)), (Vehicle(capacity=50),) * 2, max_route_distance=limit)
    assert relax(instance, TWO_ROUTES).max_route_distance == pytest.approx(relaxed)


def test_compartments_widen_and_the_total_covers_their_sum() -> None:
    """Compartment loads (3, 3) and (3, 1): each compartment needs 3.3; the total, 6.2 before,
    is raised to the compartments' sum 6.6."""
    parts = ((2.0, 1.0), (1.0, 2.0), (3.0, 0.0), (0.0, 1.0))
    customers = on_axes(tuple(sum(p) for p in parts), compartment_demand=parts)
    fleet = (Vehicle(capacity=6.2, compartment_capacity=(3.1, 3.1)),) * 2
    out = relax(make("MCVRP", customers, fleet), TWO_ROUTES)
    for vehicle in out.vehicles:
        assert vehicle.compartment_capacity == pytest.approx((3.3, 3.3))
        assert vehicle.capacity == pytest.approx(6.6)


def test_windows_gain_slack_around_the_service_starts() -> None:
    """Service time 1. Starts: node 1 at 3, node 2 at 7 (route [1, 2], back at 14); node 3 at 4,
    node 4 at 9 (route [3, 4], back at 18). Each window [t, t] becomes [max(0, t - 10), t + 10];
    the horizon 20 grows to cover the latest return plus 10 (28)."""
    starts = {1: 3.0, 2: 7.0, 3: 4.0, 4: 9.0}
    windows = tuple(TimeWindow(start=t, end=t) for t in starts.values())
    customers = on_axes((1, 1, 1, 1), service_time=(1, 1, 1, 1), window=windows)
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=20))
    instance = make("VRPHTW", customers, (Vehicle(capacity=10),) * 2, depots=(depot,))
    assert check(instance, TWO_ROUTES).feasible
    out = relax(instance, TWO_ROUTES)
    for node, t in starts.items():
        window = out.customer(node).window
        assert window is not None
        assert (window.start, window.end) == pytest.approx((max(0.0, t - 10), t + 10))
    depot_window = out.depots[0].window
    assert depot_window is not None and (depot_window.start, depot_window.end) == (0.0, 28.0)


def test_window_ends_stay_within_the_limit() -> None:
    late = TimeWindow(start=1495, end=1498)
    customers = on_axes((1, 1, 1, 1), window=(late,) * 4, late_penalty=(1, 1, 1, 1))
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=1500))
    instance = make("VRPSTW", customers, (Vehicle(capacity=10),) * 2, depots=(depot,))
    plus = plan((0, (1,)), (1, (2, 3, 4)))
    out = relax(instance, plus)
    for customer in out.customers:
        assert customer.window is not None and customer.window.end == WINDOW_LIMIT


def test_split_delivery_capacity_is_widened_around_the_given_quantities() -> None:
    customers = on_axes((6, 6, 6, 0))[:3]
    plus = Solution(
        routes=(
            Route(vehicle=0, depot=0, visits=(1, 2), deliveries=(6, 4)),
            Route(vehicle=1, depot=0, visits=(2, 3), deliveries=(2, 6)),
        )
    )
    out = relax(make("SDVRP", customers, (Vehicle(capacity=10),) * 2), plus)
    assert [v.capacity for v in out.vehicles] == pytest.approx([11.0, 11.0])


def test_relaxing_around_an_infeasible_plan_is_refused() -> None:
    with pytest.raises(ValueError, match="s\\+ must be feasible"):
        relax(cvrp(6.5), TWO_ROUTES)


# ---- what a plan uses -------------------------------------------------------------------------


def test_split_capacity_need_balances_a_shared_customer() -> None:
    """Routes [1, 2] and [2, 3] without quantities, demands 6 each: giving node 2 half to each
    route loads both with 9; with quantities (6, 4) and (2, 6) the need is the heavier 10."""
    instance = make("SDVRP", on_axes((6, 6, 6, 0))[:3], (Vehicle(capacity=20),) * 2)
    free = plan((0, (1, 2)), (1, (2, 3)))
    assert split_capacity_need(instance, free) == pytest.approx(9.0, abs=2e-4)
    assert split_capacity_need(instance, free) >= 9.0
    given = Solution(
        routes=tuple(
            r.model_copy(update={"deliveries": d})
            for r, d in zip(free.routes, ((6.0, 4.0), (2.0, 6.0)), strict=True)
        )
    )
    assert split_capacity_need(instance, given) == 10.0


def test_split_capacity_need_is_only_for_split_delivery() -> None:
    with pytest.raises(ValueError, match="not a split-delivery variant"):
        split_capacity_need(cvrp(10), TWO_ROUTES)


def test_capacity_usage_of_backhaul_and_pickup_delivery_routes() -> None:
    vrpb = make(
        "VRPB", on_axes((3, 4, 5, 1), backhaul=(False, True, False, True)), (Vehicle(capacity=10),) * 2
    )
    assert capacity_usage(vrpb, Route(vehicle=0, depot=0, visits=(1, 3, 2))) == 8  # linehaul 3 + 5
    assert capacity_usage(vrpb, Route(vehicle=0, depot=0, visits=(1, 2, 4))) == 5  # backhaul 4 + 1
    pairs = (
        PickupDelivery(pickup=1, delivery=2, quantity=3),
        PickupDelivery(pickup=3, delivery=4, quantity=2),
    )
    pdp = make("PDP", on_axes((0, 0, 0, 0)), (Vehicle(capacity=10),) * 2, pairs=pairs)
    assert capacity_usage(pdp, Route(vehicle=0, depot=0, visits=(1, 3, 2, 4))) == 5
    assert capacity_usage(pdp, Route(vehicle=0, depot=0, visits=(1, 2, 3, 4))) == 3


# ---- sampled instances ------------------------------------------------------------------------


def bounds(instance: Instance) -> list[float]:
    """Every bound as a number that grows when the bound is relaxed (window starts negated)."""
    out: list[float] = []
    for vehicle in instance.vehicles:
        out += [vehicle.capacity or 0.0, *(vehicle.compartment_capacity or ())]
    out.append(instance.max_route_distance or 0.0)
    windows = [c.window for c in instance.customers] + [d.window for d in instance.depots]
    for window in windows:
        if window is not None:
            out += [-window.start, window.end]
    return out


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_sampled_instances_stay_feasible_and_only_widen(variant: str) -> None:
    for profile in (1, 5, 10, 12):
        instance = sample_instance(variant, profile, 0)
        plus = construct_feasible(instance)
        assert plus is not None
        out = relax(instance, plus)
        assert check(out, plus).feasible
        assert all(
            after >= before - 1e-9 for before, after in zip(bounds(instance), bounds(out), strict=True)
        )
        assert relax(instance, plus) == out, "relaxation is deterministic"
        horizon = out.horizon
        for customer in out.customers:
            if customer.window is not None and horizon is not None:
                assert 0 <= customer.window.start <= customer.window.end <= min(horizon, WINDOW_LIMIT)

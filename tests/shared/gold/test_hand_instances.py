"""Gold optima on instances small enough to solve by hand (expected values derived in comments)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from vrpcoder.gold import GoldStatus, remove_family, render_gold, solve_gold, solve_script
from vrpcoder.instances import Customer, Depot, Instance, PickupDelivery, TimeWindow, Vehicle

from tests.shared.bruteforce import brute_force_optimum

ORIGIN = Depot(x=0, y=0)
OPEN_DAY = TimeWindow(start=0, end=500)


def make(variant: str, customers: list[Customer], vehicles: list[Vehicle], **extra: Any) -> Instance:
    depots = extra.pop("depots", (ORIGIN,))
    return Instance(
        name=f"hand-{variant.lower()}",
        variant=variant,
        depots=tuple(depots),
        customers=tuple(customers),
        vehicles=tuple(vehicles),
        **extra,
    )


def optimum(instance: Instance) -> float:
    result = solve_gold(instance)
    assert result.status == GoldStatus.OPTIMAL, result.detail
    assert result.objective is not None
    return result.objective


def test_tsp_around_a_square() -> None:
    # Depot and customers on the corners of a 10 x 10 square: the tour is its perimeter.
    corners = [Customer(x=0, y=10), Customer(x=10, y=10), Customer(x=10, y=0)]
    assert optimum(make("TSP", corners, [Vehicle()])) == pytest.approx(40.0)


TWIN = [Customer(x=10, y=0, demand=3), Customer(x=10, y=1, demand=3)]
# One route 0 -> (10,0) -> (10,1) -> 0 is 10 + 1 + sqrt(101); two out-and-back trips 20 + 2 sqrt(101).
ONE_TRIP = 11 + math.sqrt(101)
TWO_TRIPS = 20 + 2 * math.sqrt(101)


@pytest.mark.parametrize(("capacity", "expected"), [(6.0, ONE_TRIP), (5.0, TWO_TRIPS)])
def test_cvrp_capacity_splits_the_trip(capacity: float, expected: float) -> None:
    instance = make("CVRP", TWIN, [Vehicle(capacity=capacity), Vehicle(capacity=capacity)])
    assert optimum(instance) == pytest.approx(expected)


@pytest.mark.parametrize(("limit", "expected"), [(22.0, ONE_TRIP), (21.0, TWO_TRIPS)])
def test_distance_limit_splits_the_trip(limit: float, expected: float) -> None:
    vehicles = [Vehicle(capacity=10), Vehicle(capacity=10)]
    assert optimum(make("DCVRP", TWIN, vehicles, max_route_distance=limit)) == pytest.approx(expected)


def test_compartment_overflow_splits_the_trip_although_the_total_fits() -> None:
    # Compartment 0 holds 5 but the customers need 4 + 4 there; the total 8 fits the 15 of the truck.
    customers = [
        Customer(x=10, y=0, demand=4, compartment_demand=(4, 0)),
        Customer(x=10, y=1, demand=4, compartment_demand=(4, 0)),
    ]
    truck = Vehicle(capacity=15, compartment_capacity=(5, 10))
    assert optimum(make("MCVRP", customers, [truck, truck])) == pytest.approx(TWO_TRIPS)


def test_open_route_does_not_pay_the_way_back() -> None:
    customers = [Customer(x=10, y=0, demand=1), Customer(x=20, y=0, demand=1)]
    assert optimum(make("OVRP", customers, [Vehicle(capacity=5)])) == pytest.approx(20.0)


def test_split_delivery_serves_what_no_single_truck_could() -> None:
    # Three customers of demand 6 at one spot, two trucks of 9: only splitting carries all 18;
    # each truck drives out and back (2 x 20).
    customers = [Customer(x=10, y=0, demand=6) for _ in range(3)]
    trucks = [Vehicle(capacity=9), Vehicle(capacity=9)]
    assert optimum(make("SDVRP", customers, trucks)) == pytest.approx(40.0)
    assert solve_gold(make("CVRP", customers, trucks)).status == GoldStatus.INFEASIBLE


def test_heterogeneous_fleet_picks_the_cheap_vehicle_that_fits() -> None:
    # Small van: fixed 10, 1.0 per unit; big truck: fixed 50, 0.8 per unit. Trip of 20 with demand 4.
    van = Vehicle(capacity=5, fixed_cost=10, cost_per_distance=1.0)
    truck = Vehicle(capacity=20, fixed_cost=50, cost_per_distance=0.8)
    customers = [Customer(x=10, y=0, demand=4)]
    assert optimum(make("HFVRP", customers, [truck, van])) == pytest.approx(30.0)
    # With demand 6 only the truck fits: 50 + 0.8 * 20.
    heavy = [Customer(x=10, y=0, demand=6)]
    assert optimum(make("HFVRP", heavy, [truck, van])) == pytest.approx(66.0)


def test_vehicles_start_from_their_own_depot() -> None:
    # The only customer sits next to depot 1, but the only vehicle lives at depot 0.
    depots = (Depot(x=0, y=0), Depot(x=100, y=0))
    customers = [Customer(x=90, y=0, demand=1)]
    assert optimum(make("MDVRP", customers, [Vehicle(capacity=5)], depots=depots)) == pytest.approx(180.0)
    fleet = [Vehicle(capacity=5), Vehicle(capacity=5, depot=1)]
    assert optimum(make("MDVRP", customers, fleet, depots=depots)) == pytest.approx(20.0)


def test_soft_window_charges_lateness() -> None:
    # Arrival at 30 for a window closing at 10: 20 late at 2 per unit, plus the 60 driven.
    customers = [Customer(x=30, y=0, demand=1, window=TimeWindow(start=0, end=10), late_penalty=2.0)]
    depots = (Depot(x=0, y=0, window=OPEN_DAY),)
    assert optimum(make("VRPSTW", customers, [Vehicle(capacity=5)], depots=depots)) == pytest.approx(100.0)


def test_hard_windows_fix_the_order_and_may_make_an_instance_infeasible() -> None:
    # (20,0) must be served by 20, (10,0) not before 100: only the order far-then-near works.
    depots = (Depot(x=0, y=0, window=OPEN_DAY),)
    customers = [
        Customer(x=10, y=0, demand=1, window=TimeWindow(start=100, end=110)),
        Customer(x=20, y=0, demand=1, window=TimeWindow(start=0, end=20)),
    ]
    result = solve_gold(make("VRPHTW", customers, [Vehicle(capacity=5)], depots=depots))
    assert result.status == GoldStatus.OPTIMAL and result.objective == pytest.approx(40.0)
    assert result.solution is not None and result.solution.routes[0].visits == (2, 1)
    unreachable = [Customer(x=30, y=0, demand=1, window=TimeWindow(start=0, end=10))]
    assert (
        solve_gold(make("VRPHTW", unreachable, [Vehicle(capacity=5)], depots=depots)).status
        == GoldStatus.INFEASIBLE
    )


def test_open_route_has_no_closing_time() -> None:
    # Service ends at 30 + 5; the depot closes at 40, 30 away: a closed route could not return.
    depots = (Depot(x=0, y=0, window=TimeWindow(start=0, end=40)),)
    customers = [Customer(x=30, y=0, demand=1, window=TimeWindow(start=0, end=35), service_time=5)]
    assert optimum(make("OVRPHTW", customers, [Vehicle(capacity=5)], depots=depots)) == pytest.approx(30.0)
    closed = make("VRPHTW", customers, [Vehicle(capacity=5)], depots=depots)
    assert solve_gold(closed).status == GoldStatus.INFEASIBLE


def test_pickup_must_precede_its_delivery() -> None:
    # Requests (10,0) -> (1,0) and (0,10) -> (0,1), one vehicle. The shortest tour
    # 0, (1,0), (10,0), (0,10), (0,1), 0 = 1 + 9 + 10 sqrt(2) + 9 + 1 serves a delivery first.
    # A legal tour starts at a pickup (10 away); from (10,0) the cheapest legal rest is
    # (0,10), (0,1), (1,0), 0 = 10 sqrt(2) + 9 + sqrt(2) + 1, so the optimum is 20 + 11 sqrt(2).
    customers = [Customer(x=10, y=0), Customer(x=1, y=0), Customer(x=0, y=10), Customer(x=0, y=1)]
    pairs = (
        PickupDelivery(pickup=1, delivery=2, quantity=1),
        PickupDelivery(pickup=3, delivery=4, quantity=1),
    )
    instance = make("PDP", customers, [Vehicle(capacity=5)], pairs=pairs)
    result = solve_gold(instance)
    assert result.status == GoldStatus.OPTIMAL and result.solution is not None
    route = result.solution.routes[0].visits
    assert route.index(1) < route.index(2) and route.index(3) < route.index(4)
    assert result.objective == pytest.approx(20 + 11 * math.sqrt(2))
    unordered = solve_script(remove_family(render_gold(instance), "precedence"), instance)
    assert unordered.objective == pytest.approx(20 + 10 * math.sqrt(2))


def test_without_subtour_elimination_detached_cycles_are_cheaper() -> None:
    # Two customers next to the depot and two far away. Without subtour elimination the vehicle may
    # stay home while both pairs form 2-cycles: 2 sqrt(2) + 2, far below any real tour.
    customers = [Customer(x=1, y=0), Customer(x=0, y=1), Customer(x=100, y=0), Customer(x=100, y=1)]
    instance = make("TSP", customers, [Vehicle()])
    gold = optimum(instance)
    relaxed = solve_script(remove_family(render_gold(instance), "subtour"), instance)
    assert relaxed.status == GoldStatus.OPTIMAL and relaxed.objective is not None
    assert relaxed.objective == pytest.approx(2 * math.sqrt(2) + 2)
    assert relaxed.objective < gold
    assert relaxed.solution is not None
    assert sorted(sorted(c.visits) for c in relaxed.solution.cycles) == [[1, 2], [3, 4]]


def test_vrpb_no_route_serves_backhauls_only() -> None:
    # Linehauls L1 (10, 0) and L2 (11, 0) of demand 1; backhauls B1 (0, 1) and B2 (0, -1) of demand 5
    # next to the depot; capacity 5 takes one backhaul per route. Allowed a route of backhauls only,
    # one truck drives 0-L1-L2-B1-0 and another 0-B2-0 (25.05); every route must serve a linehaul,
    # so each backhaul rides with its own linehaul: 0-L1-B-0 and 0-L2-B-0 = 23 + sqrt(101) + sqrt(122).
    customers = [
        Customer(x=10, y=0, demand=1),
        Customer(x=11, y=0, demand=1),
        Customer(x=0, y=1, demand=5, backhaul=True),
        Customer(x=0, y=-1, demand=5, backhaul=True),
    ]
    instance = make("VRPB", customers, [Vehicle(capacity=5)] * 3)
    result = solve_gold(instance)
    assert result.status == GoldStatus.OPTIMAL and result.solution is not None
    assert result.objective == pytest.approx(23 + math.sqrt(101) + math.sqrt(122))
    assert all(not instance.customer(r.visits[0]).backhaul for r in result.solution.routes)
    assert optimum(instance) == pytest.approx(brute_force_optimum(instance)[0])

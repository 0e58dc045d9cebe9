"""Sub-rule attacks on tiny instances (issue 28.2): each probe breaks one rule of its family alone,
worked out by hand (the layout of the customers is in tiny.py)."""

from __future__ import annotations

import pytest
from vrpcoder.attacks import Attack, AttackSkipped, run_attack
from vrpcoder.attacks.editing import label_problem
from vrpcoder.attacks.subrules import carried, running_sums
from vrpcoder.checker import check, compartment_loads, return_time, route_load, schedule
from vrpcoder.families import Rule
from vrpcoder.instances import Depot, Instance, PickupDelivery, TimeWindow, Vehicle
from vrpcoder.relaxation import capacity_usage, split_capacity_need
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import ATTACKERS, Attacker

from tests.shared.attacks.tiny import TWO_ROUTES, Case, make, on_axes, plan

SEEDS = range(4)


def probe_of(case: Case, attacker: Attacker, seed: int = 0) -> Solution:
    """The attack's probe, which the checker finds breaking the attacker's one rule alone."""
    result = run_attack(attacker, case.instance, case.plus, seed=seed)
    assert isinstance(result, Attack), result
    report = check(case.instance, result.solution)
    assert label_problem(report, attacker) is None
    assert len(report.rules) == 1 and report.rules[0] in ATTACKERS[attacker].rules
    return result.solution


def used(solution: Solution) -> list[Route]:
    return [r for r in solution.routes if r.visits]


# ---- backhaul ----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_backhaul_start_gives_an_idle_vehicle_backhauls_only(seed: int) -> None:
    """Routes [1, 2] and [3, 4] (2 and 4 backhauls) and an idle third vehicle: it takes backhauls
    off the others, which keep a linehaul first."""
    customers = on_axes((3, 4, 5, 1), backhaul=(False, True, False, True))
    case = Case(make("VRPB", customers, (Vehicle(capacity=10),) * 3), TWO_ROUTES)
    probe = probe_of(case, Attacker.BACKHAUL_START, seed)
    (alone,) = [r for r in used(probe) if r.vehicle == 2]
    assert set(alone.visits) <= {2, 4}
    assert all(r.end_depot == r.depot for r in probe.routes), "depot arcs pinned: the route cannot be left unserved"


def test_backhaul_start_hands_a_routes_linehauls_to_the_others(vrpb_mixed: Case) -> None:
    """No idle vehicle: route [1, 2] gives its linehaul 1 to route [3, 4] (3 + 5 + 1 <= 10)."""
    probe = probe_of(vrpb_mixed, Attacker.BACKHAUL_START)
    visits = {r.vehicle: r.visits for r in used(probe)}
    assert visits[0] == (2,) and sorted(visits[1]) == [1, 3, 4]


def test_backhaul_start_says_why_when_every_route_needs_its_linehauls(vrpb: Case) -> None:
    """Both linehauls together (3 + 5) fit, but the receiving route's order would need its
    backhaul moved as well: no route can give its linehauls away."""
    tight = Case(make("VRPB", vrpb.instance.customers, (Vehicle(capacity=7),) * 2), vrpb.plus)
    result = run_attack(Attacker.BACKHAUL_START, tight.instance, tight.plus)
    assert isinstance(result, AttackSkipped) and result.reason


# ---- pickup and delivery -----------------------------------------------------------------------


def _pdp(quantities: tuple[float, float], plus: Solution, fleet: int = 2) -> Case:
    pairs = (
        PickupDelivery(pickup=1, delivery=2, quantity=quantities[0]),
        PickupDelivery(pickup=3, delivery=4, quantity=quantities[1]),
    )
    return Case(make("PDP", on_axes((0, 0, 0, 0)), (Vehicle(capacity=10),) * fleet, pairs=pairs), plus)


@pytest.mark.parametrize("seed", SEEDS)
def test_precedence_carried_keeps_every_running_sum_above_zero(seed: int) -> None:
    """Route [1, 3, 2, 4] (pickups 3 then 2): only delivery 4 can come before its pickup 3, after
    pickup 1 (3 on board covers the 2 it drops), so a load model accepts the probe."""
    case = _pdp((3, 2), plan((0, (1, 3, 2, 4))))
    probe = probe_of(case, Attacker.PRECEDENCE_CARRIED, seed)
    (route,) = used(probe)
    assert route.visits.index(4) < route.visits.index(3)
    assert min(running_sums(case.instance, route)) >= 0 and carried(case.instance, probe)
    paper = run_attack(Attacker.PRECEDENCE, case.instance, case.plus, seed=seed)
    assert isinstance(paper, Attack) and not carried(case.instance, paper.solution), (
        "the paper's probe puts a delivery where nothing covers it"
    )


def test_precedence_carried_brings_a_covering_pair_onto_the_route(pdp: Case) -> None:
    """One pair a route (1 -> 2 carries 3, 3 -> 4 carries 2): only pair 1 -> 2 covers the other's
    delivery, so both go on one route as pickup 1, delivery 4, pickup 3, delivery 2."""
    probe = probe_of(pdp, Attacker.PRECEDENCE_CARRIED)
    assert [r.visits for r in used(probe)] == [(1, 4, 3, 2)]


def test_precedence_carried_needs_a_pair_that_covers_another() -> None:
    equal_to_none = _pdp((3, 2), TWO_ROUTES)
    lone = equal_to_none.instance.model_copy(update={"pairs": equal_to_none.instance.pairs[:1]})
    result = run_attack(Attacker.PRECEDENCE_CARRIED, lone, plan((0, (1, 2)), (1, (3, 4))))
    assert isinstance(result, AttackSkipped)


@pytest.mark.parametrize("seed", SEEDS)
def test_pair_exchange_swaps_deliveries_of_equal_quantity(seed: int) -> None:
    case = _pdp((3, 3), TWO_ROUTES)
    probe = probe_of(case, Attacker.PAIR_EXCHANGE, seed)
    assert {r.vehicle: r.visits for r in used(probe)} == {0: (1, 4), 1: (3, 2)}
    assert carried(case.instance, probe)
    assert len(check(case.instance, probe).violations) == 2, "both pairs ride with two vehicles"


def test_pair_exchange_needs_equal_quantities(pdp: Case) -> None:
    result = run_attack(Attacker.PAIR_EXCHANGE, pdp.instance, pdp.plus)
    assert isinstance(result, AttackSkipped) and "equal total quantity" in result.reason


# ---- fleet and depots -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_extra_route_puts_one_route_more_than_the_fleet_on_a_vehicle_that_carries_both(cvrp: Case, seed: int) -> None:
    probe = probe_of(cvrp, Attacker.EXTRA_ROUTE, seed)
    routes = used(probe)
    assert len(routes) == 3 and sorted(c for r in routes for c in r.visits) == [1, 2, 3, 4]
    (twice,) = {r.vehicle for r in routes if sum(1 for s in routes if s.vehicle == r.vehicle) == 2}
    assert sum(route_load(cvrp.instance, r) for r in routes if r.vehicle == twice) <= 10
    assert all(r.end_depot == 0 for r in routes)


def test_extra_route_splits_a_tour_into_two_through_the_start_city() -> None:
    tsp = Case(make("TSP", on_axes((0, 0, 0, 0)), (Vehicle(),)), plan((0, (1, 2, 3, 4))))
    probe = probe_of(tsp, Attacker.EXTRA_ROUTE)
    assert [r.vehicle for r in used(probe)] == [0, 0]


def test_extra_route_on_open_routes_makes_routes_of_two_customers() -> None:
    """An open route has no return arc to pin, so every route the probe adds holds an arc."""
    ovrp = Case(make("OVRP", on_axes((1, 1, 1, 1)), (Vehicle(capacity=10),)), plan((0, (1, 2, 3, 4))))
    probe = probe_of(ovrp, Attacker.EXTRA_ROUTE)
    assert sorted(len(r.visits) for r in used(probe)) == [2, 2]
    assert all(r.end_depot is None for r in probe.routes)


def _two_depots() -> Instance:
    """Depot 0 at the origin, depot 1 at (10, 0); one vehicle each; customers 2..5 on the axes."""
    depots = (Depot(x=0, y=0), Depot(x=10, y=0))
    return make("MDVRP", on_axes((1, 1, 1, 1)), (Vehicle(capacity=10, depot=0), Vehicle(capacity=10, depot=1)), depots=depots)


@pytest.mark.parametrize("seed", SEEDS)
def test_foreign_depot_start_moves_a_route_to_a_depot_whose_vehicles_are_out(seed: int) -> None:
    instance = _two_depots()
    plus = Solution(routes=(Route(vehicle=0, depot=0, visits=(2, 3)), Route(vehicle=1, depot=1, visits=(4, 5))))
    probe = probe_of(Case(instance, plus), Attacker.FOREIGN_DEPOT_START, seed)
    moved = [r for r in used(probe) if r.depot != instance.vehicles[r.vehicle].depot]
    assert len(moved) == 1 and moved[0].end_depot == moved[0].depot
    staying = [r for r in used(probe) if r.depot == moved[0].depot and r is not moved[0]]
    assert len(staying) == 1, "the depot's own vehicle is out: no relabelling repairs the probe"
    assert all(r.end_depot == r.depot for r in probe.routes)


# ---- time windows ----------------------------------------------------------------------------------


def test_depot_close_edge_is_back_late_with_every_customer_on_time(vrphtw: Case) -> None:
    """Routes [1, 2] (back at 14) and [3, 4] (back at 18) under a depot closing at 20: a customer
    moved onto the other route brings it back after 20, every start still within 50."""
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=20))
    case = Case(vrphtw.instance.model_copy(update={"depots": (depot,)}), vrphtw.plus)
    probe = probe_of(case, Attacker.DEPOT_CLOSE_EDGE)
    assert check(case.instance, probe).rules == (Rule.DEPOT_CLOSE,)
    late = [return_time(case.instance, r) for r in used(probe) if return_time(case.instance, r) > 20]
    assert len(late) == 1 and late[0] <= 25


def test_depot_close_edge_is_skipped_where_the_depot_closes_after_any_return(vrphtw: Case) -> None:
    result = run_attack(Attacker.DEPOT_CLOSE_EDGE, vrphtw.instance, vrphtw.plus)
    assert isinstance(result, AttackSkipped) and "closes after" in result.reason


def test_waiting_edge_is_late_only_because_the_vehicle_waits() -> None:
    """Node 1 opens at 20, node 2 closes at 23. s+ serves 2 (at 6) then 1 (arrives 10, waits for
    20); served the other way round, the vehicle waits at 1 and reaches 2 at 24, one unit late,
    though without waiting it would be there at 7."""
    windows = (TimeWindow(start=20, end=30), TimeWindow(start=0, end=23), TimeWindow(start=0, end=50), TimeWindow(start=0, end=50))
    customers = on_axes((1, 1, 1, 1), service_time=(1, 1, 1, 1), window=windows)
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=100))
    instance = make("VRPHTW", customers, (Vehicle(capacity=10),) * 2, depots=(depot,))
    case = Case(instance, plan((0, (2, 1)), (1, (3, 4))))
    probe = probe_of(case, Attacker.WAITING_EDGE)
    (late,) = [r for r in used(probe) if any(s > instance.customer(v).window.end for v, s in zip(r.visits, schedule(instance, r)))]  # type: ignore[union-attr]
    assert late.visits.index(1) < late.visits.index(2)


# ---- compartments and mixed fleets ----------------------------------------------------------------


def _compartments() -> Case:
    """Compartment demands (2,1) (1,2) | (3,0) (0,1) under limits (4, 3.5): route loads (3,3) and
    (3,1). Customer 4 moved onto the first route overloads compartment 1 by 0.5; customer 1 moved
    onto the second overloads compartment 0 by 1."""
    parts = ((2.0, 1.0), (1.0, 2.0), (3.0, 0.0), (0.0, 1.0))
    customers = on_axes(tuple(sum(p) for p in parts), compartment_demand=parts)
    fleet = (Vehicle(capacity=20, compartment_capacity=(4.0, 3.5)),) * 2
    return Case(make("MCVRP", customers, fleet), TWO_ROUTES)


def _overloaded(case: Case, probe: Solution) -> list[int]:
    return [
        c
        for r in used(probe)
        for c, (load, room) in enumerate(zip(compartment_loads(case.instance, r), case.instance.vehicles[r.vehicle].compartment_capacity or ()))
        if load > room
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_two_compartment_edges_overload_different_compartments(seed: int) -> None:
    case = _compartments()
    first = probe_of(case, Attacker.COMPARTMENT_EDGE, seed)
    second = probe_of(case, Attacker.OTHER_COMPARTMENT_EDGE, seed)
    assert _overloaded(case, first) == [1] and _overloaded(case, second) == [0]


def test_smallest_vehicle_edge_overloads_the_small_truck_within_the_large_ones_capacity(hfvrp: Case) -> None:
    """Vehicle 0 carries 8 and vehicle 1 carries 12: the small one overloaded, to at most 12."""
    probe = probe_of(hfvrp, Attacker.SMALLEST_VEHICLE_EDGE)
    (over,) = [r for r in used(probe) if capacity_usage(hfvrp.instance, r) > hfvrp.instance.vehicles[r.vehicle].capacity]  # type: ignore[operator]
    assert over.vehicle == 0 and capacity_usage(hfvrp.instance, over) <= 12


def test_smallest_vehicle_edge_needs_two_sizes(cvrp: Case) -> None:
    same = Case(make("HFVRP", cvrp.instance.customers, (Vehicle(capacity=10),) * 2), cvrp.plus)
    result = run_attack(Attacker.SMALLEST_VEHICLE_EDGE, same.instance, same.plus)
    assert isinstance(result, AttackSkipped) and "same capacity" in result.reason


@pytest.mark.parametrize("seed", SEEDS)
def test_middle_vehicle_edge_overloads_the_middle_truck_within_the_largest_ones_capacity(seed: int) -> None:
    """Trucks of 7, 10 and 20 carry 4, 8 and 4: the middle one takes another customer of 4 (12 > 10,
    within 20); the smallest vehicle's edge overloads the small one instead."""
    vehicles = (Vehicle(capacity=7), Vehicle(capacity=10), Vehicle(capacity=20))
    case = Case(make("HFVRP", on_axes((4, 4, 4, 4)), vehicles), plan((0, (1,)), (1, (2, 3)), (2, (4,))))
    probe = probe_of(case, Attacker.MIDDLE_VEHICLE_EDGE, seed)
    (over,) = [r for r in used(probe) if capacity_usage(case.instance, r) > vehicles[r.vehicle].capacity]  # type: ignore[operator]
    assert over.vehicle == 1 and capacity_usage(case.instance, over) == 12
    smallest = probe_of(case, Attacker.SMALLEST_VEHICLE_EDGE, seed)
    assert [r.vehicle for r in used(smallest) if capacity_usage(case.instance, r) > vehicles[r.vehicle].capacity] == [0]  # type: ignore[operator]


def test_middle_vehicle_edge_needs_three_sizes(hfvrp: Case) -> None:
    result = run_attack(Attacker.MIDDLE_VEHICLE_EDGE, hfvrp.instance, hfvrp.plus)
    assert isinstance(result, AttackSkipped) and "fewer than three capacities" in result.reason


# ---- split delivery ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_split_load_edge_leaves_the_visitors_short_by_the_least(sdvrp: Case, seed: int) -> None:
    """Demands 6, 6, 6, node 2 visited by both routes [1, 2] and [2, 3], under a capacity of 10:
    any customer left to one vehicle, or one route grafted onto the other, leaves some vehicle
    at least 12 to carry; the probe needs no more than that."""
    fleet = (Vehicle(capacity=10),) * 2
    free = Solution(routes=tuple(r.model_copy(update={"deliveries": None}) for r in sdvrp.plus.routes))
    tight = Case(make("SDVRP", sdvrp.instance.customers, fleet), free)
    probe = probe_of(tight, Attacker.SPLIT_LOAD_EDGE, seed)
    assert all(r.deliveries is None for r in probe.routes)
    assert 10 < split_capacity_need(tight.instance, probe) <= 12 + 1e-3

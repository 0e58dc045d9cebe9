"""Edge attacks (issue 19): probes on the sample's own instance that break one family by as little
as a plan near s+ can, and the gold-derived fallback (issue 14.4)."""

from __future__ import annotations

import pytest
from vrpcoder.attacks import Attack, AttackSkipped, run_attack
from vrpcoder.attacks.boundary import MIN_EXCESS, without_service_times
from vrpcoder.attacks.derived import derived_attack, fewest_vehicles_plan
from vrpcoder.checker import check, route_distance, schedule
from vrpcoder.families import Family
from vrpcoder.feasible import diverse_feasible, feasible_probe
from vrpcoder.injection import probe_fixes
from vrpcoder.instances import Depot, Instance, TimeWindow, Vehicle
from vrpcoder.relaxation import capacity_usage, relax
from vrpcoder.sampling import sample_instance
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import Attacker

from tests.shared.attacks.tiny import Case, make, on_axes


def _attack(case: Case, attacker: Attacker, seed: int = 0) -> Attack:
    result = run_attack(attacker, case.instance, case.plus, seed=seed)
    assert isinstance(result, Attack), result
    assert check(case.instance, result.solution).families == (result.family,)
    return result


@pytest.mark.parametrize("seed", range(4))
def test_capacity_edge_overloads_by_the_least_any_nearby_plan_can(cvrp: Case, seed: int) -> None:
    """Demands 3, 4 | 5, 1 under capacity 10: no plan near s+ loads a route to 11, and 12 is the
    least overload (3 + 4 + 5); the attack finds it whatever the seed."""
    probe = _attack(cvrp, Attacker.CAPACITY_EDGE, seed).solution
    loads = [capacity_usage(cvrp.instance, r) for r in probe.routes if r.visits]
    assert max(loads) == pytest.approx(12.0)


def test_backhaul_load_edge_overloads_the_pickups_while_the_deliveries_fit(vrpb: Case) -> None:
    """Linehauls 1, 3 (3 each) and backhauls 2 (4), 4 (3) under capacity 6: moving one backhaul
    onto the other's route piles 7 pickups on it while its deliveries (3, or 6) still fit."""
    customers = on_axes((3, 4, 3, 3), backhaul=(False, True, False, True))
    instance = make("VRPB", customers, (Vehicle(capacity=6),) * 2)
    case = Case(instance, Solution(routes=(Route(vehicle=0, depot=0, visits=(1, 2)), Route(vehicle=1, depot=0, visits=(3, 4)))))
    probe = _attack(case, Attacker.BACKHAUL_LOAD_EDGE).solution
    from vrpcoder.checker import backhaul_loads

    loads = [backhaul_loads(instance, r) for r in probe.routes if r.visits]
    assert max(b for _, b in loads) > 6.0 and max(line for line, _ in loads) <= 6.0


def test_distance_edges_break_the_limit_by_little_and_through_the_return_leg(dcvrp: Case) -> None:
    tight = Case(make("DCVRP", on_axes((1, 1, 1, 1)), (Vehicle(capacity=50),) * 2, max_route_distance=20), dcvrp.plus)
    edge = _attack(tight, Attacker.DISTANCE_EDGE).solution
    over = max(route_distance(tight.instance, r) for r in edge.routes if r.visits) - 20.0
    assert MIN_EXCESS < over <= 6.0
    leg = _attack(tight, Attacker.RETURN_LEG_EDGE).solution
    for route in (r for r in leg.routes if r.visits):
        full = route_distance(tight.instance, route)
        if full > 20.0:
            assert full - tight.instance.distances[route.visits[-1]][route.depot] <= 20.0


def test_service_time_edge_is_late_only_because_service_takes_time() -> None:
    """Node 1 (3, 0) closes at 4, node 2 (6, 0) at 7, service 3 each. s+ serves 1 on one route and 2
    alone on another; putting 1 before 2 starts 2 at 3 + 3 + 3 = 9, two units late, and at 6 (on
    time) if service took no time."""
    windows = (TimeWindow(start=0, end=4), TimeWindow(start=0, end=7), TimeWindow(start=0, end=100), TimeWindow(start=0, end=100))
    customers = on_axes((1, 1, 1, 1), service_time=(3, 3, 3, 3), window=windows)
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=200))
    instance = make("VRPHTW", customers, (Vehicle(capacity=10),) * 2, depots=(depot,))
    plus = Solution(routes=(Route(vehicle=0, depot=0, visits=(1, 3, 4)), Route(vehicle=1, depot=0, visits=(2,))))
    case = Case(instance, plus)
    probe = _attack(case, Attacker.SERVICE_TIME_EDGE).solution
    assert check(without_service_times(instance), probe).feasible
    window_edge = _attack(case, Attacker.TIME_WINDOW_EDGE).solution
    late = max(
        start - instance.customer(v).window.end  # type: ignore[union-attr]
        for r in window_edge.routes for v, start in zip(r.visits, schedule(instance, r), strict=True)
    )
    assert late == pytest.approx(2.0)


def _two_depots() -> Case:
    depots = (Depot(x=0, y=0), Depot(x=0, y=10))
    fleet = (Vehicle(depot=0, capacity=10), Vehicle(depot=1, capacity=10))
    instance = make("MDVRP", on_axes((1, 1, 1, 1)), fleet, depots=depots)
    plus = Solution(routes=(Route(vehicle=0, depot=0, visits=(2, 3)), Route(vehicle=1, depot=1, visits=(5, 4))))
    return Case(instance, plus)


def test_other_depot_return_ends_a_route_at_another_depot_and_inj_pins_both_depot_arcs() -> None:
    case = _two_depots()
    probe = _attack(case, Attacker.OTHER_DEPOT_RETURN).solution
    moved = [r for r in probe.routes if r.end_depot is not None]
    assert len(moved) == 1 and moved[0].end_depot != moved[0].depot
    fixes = {(f.tag, f.u, f.v, f.rhs) for f in probe_fixes(case.instance, probe, pin_vehicles=False)}
    route = moved[0]
    assert ("depot_out", route.depot, route.visits[0], 1) in fixes
    assert ("depot_in", route.visits[-1], route.end_depot, 1) in fixes
    assert not [f for f in probe_fixes(case.instance, case.plus, pin_vehicles=False) if f.tag.startswith("depot")]


def test_derived_capacity_probe_is_the_least_overload_of_any_plan(cvrp: Case) -> None:
    result = derived_attack(cvrp.instance, Family.CAPACITY)
    assert isinstance(result, Attack), result
    assert result.attacker is Attacker.DERIVED_CAPACITY
    assert check(cvrp.instance, result.solution).families == (Family.CAPACITY,)
    loads = [capacity_usage(cvrp.instance, r) for r in result.solution.routes if r.visits]
    assert max(loads) == pytest.approx(12.0)


def _relaxed(variant: str, profile: int, seed: int) -> tuple[Instance, Solution]:
    instance = sample_instance(variant, profile, seed)
    found = feasible_probe(instance)
    assert found is not None
    return relax(instance, found.solution), found.solution


def test_derived_time_window_probe_breaks_windows_alone() -> None:
    instance, _ = _relaxed("VRPHTW", 1, 0)
    result = derived_attack(instance, Family.TIME_WINDOW)
    assert isinstance(result, Attack), result
    assert check(instance, result.solution).families == (Family.TIME_WINDOW,)


def test_derived_attacks_say_why_they_cannot_run(pdp: Case) -> None:
    skipped = derived_attack(pdp.instance, Family.CAPACITY)
    assert isinstance(skipped, AttackSkipped) and "not linear" in skipped.reason
    with pytest.raises(ValueError, match="no derived attacker"):
        derived_attack(pdp.instance, Family.COVERAGE)


def test_far_apart_feasible_probes_are_feasible_and_distinct() -> None:
    instance, plus = _relaxed("PDP", 4, 1)
    found = diverse_feasible(instance, plus)
    assert found and len({name for name, _ in found}) == len(found)
    for _, plan in found:
        assert check(instance, plan).feasible and plan != plus


def test_gold_fleet_minimum_leaves_vehicles_home_where_load_allows(cvrp: Case) -> None:
    plan, proven = fewest_vehicles_plan(cvrp.instance)
    assert proven and plan is not None
    assert sum(1 for r in plan.routes if r.visits) == 2  # total demand 13 > capacity 10
    roomy = make("CVRP", on_axes((1, 1, 1, 1)), (Vehicle(capacity=10),) * 3)
    plan, proven = fewest_vehicles_plan(roomy)
    assert proven and plan is not None and sum(1 for r in plan.routes if r.visits) == 1
    assert check(roomy, plan).feasible

"""The checker names the atomic rule of every violation (issue 28.2): a family with parts is judged
part by part, so a probe can be shown to break one part alone.

Instances as in test_checker.py: the depot at the origin, customers on the corners of a 3 x 4
rectangle (node 1 = (3, 0), node 2 = (3, 4), node 3 = (0, 4)).
"""

from __future__ import annotations

import pytest
from vrpcoder.attacks.editing import label_problem
from vrpcoder.checker import check
from vrpcoder.families import RULE_FAMILY, Family, Rule
from vrpcoder.instances import Depot, Instance, TimeWindow, Vehicle
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import ATTACKERS, Attacker
from vrpcoder_client.verdicts import PlanViolation

from tests.shared.test_checker import corners, make, plan


def test_every_rule_belongs_to_one_family_and_every_family_has_a_rule() -> None:
    assert set(RULE_FAMILY) == set(Rule)
    assert set(RULE_FAMILY.values()) == set(Family)
    assert all(rule.family is RULE_FAMILY[rule] for rule in Rule)


def test_every_sub_rule_attacker_names_rules_of_its_own_family() -> None:
    for attacker, info in ATTACKERS.items():
        assert all(rule.family is info.target for rule in info.rules), attacker


def test_plan_violations_carry_the_rule_on_the_wire() -> None:
    record = PlanViolation(family=Family.BACKHAUL, detail="d", rule=Rule.LINEHAUL_START)
    assert PlanViolation.model_validate_json(record.model_dump_json()).rule is Rule.LINEHAUL_START
    assert PlanViolation(family=Family.BACKHAUL, detail="d").rule is None


# ---- backhaul: order and route start ---------------------------------------------------------


@pytest.fixture
def vrpb() -> Instance:
    """Node 1 is a backhaul, nodes 2 and 3 linehauls; one vehicle carries everything."""
    return make("VRPB", corners(1, 1, 1, backhaul=(True, False, False)), (Vehicle(capacity=10),) * 2)


@pytest.mark.parametrize(
    ("routes", "rules"),
    [
        (((0, (2, 1, 3)),), [Rule.LINEHAUL_FIRST]),
        (((0, (2, 3)), (1, (1,))), [Rule.LINEHAUL_START]),
        (((0, (1, 2, 3)),), [Rule.LINEHAUL_FIRST, Rule.LINEHAUL_START]),
        (((0, (2, 3, 1)),), []),
    ],
    ids=["linehaul after a backhaul", "backhauls only", "starts with a backhaul", "linehauls first"],
)
def test_backhaul_rules_are_judged_apart(vrpb: Instance, routes: tuple, rules: list[Rule]) -> None:  # type: ignore[type-arg]
    report = check(vrpb, plan(*routes))
    assert sorted(v.rule for v in report.violations) == sorted(rules)
    assert all(v.family is Family.BACKHAUL for v in report.violations)


# ---- route structure: fleet size, one route, own depot -----------------------------------------


def test_two_tours_through_the_start_city_break_the_fleet_size() -> None:
    tsp = make("TSP", corners(0, 0, 0), (Vehicle(),))
    report = check(tsp, Solution(routes=(Route(vehicle=0, depot=0, visits=(1, 2)), Route(vehicle=0, depot=0, visits=(3,)))))
    (violation,) = report.violations
    assert violation.rule is Rule.FLEET_SIZE and "drive 2 routes" in violation.detail


def test_a_second_route_for_a_vehicle_while_another_stays_home_breaks_one_route() -> None:
    """With a vehicle of the depot idle the fleet has room: the defect is the vehicle's own."""
    fleet = make("HFVRP", corners(1, 1, 1), (Vehicle(capacity=10), Vehicle(capacity=5)))
    report = check(fleet, Solution(routes=(Route(vehicle=0, depot=0, visits=(1, 2)), Route(vehicle=0, depot=0, visits=(3,)))))
    assert report.rules == (Rule.ONE_ROUTE,) and len(report.violations) == 1


def test_more_routes_than_vehicles_break_the_fleet_size_once() -> None:
    cvrp = make("CVRP", corners(1, 1, 1), (Vehicle(capacity=10),) * 2)
    three = Solution(routes=tuple(Route(vehicle=k, depot=0, visits=(c,)) for k, c in ((0, 1), (1, 2), (1, 3))))
    assert [v.rule for v in check(cvrp, three).violations] == [Rule.FLEET_SIZE]


@pytest.fixture
def mdvrp() -> Instance:
    """Depot 0 at the origin, depot 1 at (6, 0); vehicle 0 belongs to depot 0, vehicle 1 to depot 1
    (the customers are nodes 2, 3, 4)."""
    depots = (Depot(x=0, y=0), Depot(x=6, y=0))
    return make("MDVRP", corners(1, 1, 1), (Vehicle(capacity=10, depot=0), Vehicle(capacity=10, depot=1)), depots=depots)


def test_leaving_another_depot_breaks_own_depot_and_ending_there_breaks_return_depot(mdvrp: Instance) -> None:
    n = mdvrp.num_depots
    away = Solution(routes=(Route(vehicle=0, depot=1, visits=(n, n + 1), end_depot=1), Route(vehicle=1, depot=1, visits=(n + 2,))))
    assert [v.rule for v in check(mdvrp, away).violations] == [Rule.OWN_DEPOT]
    back_elsewhere = Solution(routes=(Route(vehicle=0, depot=0, visits=(n, n + 1), end_depot=1), Route(vehicle=1, depot=1, visits=(n + 2,))))
    assert [v.rule for v in check(mdvrp, back_elsewhere).violations] == [Rule.RETURN_DEPOT]
    pinned_home = Solution(routes=(Route(vehicle=0, depot=0, visits=(n, n + 1), end_depot=0), Route(vehicle=1, depot=1, visits=(n + 2,), end_depot=1)))
    assert check(mdvrp, pinned_home).feasible, "naming the depot a route left is no defect"


# ---- time windows: a late customer and a late return are two rules ----------------------------


def _timed(depot_close: float, customer_close: float) -> Instance:
    customers = corners(1, 1, 1, window=(TimeWindow(start=0, end=customer_close),) * 3)
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=depot_close))
    return make("VRPHTW", customers, (Vehicle(capacity=10),) * 2, depots=(depot,))


@pytest.mark.parametrize(
    ("depot_close", "customer_close", "rules"),
    [
        (100, 100, []),
        (13, 100, [Rule.DEPOT_CLOSE]),
        (100, 9, [Rule.WINDOW_CLOSE]),
        (13, 9, [Rule.WINDOW_CLOSE, Rule.DEPOT_CLOSE]),
    ],
)
def test_window_close_and_depot_close_are_judged_apart(depot_close: float, customer_close: float, rules: list[Rule]) -> None:
    """Route [1, 2, 3]: starts 3, 7, 10 and back at 14."""
    report = check(_timed(depot_close, customer_close), plan((0, (1, 2, 3))))
    assert [v.rule for v in report.violations] == rules


# ---- the label rule of sub-rule attackers -------------------------------------------------------


def test_a_sub_rule_probe_must_break_its_rule_alone_and_once(vrpb: Instance) -> None:
    both = check(vrpb, plan((0, (1, 2, 3))))
    assert label_problem(both, Attacker.BACKHAUL_ORDER) is not None, "two rules: a model keeping either rejects it"
    alone = check(vrpb, plan((0, (2, 1, 3))))
    assert label_problem(alone, Attacker.BACKHAUL_ORDER) is None
    assert label_problem(alone, Attacker.BACKHAUL_START) is not None
    two_routes = make("VRPB", corners(1, 1, 1, backhaul=(True, True, False)), (Vehicle(capacity=10),) * 2)
    report = check(two_routes, plan((0, (3,)), (1, (1, 2))))
    assert report.rules == (Rule.LINEHAUL_START,)
    assert label_problem(report, Attacker.BACKHAUL_START) is None
    late_twice = check(_timed(100, 4), plan((0, (1,)), (1, (2, 3))))
    assert len(late_twice.violations) == 1, "one violation a route, naming its late customers"
    late_two_routes = check(_timed(100, 2), plan((0, (1,)), (1, (3, 2))))
    assert len(late_two_routes.violations) == 2
    assert "2 places" in (label_problem(late_two_routes, Attacker.TIME_WINDOW_EDGE) or "")

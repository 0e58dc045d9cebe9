"""The independent checker against route plans whose cost and defects are worked out by hand.

Most instances put the depot at the origin and three customers on the other corners of a 3 x 4
rectangle, so every leg is 3, 4 or 5 long:

    node 1 = (3, 0), node 2 = (3, 4), node 3 = (0, 4)
    d(0,1)=3  d(0,2)=5  d(0,3)=4  d(1,2)=4  d(1,3)=5  d(2,3)=3
    closed routes: [1,2] = 12, [3] = 8, [1,2,3] = 14, [2,3] = 12, [1] = 6, [2] = 10
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from vrpcoder.checker import (
    CheckReport,
    Violation,
    backhaul_loads,
    check,
    compartment_loads,
    onboard_loads,
    return_time,
    route_cost,
    route_distance,
    route_load,
    schedule,
)
from vrpcoder.families import Family, Rule
from vrpcoder.instances import Customer, Depot, Instance, PickupDelivery, TimeWindow, Vehicle
from vrpcoder.solutions import Cycle, Route, Solution

F = Family
ORIGIN = Depot(x=0, y=0)
CORNERS = ((3.0, 0.0), (3.0, 4.0), (0.0, 4.0))


def corners(*demands: float, **per_customer: Any) -> tuple[Customer, ...]:
    """Customers on the rectangle's corners; keyword lists give one value per customer."""
    return tuple(
        Customer(x=x, y=y, demand=d, **{key: values[i] for key, values in per_customer.items()})
        for i, ((x, y), d) in enumerate(zip(CORNERS, demands, strict=True))
    )


def make(
    variant: str, customers: tuple[Customer, ...], vehicles: tuple[Vehicle, ...], **extra: Any
) -> Instance:
    depots = extra.pop("depots", (ORIGIN,))
    return Instance(
        name=f"tiny-{variant}",
        variant=variant,
        depots=depots,
        customers=customers,
        vehicles=vehicles,
        **extra,
    )


def plan(*routes: tuple[int, tuple[int, ...]], cycles: tuple[Cycle, ...] = (), depot: int = 0) -> Solution:
    return Solution(routes=tuple(Route(vehicle=k, depot=depot, visits=v) for k, v in routes), cycles=cycles)


# ---- tiny instances, one per variant twist ---------------------------------------------------


@pytest.fixture
def cvrp() -> Instance:
    """Demands 3, 4, 5; two vehicles of capacity 8."""
    return make("CVRP", corners(3, 4, 5), (Vehicle(capacity=8),) * 2)


@pytest.fixture
def tsp() -> Instance:
    return make("TSP", corners(0, 0, 0), (Vehicle(),))


@pytest.fixture
def ovrp() -> Instance:
    return make("OVRP", corners(3, 4, 5), (Vehicle(capacity=8),) * 2)


@pytest.fixture
def dcvrp() -> Instance:
    """Route [1,2,3] is 14 long, above the limit 13; [1,2] (12) and [3] (8) are within it."""
    return make("DCVRP", corners(1, 1, 1), (Vehicle(capacity=20),) * 2, max_route_distance=13)


@pytest.fixture
def hfvrp() -> Instance:
    """A small cheap vehicle and a large one paying 20 fixed and 2 per unit of distance."""
    fleet = (
        Vehicle(capacity=8, fixed_cost=10, cost_per_distance=1),
        Vehicle(capacity=12, fixed_cost=20, cost_per_distance=2),
    )
    return make("HFVRP", corners(3, 4, 5), fleet)


def _timed(variant: str, horizon: float, last_close: float, **soft: Any) -> Instance:
    """Service time 1 everywhere. On [1,2,3]: arrive 1 at 3 (start 3), arrive 2 at 8 and wait to
    10, arrive 3 at 14, back at the depot at 19."""
    windows = (TimeWindow(start=0, end=10), TimeWindow(start=10, end=20), TimeWindow(start=0, end=last_close))
    customers = corners(1, 1, 1, service_time=(1, 1, 1), window=windows, **soft)
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=horizon))
    return make(variant, customers, (Vehicle(capacity=10),) * 2, depots=(depot,))


@pytest.fixture
def vrphtw() -> Instance:
    return _timed("VRPHTW", horizon=100, last_close=15)


@pytest.fixture
def vrphtw_missed() -> Instance:
    return _timed("VRPHTW", horizon=100, last_close=13)


@pytest.fixture
def vrphtw_short_day() -> Instance:
    return _timed("VRPHTW", horizon=18, last_close=15)


@pytest.fixture
def ovrphtw_short_day() -> Instance:
    return _timed("OVRPHTW", horizon=18, last_close=15)


@pytest.fixture
def vrpstw() -> Instance:
    """Customer 3 closes at 12 and pays 2 per unit late; on [1,2,3] it starts at 14."""
    return _timed("VRPSTW", horizon=100, last_close=12, late_penalty=(2, 2, 2))


@pytest.fixture
def vrpb() -> Instance:
    """Customer 1 is linehaul (6); customers 2 and 3 are backhauls (7 and 2); Q = 8."""
    customers = corners(6, 7, 2, backhaul=(False, True, True))
    return make("VRPB", customers, (Vehicle(capacity=8),) * 2)


@pytest.fixture
def pdp() -> Instance:
    """Four nodes on the x-axis at 1, 2, 3, 4; pairs 1 -> 3 and 2 -> 4 of 5 each; Q = 8."""
    customers = tuple(Customer(x=float(i), y=0) for i in range(1, 5))
    pairs = (
        PickupDelivery(pickup=1, delivery=3, quantity=5),
        PickupDelivery(pickup=2, delivery=4, quantity=5),
    )
    return make("PDP", customers, (Vehicle(capacity=8),) * 2, pairs=pairs)


def _mc(capacity: float, compartments: tuple[float, float]) -> Instance:
    """Compartment demands (4,0), (2,1), (0,3): the whole tour loads (6, 4), total 10."""
    splits = ((4.0, 0.0), (2.0, 1.0), (0.0, 3.0))
    customers = corners(4, 3, 3, compartment_demand=splits)
    return make("MCVRP", customers, (Vehicle(capacity=capacity, compartment_capacity=compartments),) * 2)


@pytest.fixture
def mcvrp_tight_compartment() -> Instance:
    return _mc(11, (5, 6))


@pytest.fixture
def mcvrp_tight_total() -> Instance:
    return _mc(9, (6, 6))


@pytest.fixture
def mdvrp() -> Instance:
    """Depots 0 = (0,0) and 1 = (6,0); customers 2 = (3,0), 3 = (3,4), 4 = (6,4).

    From depot 1: [4,3,2] = 4 + 3 + 4 + 3 = 14. From depot 0: [2,3] = 12; [4] from depot 1 = 8.
    """
    customers = tuple(Customer(x=x, y=y, demand=1) for x, y in ((3, 0), (3, 4), (6, 4)))
    depots = (ORIGIN, Depot(x=6, y=0))
    return make(
        "MDVRP", customers, (Vehicle(depot=0, capacity=10), Vehicle(depot=1, capacity=10)), depots=depots
    )


def _sdvrp(capacity: float) -> Instance:
    """Demands 3, 4, 3 and two vehicles: with Q = 5 only splitting customer 2 fits the fleet."""
    return make("SDVRP", corners(3, 4, 3), (Vehicle(capacity=capacity),) * 2)


@pytest.fixture
def sdvrp() -> Instance:
    return _sdvrp(5)


@pytest.fixture
def sdvrp_roomy() -> Instance:
    return _sdvrp(10)


def split(
    *routes: tuple[int, tuple[int, ...], tuple[float, ...] | None], cycles: tuple[Cycle, ...] = ()
) -> Solution:
    return Solution(
        routes=tuple(Route(vehicle=k, depot=0, visits=v, deliveries=q) for k, v, q in routes), cycles=cycles
    )


# ---- the table -----------------------------------------------------------------------------------

CASES: list[tuple[str, str, Solution, tuple[Family, ...], float]] = [
    # CVRP backbone
    ("cvrp feasible", "cvrp", plan((0, (1, 2)), (1, (3,))), (), 12 + 8),
    ("cvrp unvisited customer", "cvrp", plan((0, (1, 2))), (F.COVERAGE,), 12),
    ("cvrp customer on two routes", "cvrp", plan((0, (1, 2)), (1, (3, 1))), (F.COVERAGE,), 12 + 4 + 5 + 3),
    ("cvrp overload", "cvrp", plan((0, (1, 2, 3))), (F.CAPACITY,), 14),
    (
        "cvrp cycle is a subtour and is priced",
        "cvrp",
        plan((0, (1,)), cycles=(Cycle(vehicle=1, visits=(2, 3)),)),
        (F.SUBTOUR,),
        6 + 3 + 3,
    ),
    ("cvrp vehicle drives two routes", "cvrp", plan((0, (1, 2)), (0, (3,))), (F.ROUTE_STRUCTURE,), 20),
    ("cvrp empty route means the vehicle stays home", "cvrp", plan((0, (1, 2)), (1, (3,)), (0, ())), (), 20),
    ("cvrp unknown vehicle", "cvrp", plan((0, (1, 2)), (7, (3,))), (F.ROUTE_STRUCTURE,), 12),
    ("cvrp depot inside a route", "cvrp", plan((0, (1, 0, 2)), (1, (3,))), (F.ROUTE_STRUCTURE,), 8),
    ("cvrp unknown node", "cvrp", plan((0, (1, 2, 9)), (1, (3,))), (F.ROUTE_STRUCTURE,), 8),
    ("cvrp unknown depot", "cvrp", plan((0, (1, 2)), (1, (3,)), depot=4), (F.ROUTE_STRUCTURE,), 0),
    # TSP
    ("tsp tour", "tsp", plan((0, (1, 2, 3))), (), 14),
    ("tsp has a single vehicle", "tsp", plan((0, (1, 2)), (1, (3,))), (F.ROUTE_STRUCTURE,), 12),
    # open routes: the return leg is not paid
    ("ovrp open routes", "ovrp", plan((0, (1, 2)), (1, (3,))), (), 3 + 4 + 4),
    # distance limit
    ("dcvrp within the limit", "dcvrp", plan((0, (1, 2)), (1, (3,))), (), 20),
    ("dcvrp route too long", "dcvrp", plan((0, (1, 2, 3))), (F.DISTANCE,), 14),
    # heterogeneous fleet: fixed cost plus per-distance cost
    ("hf large vehicle carries everything", "hfvrp", plan((1, (1, 2, 3))), (), 20 + 2 * 14),
    ("hf small vehicle overloaded", "hfvrp", plan((0, (1, 2, 3))), (F.CAPACITY,), 10 + 14),
    ("hf both vehicles", "hfvrp", plan((0, (1, 2)), (1, (3,))), (), 10 + 12 + 20 + 2 * 8),
    # hard time windows (waiting is free)
    ("htw feasible with waiting", "vrphtw", plan((0, (1, 2, 3))), (), 14),
    ("htw window missed", "vrphtw_missed", plan((0, (1, 2, 3))), (F.TIME_WINDOW,), 14),
    ("htw return after the horizon", "vrphtw_short_day", plan((0, (1, 2, 3))), (F.TIME_WINDOW,), 14),
    ("htw open route needs no return", "ovrphtw_short_day", plan((0, (1, 2, 3))), (), 3 + 4 + 3),
    # soft windows: lateness is paid, never infeasible
    ("stw late start is penalised", "vrpstw", plan((0, (1, 2, 3))), (), 14 + 2 * (14 - 12)),
    ("stw on time costs nothing extra", "vrpstw", plan((0, (1, 2)), (1, (3,))), (), 20),
    # backhauls: separate loads, linehaul first
    # (each part fits though the sum does not: no capacity violation; but the second route serves
    # backhauls only, which the backhaul rule forbids)
    ("vrpb each part fits; a route of backhauls only", "vrpb", plan((0, (1, 2)), (1, (3,))), (F.BACKHAUL,), 12 + 8),
    ("vrpb each part fits though the sum does not", "vrpb", plan((0, (1, 2))), (F.COVERAGE,), 12),
    ("vrpb backhaul before linehaul", "vrpb", plan((0, (2, 1)), (1, (3,))), (F.BACKHAUL,), 12 + 8),
    ("vrpb backhaul part overloaded", "vrpb", plan((0, (1, 2, 3))), (F.CAPACITY,), 14),
    # pickup and delivery (nodes on the x-axis: leg lengths are index differences)
    ("pd interleaved pairs", "pdp", plan((0, (1, 3, 2, 4))), (), 1 + 2 + 1 + 2 + 4),
    ("pd on-board load exceeds Q mid-route", "pdp", plan((0, (1, 2, 3, 4))), (F.CAPACITY,), 8),
    ("pd delivery before pickup", "pdp", plan((0, (3, 1, 2, 4))), (F.PRECEDENCE,), 3 + 2 + 1 + 2 + 4),
    ("pd pairs split over vehicles", "pdp", plan((0, (1, 2)), (1, (3, 4))), (F.PAIRING,), 4 + 8),
    # compartments
    (
        "mc compartment overflow, total within Q",
        "mcvrp_tight_compartment",
        plan((0, (1, 2, 3))),
        (F.COMPARTMENT,),
        14,
    ),
    ("mc total above Q, compartments within", "mcvrp_tight_total", plan((0, (1, 2, 3))), (F.CAPACITY,), 14),
    ("mc split over two vehicles", "mcvrp_tight_compartment", plan((0, (1,)), (1, (2, 3))), (), 6 + 12),
    # multiple depots
    (
        "md routes from their own depots",
        "mdvrp",
        Solution(routes=(Route(vehicle=0, depot=0, visits=(2, 3)), Route(vehicle=1, depot=1, visits=(4,)))),
        (),
        12 + 8,
    ),
    (
        "md route from the wrong depot",
        "mdvrp",
        Solution(routes=(Route(vehicle=0, depot=1, visits=(4, 3, 2)),)),
        (F.ROUTE_STRUCTURE,),
        14,
    ),
    # split delivery
    (
        "sd feasible only by splitting (quantities)",
        "sdvrp",
        split((0, (1, 2), (3, 2)), (1, (2, 3), (2, 3))),
        (),
        24,
    ),
    (
        "sd feasible only by splitting (max-flow)",
        "sdvrp",
        split((0, (1, 2), None), (1, (2, 3), None)),
        (),
        24,
    ),
    (
        "sd no split fits the capacities",
        "sdvrp",
        split((0, (1, 2), None), (1, (3,), None)),
        (F.CAPACITY,),
        20,
    ),
    ("sd quantities fall short", "sdvrp", split((0, (1, 2), (3, 1)), (1, (2, 3), (2, 3))), (F.COVERAGE,), 24),
    (
        "sd quantities above capacity",
        "sdvrp",
        split((0, (1, 2), (3, 3)), (1, (2, 3), (1, 3))),
        (F.CAPACITY,),
        24,
    ),
    (
        "sd quantity outside [0, demand]",
        "sdvrp_roomy",
        split((0, (1, 2), (3, -1)), (1, (2, 3), (5, 3))),
        (F.DELIVERY_COUPLING,),
        24,
    ),
    (
        "sd customer twice on one route",
        "sdvrp_roomy",
        split((0, (1, 2, 1), None), (1, (3,), None)),
        (F.ROUTE_STRUCTURE,),
        3 + 4 + 4 + 3 + 8,
    ),
    ("sd unvisited customer", "sdvrp_roomy", split((0, (1, 2), None)), (F.COVERAGE,), 12),
    (
        "sd isolated cycle is a subtour only",
        "sdvrp",
        split((0, (1,), None), cycles=(Cycle(vehicle=1, visits=(2, 3)),)),
        (F.SUBTOUR,),
        6 + 6,
    ),
]


@pytest.mark.parametrize(
    ("fixture", "solution", "families", "cost"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_family_table(
    request: pytest.FixtureRequest,
    fixture: str,
    solution: Solution,
    families: tuple[Family, ...],
    cost: float,
) -> None:
    report = check(request.getfixturevalue(fixture), solution)
    assert report.families == families, report.violations
    assert report.cost == pytest.approx(cost)
    assert report.feasible is (not families)


def test_each_defect_is_reported_once(cvrp: Instance) -> None:
    report = check(cvrp, plan((0, (1, 2)), (1, (3, 1))))
    assert [v.family for v in report.violations] == [F.COVERAGE]
    assert "customer 1" in report.violations[0].detail


def test_pairing_split_reports_each_pair(pdp: Instance) -> None:
    report = check(pdp, plan((0, (1, 2)), (1, (3, 4))))
    assert len(report.violations) == 2


def test_violations_name_the_vehicle_and_the_excess(cvrp: Instance) -> None:
    (violation,) = check(cvrp, plan((0, (1, 2, 3)))).violations
    assert violation == Violation(Rule.LOAD, violation.detail, 0) and violation.family is F.CAPACITY
    assert "12" in violation.detail and "by 4" in violation.detail


def test_families_follow_declaration_order_and_are_distinct(cvrp: Instance) -> None:
    solution = plan((0, (1, 2, 3)), (5, (1,)), cycles=(Cycle(visits=(2, 3)), Cycle(visits=(1, 3))))
    report = check(cvrp, solution)
    assert report.families == (F.COVERAGE, F.ROUTE_STRUCTURE, F.SUBTOUR, F.CAPACITY)


def test_report_is_immutable() -> None:
    report = CheckReport(cost=1.0, violations=())
    with pytest.raises(AttributeError):
        report.cost = 2.0  # type: ignore[misc]


def test_tolerance_absorbs_rounding(cvrp: Instance) -> None:
    tight = make("CVRP", corners(3, 4, 5), (Vehicle(capacity=7 - 1e-9),) * 2)
    assert check(tight, plan((0, (1, 2)), (1, (3,)))).feasible
    assert not check(tight, plan((0, (1, 2)), (1, (3,))), tol=0).feasible
    assert check(cvrp, plan((0, (1, 2)), (1, (3,)))).feasible


# ---- building blocks -------------------------------------------------------------------------


def test_route_distance_drops_the_return_leg_only_for_open_routes(cvrp: Instance, ovrp: Instance) -> None:
    route = Route(vehicle=0, depot=0, visits=(1, 2, 3))
    assert route_distance(cvrp, route) == pytest.approx(14)
    assert route_distance(ovrp, route) == pytest.approx(10)


def test_schedule_waits_for_windows_and_returns_late(vrphtw: Instance) -> None:
    route = Route(vehicle=0, depot=0, visits=(1, 2, 3))
    assert schedule(vrphtw, route) == pytest.approx([3, 10, 14])
    assert return_time(vrphtw, route) == pytest.approx(19)


def test_loads(vrpb: Instance, pdp: Instance, mcvrp_tight_compartment: Instance) -> None:
    assert backhaul_loads(vrpb, Route(vehicle=0, depot=0, visits=(1, 2, 3))) == (6, 9)
    assert onboard_loads(pdp, Route(vehicle=0, depot=0, visits=(1, 2, 3, 4))) == [5, 10, 5, 0]
    assert onboard_loads(pdp, Route(vehicle=0, depot=0, visits=(3, 1, 2, 4))) == [0, 0, 5, 0]
    assert compartment_loads(mcvrp_tight_compartment, Route(vehicle=0, depot=0, visits=(1, 2, 3))) == (6, 4)
    assert route_load(mcvrp_tight_compartment, Route(vehicle=0, depot=0, visits=(1, 2, 3))) == 10


def test_split_route_load_uses_given_quantities(sdvrp: Instance) -> None:
    assert route_load(sdvrp, Route(vehicle=0, depot=0, visits=(1, 2), deliveries=(3, 2))) == 5
    assert route_load(sdvrp, Route(vehicle=0, depot=0, visits=(1, 2))) == 7


def test_route_cost_includes_fixed_cost_and_penalties(hfvrp: Instance, vrpstw: Instance) -> None:
    assert route_cost(hfvrp, Route(vehicle=1, depot=0, visits=(3,))) == pytest.approx(20 + 2 * 8)
    assert route_cost(vrpstw, Route(vehicle=0, depot=0, visits=(1, 2, 3))) == pytest.approx(14 + 4)


@pytest.mark.parametrize(
    ("route", "message"),
    [
        (Route(vehicle=3, depot=0, visits=(1,)), "vehicle 3 does not exist"),
        (Route(vehicle=0, depot=2, visits=(1,)), "depot 2 does not exist"),
        (Route(vehicle=0, depot=0, visits=(1, 8)), "unknown node"),
        (Route(vehicle=0, depot=0, visits=(0, 1)), "passes through depot"),
    ],
)
def test_building_blocks_refuse_routes_they_cannot_evaluate(
    cvrp: Instance, route: Route, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        route_distance(cvrp, route)


@pytest.mark.parametrize(
    ("solution", "message"),
    [
        (plan((3, (1, 2, 3))), "vehicle 3 does not exist"),
        (plan((0, (1, 2, 3)), depot=2), "depot 2 does not exist"),
        (plan((0, (1, 2, 3, 8))), "unknown node"),
        (plan((0, (1, 0, 2, 3))), "passes through depot"),
        (plan((0, (3,)), cycles=(Cycle(vehicle=4, visits=(1, 2)),)), "vehicle 4"),
        (plan((0, (2, 3)), cycles=(Cycle(visits=(1, 0)),)), "non-customer"),
    ],
)
def test_malformed_solutions_are_route_structure_not_exceptions(
    tsp: Instance, solution: Solution, message: str
) -> None:
    report = check(tsp, solution)
    assert F.ROUTE_STRUCTURE in report.families
    assert F.COVERAGE not in report.families
    assert any(message in v.detail for v in report.violations)


def test_checker_does_not_import_gurobipy() -> None:
    code = "import sys, vrpcoder.checker; sys.exit('gurobipy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0


def test_split_shortfall_names_the_full_vehicle(sdvrp: Instance) -> None:
    # Customers 1 and 2 (3 + 4) can only ride with vehicle 0 (Q = 5); vehicle 1 has room to spare.
    (violation,) = check(sdvrp, split((0, (1, 2), None), (1, (3,), None))).violations
    assert violation.vehicle == 0
    assert "need 2 more" in violation.detail


def test_split_max_flow_uses_every_visiting_vehicle() -> None:
    # Customer 2 (demand 6) is visited by both vehicles; 1 and 3 (2 each) by one each: 2+3 | 3+2.
    instance = make("SDVRP", corners(2, 6, 2), (Vehicle(capacity=5),) * 2)
    assert check(instance, split((0, (1, 2), None), (1, (2, 3), None))).feasible
    tighter = make("SDVRP", corners(2, 7, 2), (Vehicle(capacity=5),) * 2)
    assert check(tighter, split((0, (1, 2), None), (1, (2, 3), None))).families == (F.CAPACITY,)


# ---- routes that name their end depot (issue 19.4) --------------------------------------------------


def _two_depot_instance() -> Instance:
    return Instance(
        name="two-depots",
        variant="MDVRP",
        depots=(Depot(x=0, y=0), Depot(x=0, y=10)),
        customers=(Customer(x=3, y=0, demand=1), Customer(x=3, y=8, demand=1)),
        vehicles=(Vehicle(depot=0, capacity=5), Vehicle(depot=1, capacity=5)),
    )


def test_a_route_ending_at_another_depot_breaks_route_structure_alone_and_is_priced_to_it() -> None:
    instance = _two_depot_instance()
    home = Solution(routes=(Route(vehicle=0, depot=0, visits=(2,)), Route(vehicle=1, depot=1, visits=(3,))))
    away = Solution(routes=(Route(vehicle=0, depot=0, visits=(2, 3), end_depot=1),))
    same = Solution(routes=(Route(vehicle=0, depot=0, visits=(2,), end_depot=0), Route(vehicle=1, depot=1, visits=(3,))))
    assert check(instance, home).feasible and check(instance, same).feasible
    report = check(instance, away)
    assert report.families == (Family.ROUTE_STRUCTURE,)
    assert "ends at depot 1" in report.violations[0].detail
    assert report.cost == pytest.approx(3 + 8 + (3**2 + 2**2) ** 0.5)
    missing = Solution(routes=(Route(vehicle=0, depot=0, visits=(2, 3), end_depot=7),))
    assert Family.ROUTE_STRUCTURE in check(instance, missing).families

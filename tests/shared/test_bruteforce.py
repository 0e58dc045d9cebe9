"""The brute-force optimum against optima worked out by hand on the 3 x 4 rectangle.

Depot (0,0); customers 1 = (3,0), 2 = (3,4), 3 = (0,4): every leg is 3, 4 or 5 long.
"""

from __future__ import annotations

from math import comb, factorial
from typing import Any

import pytest
from vrpcoder.checker import check
from vrpcoder.gold import solve_gold
from vrpcoder.instances import Customer, Depot, Instance, TimeWindow, Vehicle
from vrpcoder.sampling import sample_instance

from tests.shared.bruteforce import brute_force_optimum, dp_optimum, route_plans, split_route_optimum

CORNERS = ((3.0, 0.0), (3.0, 4.0), (0.0, 4.0))


def rectangle(
    variant: str, demands: tuple[float, ...], vehicles: tuple[Vehicle, ...], **extra: Any
) -> Instance:
    windows = extra.pop("windows", (None,) * 3)
    customers = tuple(
        Customer(x=x, y=y, demand=d, window=w) for (x, y), d, w in zip(CORNERS, demands, windows, strict=True)
    )
    depots = extra.pop("depots", (Depot(x=0, y=0),))
    return Instance(
        name=f"bf-{variant}", variant=variant, depots=depots, customers=customers, vehicles=vehicles, **extra
    )


@pytest.fixture
def cvrp() -> Instance:
    """Demands 3, 4, 5 with Q = 8: {2,3} is too heavy, so the choices are {1,2}+{3} = 12 + 8 = 20
    and {1,3}+{2} = 12 + 10 = 22; optimum 20."""
    return rectangle("CVRP", (3, 4, 5), (Vehicle(capacity=8),) * 2)


@pytest.fixture
def ovrp() -> Instance:
    """Same loads, open routes: {1,2} as 1 -> 2 costs 3 + 4 = 7 and {3} costs 4, total 11;
    {1,3}+{2} costs 8 + 5 = 13; optimum 11."""
    return rectangle("OVRP", (3, 4, 5), (Vehicle(capacity=8),) * 2)


@pytest.fixture
def vrphtw() -> Instance:
    """Customer 2 must be served by time 5, i.e. first and straight from the depot. One route
    2 -> 3 -> 1 costs 5 + 3 + 5 + 3 = 16 (2 -> 1 -> 3 costs 18); two routes cost at least
    [2,3] + [1] = 12 + 6 = 18; optimum 16."""
    open_all_day = TimeWindow(start=0, end=100)
    windows = (open_all_day, TimeWindow(start=0, end=5), open_all_day)
    depot = Depot(x=0, y=0, window=open_all_day)
    return rectangle("VRPHTW", (1, 1, 1), (Vehicle(capacity=10),) * 2, windows=windows, depots=(depot,))


@pytest.mark.parametrize(
    ("fixture", "optimum", "routes"),
    [
        ("cvrp", 20.0, {(1, 2), (3,)}),
        ("ovrp", 11.0, {(1, 2), (3,)}),
        ("vrphtw", 16.0, {(2, 3, 1)}),
    ],
)
def test_matches_hand_optimum(
    request: pytest.FixtureRequest, fixture: str, optimum: float, routes: set[tuple[int, ...]]
) -> None:
    cost, solution = brute_force_optimum(request.getfixturevalue(fixture))
    assert cost == pytest.approx(optimum)
    assert {r.visits for r in solution.routes} == routes


def test_enumerates_every_ordered_assignment(cvrp: Instance) -> None:
    # Orderings of 3 customers into 2 labelled (possibly empty) sequences: 3! * C(3 + 1, 1) = 24.
    plans = list(route_plans(cvrp))
    assert len(plans) == factorial(3) * comb(4, 1)
    assert len({p.routes for p in plans}) == len(plans)


def test_routes_start_at_their_vehicles_depot() -> None:
    depots = (Depot(x=0, y=0), Depot(x=3, y=2))
    instance = rectangle(
        "MDVRP", (1, 1, 1), (Vehicle(capacity=5, depot=0), Vehicle(capacity=5, depot=1)), depots=depots
    )
    for plan in route_plans(instance):
        assert all(r.depot == instance.vehicles[r.vehicle].depot for r in plan.routes)


def test_refuses_split_delivery() -> None:
    instance = rectangle("SDVRP", (3, 4, 5), (Vehicle(capacity=8),) * 2)
    with pytest.raises(ValueError, match="split delivery is not enumerable"):
        brute_force_optimum(instance)


def test_refuses_instances_too_large_to_enumerate() -> None:
    customers = tuple(Customer(x=float(i), y=0, demand=1) for i in range(1, 7))
    instance = Instance(
        name="six",
        variant="CVRP",
        depots=(Depot(x=0, y=0),),
        customers=customers,
        vehicles=(Vehicle(capacity=9),),
    )
    with pytest.raises(ValueError, match="too many"):
        brute_force_optimum(instance)


def test_reports_when_nothing_is_feasible() -> None:
    instance = rectangle("CVRP", (3, 4, 5), (Vehicle(capacity=4),) * 2)
    with pytest.raises(ValueError, match="no route plan is feasible"):
        brute_force_optimum(instance)


# ---- the second exact method (route labels + set partitioning; route MIP for split delivery) ----


@pytest.mark.parametrize("fixture", ["cvrp", "ovrp", "vrphtw"])
def test_dynamic_programme_matches_the_hand_optima(request: pytest.FixtureRequest, fixture: str) -> None:
    instance = request.getfixturevalue(fixture)
    assert dp_optimum(instance)[0] == pytest.approx(brute_force_optimum(instance)[0])


@pytest.mark.parametrize("variant", ["TSP", "CVRP", "MDVRP", "VRPHTW", "VRPB", "OVRP"])
@pytest.mark.parametrize("seed", range(4))
def test_dynamic_programme_equals_enumeration(variant: str, seed: int) -> None:
    instance = sample_instance(variant, 5, seed, customers=5)
    if len(instance.vehicles) > 3:  # what enumeration can take
        instance = instance.model_copy(update={"vehicles": instance.vehicles[:3]})
    try:
        enumerated = brute_force_optimum(instance)[0]
    except ValueError as exc:  # the trimmed fleet may be too small: both must say so
        assert "no route plan is feasible" in str(exc)
        with pytest.raises(ValueError, match="no plan is feasible"):
            dp_optimum(instance)
        return
    cost, plan = dp_optimum(instance)
    assert cost == pytest.approx(enumerated, rel=1e-9)
    assert check(instance, plan).feasible


def test_dynamic_programme_respects_the_fleet_per_depot() -> None:
    # three customers that each fill a vehicle: two vehicles cannot serve them
    instance = rectangle("CVRP", (5, 5, 5), (Vehicle(capacity=5),) * 2)
    with pytest.raises(ValueError, match="no plan is feasible"):
        dp_optimum(instance)
    assert dp_optimum(rectangle("CVRP", (5, 5, 5), (Vehicle(capacity=5),) * 3))[0] == pytest.approx(6 + 10 + 8)


def test_dynamic_programme_refuses_what_it_does_not_model() -> None:
    with pytest.raises(ValueError, match="does not model"):
        dp_optimum(sample_instance("PDPTW", 5, 0, customers=4))


@pytest.mark.parametrize("seed", range(3))
def test_route_based_split_model_equals_the_gold(seed: int) -> None:
    instance = sample_instance("SDVRP", 5, seed, customers=6)
    gold = solve_gold(instance)
    assert gold.objective is not None
    assert split_route_optimum(instance) == pytest.approx(gold.objective, rel=1e-6)


def test_split_delivery_beats_the_unsplit_optimum_where_a_customer_is_shared() -> None:
    # demands 3, 4, 5 with Q = 6: unsplit needs a trip per customer (6 + 10 + 8 = 24); split, two
    # trips share the middle customer: 0-1-2-0 (3 + 4 + 5 = 12) and 0-2-3-0 (5 + 3 + 4 = 12)
    instance = rectangle("SDVRP", (3, 4, 5), (Vehicle(capacity=6),) * 3)
    assert split_route_optimum(instance) == pytest.approx(24.0)
    assert solve_gold(instance).objective == pytest.approx(24.0)

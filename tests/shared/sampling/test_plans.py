"""Reference plans on tiny hand-made problems whose answers can be worked out on paper."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from vrpcoder.distances import DistanceKind, distance_matrix
from vrpcoder.sampling.plans import (
    LoadModel,
    PlanProblem,
    Unit,
    build_plan,
    return_time,
    route_length,
    route_usage,
    service_starts,
    split_delivery_plan,
    with_full_deliveries,
)
from vrpcoder.solutions import Solution

Point = tuple[float, float]
DEPOT: Point = (50.0, 50.0)
COMPASS: tuple[Point, ...] = ((60.0, 50.0), (50.0, 60.0), (40.0, 50.0), (50.0, 40.0))  # E, N, W, S


def make_problem(
    points: Sequence[Point],
    loads: Sequence[int],
    *,
    depots: Sequence[Point] = (DEPOT,),
    vehicle_depots: Sequence[int] = (0, 0),
    limits: Sequence[tuple[int, ...] | None] | None = None,
    backhaul: Sequence[int] = (),
    service: float = 0.0,
    horizon: float | None = None,
    open_routes: bool = False,
) -> PlanProblem:
    """One unit per customer with a scalar load in cents; customers are nodes len(depots)... ."""
    coords = tuple(depots) + tuple(points)
    first = len(depots)
    return PlanProblem(
        coords=coords,
        distances=tuple(tuple(r) for r in distance_matrix(DistanceKind.EUCLIDEAN, coords)),
        vehicle_depots=tuple(vehicle_depots),
        limits=tuple(limits) if limits is not None else (None,) * len(vehicle_depots),
        units=tuple(Unit((first + i,), w, p) for i, (w, p) in enumerate(zip(loads, points, strict=True))),
        node_load=((0,),) * first + tuple((w,) for w in loads),
        load_model=LoadModel.ADDITIVE,
        backhaul=frozenset(backhaul),
        service=(0.0,) * first + (service,) * len(points),
        horizon=horizon,
        open_routes=open_routes,
    )


def served(plan: Solution | None) -> list[int]:
    assert plan is not None
    return sorted(plan.visited)


def test_four_compass_points_split_into_two_neighbouring_pairs() -> None:
    problem = make_problem(COMPASS, [100, 100, 100, 100])
    plan = build_plan(problem)
    assert served(plan) == [1, 2, 3, 4]
    assert plan is not None and len(plan.routes) == 2
    for route in plan.routes:
        a, b = route.visits
        assert problem.distances[a][b] == pytest.approx(math.hypot(10, 10))


def test_a_fixed_limit_is_respected_by_the_sweep() -> None:
    problem = make_problem(COMPASS, [500, 100, 500, 100], limits=[(600,), (600,)])
    plan = build_plan(problem)
    assert served(plan) == [1, 2, 3, 4]
    assert plan is not None
    assert sorted(route_usage(problem, r.visits)[0] for r in plan.routes) == [600, 600]


def test_first_fit_takes_over_when_no_contiguous_cut_fits() -> None:
    # Heavy customers sit next to each other on the circle, so every contiguous cut into three
    # routes puts two heavy ones together; pairing each heavy customer with a light one fits.
    angles = [0, 60, 120, 180, 240, 300]
    points = [(50 + 20 * math.cos(math.radians(a)), 50 + 20 * math.sin(math.radians(a))) for a in angles]
    loads = [500, 500, 500, 100, 100, 100]
    problem = make_problem(points, loads, vehicle_depots=(0, 0, 0), limits=[(600,)] * 3)
    plan = build_plan(problem)
    assert served(plan) == [1, 2, 3, 4, 5, 6]
    assert plan is not None
    assert all(route_usage(problem, r.visits) == (600,) for r in plan.routes)


def test_no_plan_when_the_fleet_is_too_small() -> None:
    problem = make_problem(COMPASS, [500, 500, 500, 500], limits=[(900,), (900,)])
    assert build_plan(problem) is None


def test_heterogeneous_limits_put_the_heaviest_route_on_the_largest_vehicle() -> None:
    problem = make_problem(COMPASS[:2], [800, 100], limits=[(200,), (900,)])
    plan = build_plan(problem)
    assert plan is not None
    route_of = {r.vehicle: r.visits for r in plan.routes}
    assert route_of == {0: (2,), 1: (1,)}


def test_linehauls_come_before_backhauls() -> None:
    problem = make_problem(COMPASS, [100] * 4, vehicle_depots=(0,), backhaul=[1, 3])
    plan = build_plan(problem)
    assert plan is not None
    (route,) = plan.routes
    assert set(route.visits[:2]) == {2, 4} and set(route.visits[2:]) == {1, 3}


def test_pickup_is_followed_by_its_delivery() -> None:
    coords = (DEPOT, (70.0, 50.0), (30.0, 50.0), (50.0, 70.0), (50.0, 30.0))
    problem = PlanProblem(
        coords=coords,
        distances=tuple(tuple(r) for r in distance_matrix(DistanceKind.EUCLIDEAN, coords)),
        vehicle_depots=(0,),
        limits=((300,),),
        units=(Unit((1, 2), 300, (50.0, 50.0)), Unit((3, 4), 200, (50.0, 50.0))),
        node_load=((0,), (300,), (-300,), (200,), (-200,)),
        load_model=LoadModel.ONBOARD,
        backhaul=frozenset(),
        service=(0.0,) * 5,
        horizon=None,
        open_routes=False,
    )
    plan = build_plan(problem)
    assert plan is not None
    (route,) = plan.routes
    assert route.visits in ((1, 2, 3, 4), (3, 4, 1, 2))
    assert route_usage(problem, route.visits) == (300,)
    assert route_usage(problem, (1, 3, 2, 4)) == (500,)


def test_the_horizon_forces_one_customer_per_route() -> None:
    # Each customer is 10 away and two neighbours are 14.14 apart: a two-customer route takes
    # 34.14 + service, a one-customer route 20 + service.
    problem = make_problem(COMPASS[:2], [100, 100], service=1.0, horizon=30.0)
    plan = build_plan(problem)
    assert plan is not None and sorted(len(r.visits) for r in plan.routes) == [1, 1]
    assert build_plan(make_problem(COMPASS[:2], [100, 100], service=1.0, horizon=20.5)) is None


def test_open_routes_ignore_the_horizon_and_the_way_back() -> None:
    problem = make_problem(COMPASS[:1], [100], vehicle_depots=(0,), horizon=5.0, open_routes=True)
    plan = build_plan(problem)
    assert plan is not None
    assert route_length(problem, 0, (1,)) == pytest.approx(10.0)
    closed = make_problem(COMPASS[:1], [100], vehicle_depots=(0,))
    assert route_length(closed, 0, (1,)) == pytest.approx(20.0)


def test_schedule_without_waiting() -> None:
    problem = make_problem(COMPASS[:2], [100, 100], service=3.0)
    assert service_starts(problem, 0, (1, 2)) == pytest.approx((10.0, 10.0 + 3.0 + math.hypot(10, 10)))
    assert return_time(problem, 0, (1, 2)) == pytest.approx(10.0 + 3.0 + math.hypot(10, 10) + 3.0 + 10.0)
    assert return_time(problem, 0, ()) == 0.0


def test_multi_depot_customers_go_to_their_nearest_depot() -> None:
    depots = ((25.0, 50.0), (75.0, 50.0))
    points = [(20.0, 40.0), (80.0, 40.0), (20.0, 60.0), (80.0, 60.0)]
    problem = make_problem(points, [100] * 4, depots=depots, vehicle_depots=(0, 1))
    plan = build_plan(problem)
    assert plan is not None
    assert {r.vehicle: (r.depot, set(r.visits)) for r in plan.routes} == {0: (0, {2, 4}), 1: (1, {3, 5})}


def test_multi_depot_spills_over_when_one_depot_would_be_overloaded() -> None:
    depots = ((25.0, 50.0), (75.0, 50.0))
    points = [(20.0, 40.0), (22.0, 45.0), (20.0, 60.0), (24.0, 55.0)]
    problem = make_problem(points, [100] * 4, depots=depots, vehicle_depots=(0, 1))
    plan = build_plan(problem)
    assert plan is not None
    assert all(len(r.visits) == 2 for r in plan.routes)


def test_split_delivery_shares_the_load_evenly() -> None:
    points = [(60.0, 50.0), (60.0, 60.0), (50.0, 60.0)]  # angles 0, 45 and 90 degrees
    problem = make_problem(points, [1000, 1000, 1000])
    plan = split_delivery_plan(problem, 1500)
    assert plan is not None
    assert [(r.visits, r.deliveries) for r in plan.routes] == [((1, 2), (10.0, 5.0)), ((2, 3), (5.0, 10.0))]
    assert split_delivery_plan(problem, 1499) is None


def test_full_deliveries_state_every_demand() -> None:
    problem = make_problem(COMPASS[:2], [100, 250])
    plan = build_plan(problem)
    assert plan is not None
    filled = with_full_deliveries(plan, {1: 1.0, 2: 2.5})
    assert {v: d for r in filled.routes for v, d in zip(r.visits, r.deliveries or (), strict=True)} == {
        1: 1.0,
        2: 2.5,
    }

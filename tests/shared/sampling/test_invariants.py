"""What every sampled instance promises, checked variant by variant against the brief's rules,
and the reference plan checked by the independent checker."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable

import pytest

from vrpcoder.checker import check
from vrpcoder.instances import Instance
from vrpcoder.sampling import PROFILES, applicable_profiles
from vrpcoder.sampling.profiles import (
    COMPARTMENT_GRID,
    EXTENDED_CAPACITY_GRID,
    SMALL_CAPACITY_GRID,
    SPLIT_CAPACITY_GRID,
    TIME_GRID,
)
from vrpcoder.solutions import Solution
from vrpcoder.variants import VARIANTS, CapacityKind, Module

Sampler = Callable[[str, int, int], tuple[Instance, Solution]]
COMBOS = [(v, p) for v in VARIANTS for p in applicable_profiles(v)]
SEEDS = (0, 1, 2)
EPS = 1e-9


def expected_horizon(instance: Instance) -> float:
    if instance.provenance.subfamily == "time_window":
        size = (len(instance.customers), len(instance.vehicles))
        return next(c.horizon for c in TIME_GRID if (c.n, c.k) == size)
    if instance.has(Module.PD):
        return max(1200.0, 120.0 * len(instance.pairs) + 600.0)
    return 500.0


def assert_geometry(instance: Instance) -> None:
    for c in instance.customers:
        assert 5 <= c.x <= 95 and 5 <= c.y <= 95
        assert round(c.x, 2) == c.x and round(c.y, 2) == c.y
    depots = [(d.x, d.y) for d in instance.depots]
    assert depots == ([(25.0, 50.0), (75.0, 50.0)] if instance.has(Module.MD) else [(50.0, 50.0)])
    if instance.provenance.subfamily == "hexagon":
        points = [(c.x, c.y) for c in instance.customers]
        edges = zip(points, points[1:] + points[:1], strict=True)
        midpoints = [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b in edges]
        assert min(math.dist(m, (50.0, 50.0)) for m in midpoints) < 0.02


def assert_size(instance: Instance, profile: int) -> None:
    n, k = len(instance.customers), len(instance.vehicles)
    pd = instance.has(Module.PD)
    if pd:
        assert n % 2 == 0 and 4 <= n <= 12
    sub = instance.provenance.subfamily
    if PROFILES[profile].regular:
        fixed_n = PROFILES[profile].n[0]
        assert n == (fixed_n - fixed_n % 2 if pd else fixed_n)
        assert k == (1 if instance.spec.is_tsp else PROFILES[profile].k[0])
    elif profile == 13:
        assert (n, k) == (6, 1) if sub == "hexagon" else 4 <= n <= 8 and 1 <= k <= 4
    elif sub == "pd_time_window":
        assert k == 1
    elif sub == "time_window":
        assert (n, k) in {(c.n, c.k) for c in TIME_GRID}
    elif sub == "compartment":
        assert (n, k) in {(c.n, c.k) for c in COMPARTMENT_GRID}
    if instance.spec.is_tsp:
        assert k == 1
    if instance.has(Module.MD):
        assert [v.depot for v in instance.vehicles] == [i % 2 for i in range(k)] and k >= 2


def assert_demands(instance: Instance, profile: int) -> None:
    customers = instance.customers
    if instance.spec.is_tsp or instance.has(Module.PD):
        assert all(c.demand == 0 for c in customers)
    for c in customers:
        assert round(c.demand, 2) == c.demand
    if instance.has(Module.PD):
        nodes = sorted(n for p in instance.pairs for n in (p.pickup, p.delivery))
        assert nodes == list(instance.customer_nodes)
        assert all(1 <= p.quantity <= 8 for p in instance.pairs)
        return
    if instance.has(Module.MC):
        for c in customers:
            assert c.compartment_demand is not None and len(c.compartment_demand) == 2
            assert all(0 <= a <= 6 for a in c.compartment_demand) and c.demand > 0
            assert c.demand == pytest.approx(sum(c.compartment_demand))
        return
    if instance.spec.is_tsp:
        return
    demands = [c.demand for c in customers]
    if profile == 14:
        lo, hi = next(iter(_capacity_cell(instance))).demand
    elif instance.has(Module.SPLIT):
        lo, hi = 2, 20
    elif instance.provenance.subfamily == "time_window":
        lo, hi = 1, 4
    else:
        lo, hi = PROFILES[profile].demand or (0, 0)
    assert all(lo <= d <= hi for d in demands)
    if instance.has(Module.BH):
        assert {c.backhaul for c in customers} == {True, False}


def _capacity_cell(instance: Instance) -> list:
    grid = SPLIT_CAPACITY_GRID if instance.has(Module.SPLIT) else SMALL_CAPACITY_GRID + EXTENDED_CAPACITY_GRID
    n, k, q = len(instance.customers), len(instance.vehicles), instance.vehicles[0].capacity
    cells = [c for c in grid if c.k == k and c.capacity == q and (c.n == n or c.n - c.n % 2 == n)]
    assert cells, f"({n}, {k}, {q}) is not a grid tuple"
    return cells


def assert_capacities(instance: Instance, profile: int) -> None:
    vehicles = instance.vehicles
    spec = instance.spec
    if spec.capacity is CapacityKind.NONE:
        assert all(v.capacity is None for v in vehicles)
        return
    capacities = [v.capacity for v in vehicles]
    assert all(c is not None and round(c, 2) == c for c in capacities)
    if spec.heterogeneous:
        for v in vehicles:
            assert v.capacity is not None and 10 <= v.capacity <= 65
            assert 20 <= v.fixed_cost <= 70 and 0.8 <= v.cost_per_distance <= 1.2
        names = Counter(v.type_name for v in vehicles)
        assert set(names) <= {"small", "medium", "large"}
        if len(vehicles) >= 3:
            assert len(names) == 3
        kinds = {
            (v.type_name, v.capacity, v.compartment_capacity, v.fixed_cost, v.cost_per_distance) for v in vehicles
        }
        assert len(kinds) == len(names), "vehicles of one type must share its parameters"
        if spec.has(Module.MC):
            assert {v.capacity for v in vehicles} <= {15.0, 30.0, 50.0}
    else:
        (capacity,) = set(capacities)
        assert capacity is not None
        lo, hi = (30, 85) if spec.has(Module.SPLIT) else (8, 100)
        assert lo <= capacity <= hi
        if not spec.has(Module.SPLIT):
            assert capacity >= max(c.demand for c in instance.customers)
        sub = instance.provenance.subfamily
        if sub == "hexagon":
            assert capacity == (85.0 if spec.has(Module.SPLIT) else 100.0)
        elif profile == 14:
            _capacity_cell(instance)
        elif sub == "time_window":
            assert capacity in {c.capacity for c in TIME_GRID}
        elif sub == "compartment":
            assert capacity in {c.capacity for c in COMPARTMENT_GRID}
    if spec.has(Module.MC):
        for v in vehicles:
            assert v.compartment_capacity is not None and len(v.compartment_capacity) == 2
            assert all(5 <= c <= 55 for c in v.compartment_capacity)
            assert v.capacity == pytest.approx(sum(v.compartment_capacity))
    if spec.has(Module.DIST):
        assert instance.max_route_distance is not None and 60 <= instance.max_route_distance <= 1000


def assert_windows(instance: Instance) -> None:
    horizon = expected_horizon(instance)
    for depot in instance.depots:
        assert depot.window is not None and (depot.window.start, depot.window.end) == (0.0, horizon)
    for c in instance.customers:
        assert c.window is not None
        assert 2 <= c.service_time <= 8
        assert 0 <= c.window.start and c.window.end <= 1500
        assert 30 - EPS <= c.window.end - c.window.start <= 120 + EPS
        if instance.has(Module.STW):
            assert c.late_penalty is not None and 0.5 <= c.late_penalty <= 2.0
    distances = instance.distances
    for pair in instance.pairs:
        pickup, delivery = instance.customer(pair.pickup), instance.customer(pair.delivery)
        assert pickup.window is not None and delivery.window is not None
        earliest = pickup.window.start + pickup.service_time + distances[pair.pickup][pair.delivery] / 2
        assert delivery.window.start >= earliest - 0.01


def assert_plan_is_feasible(instance: Instance, plan: Solution) -> None:
    report = check(instance, plan)
    assert report.violations == (), report.violations
    visits = Counter(plan.visited)
    assert set(visits) == set(instance.customer_nodes)
    if not instance.has(Module.SPLIT):
        assert set(visits.values()) == {1}
    for route in plan.routes:
        assert route.depot == instance.vehicles[route.vehicle].depot


def assert_provenance(instance: Instance, variant: str, profile: int, seed: int) -> None:
    assert instance.name == f"{variant}-p{profile}-s{seed}"
    source = instance.provenance
    assert (source.source, source.profile, source.seed) == ("sampled", profile, seed)
    if PROFILES[profile].regular:
        assert source.subfamily is None
    else:
        assert source.subfamily in {s.value for s in PROFILES[profile].subfamilies}


def assert_all(instance: Instance, plan: Solution, variant: str, profile: int, seed: int) -> None:
    assert_provenance(instance, variant, profile, seed)
    assert_geometry(instance)
    assert_size(instance, profile)
    assert_demands(instance, profile)
    assert_capacities(instance, profile)
    if instance.has(Module.HTW) or instance.has(Module.STW):
        assert_windows(instance)
    assert_plan_is_feasible(instance, plan)


@pytest.mark.parametrize(("variant", "profile"), COMBOS)
def test_sampled_instances_keep_their_promises(variant: str, profile: int, sampled: Sampler) -> None:
    for seed in SEEDS:
        instance, plan = sampled(variant, profile, seed)
        assert_all(instance, plan, variant, profile, seed)


@pytest.mark.parametrize("variant", ["MDVRP", "HFMDVRP", "MDVRPSTW"])
def test_multi_depot_fleets_use_both_depots(variant: str, sampled: Sampler) -> None:
    for profile in applicable_profiles(variant):
        instance, _ = sampled(variant, profile, 0)
        assert {v.depot for v in instance.vehicles} == {0, 1}


def test_boundary_profiles_reach_every_subfamily(sampled: Sampler) -> None:
    seen = {
        sampled(variant, profile, seed)[0].provenance.subfamily
        for variant in ("CVRP", "MCVRPSTW", "PDPTW")
        for profile in (13, 14, 15)
        if profile in applicable_profiles(variant)
        for seed in range(12)
    }
    expected = {s.value for p in (13, 14, 15) for s in PROFILES[p].subfamilies}
    assert expected <= seen


def test_some_split_delivery_plans_really_split(sampled: Sampler) -> None:
    splits = 0
    for profile in applicable_profiles("SDVRP"):
        for seed in SEEDS:
            instance, plan = sampled("SDVRP", profile, seed)
            assert all(r.deliveries is not None for r in plan.routes)
            splits += len(plan.visited) > len(instance.customers)
    assert splits > 0


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "profile"), COMBOS)
def test_many_seeds_keep_their_promises(variant: str, profile: int) -> None:
    from vrpcoder.sampling import sample_with_plan

    for seed in range(3, 43):
        instance, plan = sample_with_plan(variant, profile, seed)
        assert_all(instance, plan, variant, profile, seed)

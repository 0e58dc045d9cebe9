"""Deterministic instance sampling: (variant, profile, seed) -> instance and its reference plan.

The generator is seeded from a SHA-256 digest of "variant|profile|seed" (never Python's salted
``hash``), and every draw happens in a fixed order, so the same inputs give byte-identical JSON on
any machine. One call goes through three steps:

1. the *scenario*: what the profile fixes (subfamily, layout, n, k, demand range, locked
   capacity, horizon), adjusted by the variant's rules once;
2. an *attempt*: coordinates, customer data, the fleet's fixed limits and the reference plan,
   then the bounds derived from that plan (capacity, heterogeneous types, distance limit, windows);
3. if an attempt finds no plan under limits fixed in advance (a locked capacity, a fixed vehicle
   type, a short horizon), the next attempt redraws the layout and the customer data from the same
   generator. After ``MAX_ATTEMPTS`` failures :class:`SamplingError` is raised instead of
   returning an instance whose feasibility is not known.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace
from typing import TypeVar

import numpy as np

from vrpcoder.distances import DistanceKind, distance_matrix
from vrpcoder.instances import Customer, Depot, Instance, PickupDelivery, Provenance, TimeWindow, Vehicle
from vrpcoder.sampling import rules
from vrpcoder.sampling.plans import (
    LoadModel,
    PlanProblem,
    Unit,
    build_plan,
    route_length,
    route_usage,
    service_starts,
    split_delivery_plan,
    with_full_deliveries,
)
from vrpcoder.sampling.profiles import (
    COMPARTMENT_GRID,
    GEOMETRY_DEMAND,
    HEXAGON_CAPACITY,
    PD_TIME_WINDOW_COUNTS,
    PROFILES,
    TIME_GRID,
    TIME_WINDOW_DEMAND,
    Layout,
    Profile,
    Subfamily,
    applicable_profiles,
    capacity_cells,
    geometry_subfamilies,
    pd_customer_counts,
    resource_subfamilies,
)
from vrpcoder.sampling.spatial import Point, customer_points, depot_points
from vrpcoder.solutions import Solution
from vrpcoder.variants import CapacityKind, Module, Variant, get_variant

MAX_ATTEMPTS = 200

_T = TypeVar("_T")


class SamplingError(RuntimeError):
    """No instance with a feasible reference plan was found within the attempt budget."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """What the profile fixes for one sample, already adjusted to the variant."""

    subfamily: Subfamily | None
    layout: Layout
    n: int
    k: int
    demand: tuple[float, float]
    """Range of the variant's per-customer quantity: scalar demand, pair quantity (PD) or
    per-compartment demand (MC); (0, 0) for TSP."""
    capacity: float | None
    """Homogeneous capacity locked by the profile, already inside the variant's envelope."""
    horizon: float | None


@dataclass(frozen=True, slots=True)
class Draft:
    """Customer data of one attempt, drawn before any plan exists."""

    depots: tuple[Point, ...]
    points: tuple[Point, ...]
    demands: tuple[float, ...]
    compartments: tuple[tuple[float, ...], ...] | None
    pairs: tuple[PickupDelivery, ...]
    backhaul: tuple[bool, ...]
    service: tuple[float, ...]

    @property
    def coords(self) -> tuple[Point, ...]:
        return self.depots + self.points


@dataclass(frozen=True, slots=True)
class Fleet:
    """Vehicles as far as they are known before the plan."""

    depots: tuple[int, ...]
    limits: tuple[tuple[int, ...] | None, ...]
    types: tuple[rules.VehicleType | None, ...]
    """Fixed heterogeneous types (multi-compartment HF), else None per vehicle."""
    compartments: tuple[int, ...] | None
    """Locked homogeneous compartment capacities in cents."""


# ---- public API ------------------------------------------------------------------------------


def sample_instance(variant: str, profile: int, seed: int, *, customers: int | None = None) -> Instance:
    """The instance of (variant, profile, seed); see :func:`sample_with_plan`."""
    return sample_with_plan(variant, profile, seed, customers=customers)[0]


def sample_with_plan(
    variant: str, profile: int, seed: int, *, customers: int | None = None
) -> tuple[Instance, Solution]:
    """The instance of (variant, profile, seed) and a feasible reference plan for it.

    ``customers`` replaces a regular profile's customer count (scale studies sweep n with the
    profile's layout and demand kept); boundary profiles lock their counts and refuse it.
    Raises ``ValueError`` for an unknown variant, a profile outside 1..15 or one that does not
    apply to the variant, or a negative seed; :class:`SamplingError` if no feasible instance was
    found (not expected for any applicable combination).
    """
    spec = _validated(variant, profile, seed)
    rng = np.random.default_rng(_seed_material(spec.name, profile, seed))
    scenario = _scenario(spec, profile, rng)
    if customers is not None:
        scenario = _with_customers(spec, profile, scenario, customers)
    for _ in range(MAX_ATTEMPTS):
        result = _attempt(spec, profile, seed, scenario, rng)
        if result is not None:
            if customers is None:
                return result
            instance, plan = result
            return instance.model_copy(update={"name": f"{instance.name}-n{scenario.n}"}), plan
    raise SamplingError(
        f"no feasible {spec.name} instance for profile {profile}, seed {seed} in {MAX_ATTEMPTS} attempts"
    )


def _with_customers(spec: Variant, profile: int, scenario: Scenario, customers: int) -> Scenario:
    if not PROFILES[profile].regular:
        raise ValueError(f"profile {profile} locks its customer counts; --customers applies to profiles 1..12")
    if not 2 <= customers <= 40:
        raise ValueError(f"customers must be in 2..40, got {customers}")
    return replace(scenario, n=pd_customer_counts(spec, (customers,))[0])


def _validated(variant: str, profile: int, seed: int) -> Variant:
    spec = get_variant(variant)
    if isinstance(profile, bool) or not isinstance(profile, int) or not 1 <= profile <= len(PROFILES):
        raise ValueError(f"profile must be an integer in 1..{len(PROFILES)}, got {profile!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    allowed = applicable_profiles(spec.name)
    if profile not in allowed:
        raise ValueError(
            f"profile {profile} ({PROFILES[profile].name}) does not apply to variant {spec.name}; "
            f"applicable profiles: {', '.join(map(str, allowed))}"
        )
    return spec


def _seed_material(variant: str, profile: int, seed: int) -> int:
    digest = hashlib.sha256(f"{variant}|{profile}|{seed}".encode()).digest()
    return int.from_bytes(digest, "big")


# ---- scenario --------------------------------------------------------------------------------


def _pick(rng: np.random.Generator, options: tuple[_T, ...]) -> _T:
    return options[int(rng.integers(0, len(options)))]


def _scenario(spec: Variant, number: int, rng: np.random.Generator) -> Scenario:
    """Draw what the profile leaves open, then adapt it to the variant.

    The returned scenario's ``demand`` is the variant's quantity range: TSP has none, pickup and
    delivery uses pair quantities, split delivery and compartments follow their own rules.
    """
    profile = PROFILES[number]
    if profile.regular:
        drawn = _regular_scenario(spec, profile)
    elif number == 13:
        drawn = _geometry_scenario(spec, rng)
    elif number == 14:
        drawn = _capacity_scenario(spec, rng)
    else:
        drawn = _resource_scenario(spec, rng)
    k = 1 if spec.is_tsp else drawn.k
    horizon = drawn.horizon if drawn.horizon is not None else rules.default_horizon(spec, drawn.n)
    demand = _demand_range(spec, drawn.demand, drawn.n, k, drawn.capacity, grid=number == 14)
    return replace(drawn, k=k, horizon=horizon, demand=demand)


def _regular_scenario(spec: Variant, profile: Profile) -> Scenario:
    if profile.demand is None:
        raise ValueError(f"regular profile {profile.number} needs a demand range")
    n = pd_customer_counts(spec, (profile.n[0],))[0]
    return Scenario(None, profile.spatial[0], n, profile.k[0], profile.demand, None, None)


_GEOMETRY_COUNTS: dict[Subfamily, tuple[int, ...]] = {
    Subfamily.HEXAGON: (6,),
    Subfamily.POLYGON: (4, 6, 8),
    Subfamily.COLLINEAR: (5, 6, 7, 8),
    Subfamily.LOCAL_CLUSTER: (4, 5, 6, 7, 8),
}


def _geometry_scenario(spec: Variant, rng: np.random.Generator) -> Scenario:
    """Profile 13: the hexagon is one vehicle with a locked, non-binding capacity (clipped to the
    variant's envelope, i.e. 85 for split delivery); multi-depot fleets need a vehicle per depot."""
    subfamily = _pick(rng, geometry_subfamilies(spec))
    n = _pick(rng, pd_customer_counts(spec, _GEOMETRY_COUNTS[subfamily]))
    capacity = None
    if subfamily is Subfamily.HEXAGON:
        k = 1
        if spec.capacity is CapacityKind.HOMOGENEOUS:
            capacity = min(HEXAGON_CAPACITY, rules.capacity_envelope(spec)[1])
    else:
        k = int(rng.integers(2 if spec.has(Module.MD) else 1, 5))
    return Scenario(subfamily, Layout(subfamily.value), n, k, GEOMETRY_DEMAND, capacity, None)


def _capacity_scenario(spec: Variant, rng: np.random.Generator) -> Scenario:
    subfamily, cell = _pick(rng, capacity_cells(spec))
    layout = _pick(rng, (Layout.UNIFORM, Layout.SPLIT))
    n = pd_customer_counts(spec, (cell.n,))[0]
    return Scenario(subfamily, layout, n, cell.k, cell.demand, cell.capacity, None)


def _resource_scenario(spec: Variant, rng: np.random.Generator) -> Scenario:
    """Profile 15. Heterogeneous fleets keep their type rule, so only homogeneous variants lock Q."""
    homogeneous = spec.capacity is CapacityKind.HOMOGENEOUS
    subfamily = _pick(rng, resource_subfamilies(spec))
    if subfamily is Subfamily.TIME_WINDOW:
        cell = _pick(rng, TIME_GRID)
        capacity = cell.capacity if homogeneous else None
        return Scenario(subfamily, Layout.RADIAL, cell.n, cell.k, TIME_WINDOW_DEMAND, capacity, cell.horizon)
    if subfamily is Subfamily.PD_TIME_WINDOW:
        n = _pick(rng, PD_TIME_WINDOW_COUNTS)
        return Scenario(subfamily, Layout.RADIAL, n, 1, rules.PAIR_QUANTITY, None, None)
    box = _pick(rng, COMPARTMENT_GRID)
    capacity = box.capacity if homogeneous else None
    return Scenario(subfamily, Layout.SPLIT, box.n, box.k, rules.COMPARTMENT_DEMAND, capacity, None)


def _demand_range(
    spec: Variant, base: tuple[float, float], n: int, k: int, capacity: float | None, *, grid: bool
) -> tuple[float, float]:
    if spec.is_tsp:
        return (0.0, 0.0)
    if spec.has(Module.PD):
        return rules.pair_quantity_range(base) if grid else rules.PAIR_QUANTITY
    if spec.has(Module.SPLIT):
        return base if grid else rules.split_demand_range(k, n, capacity)
    if spec.has(Module.MC):
        if spec.heterogeneous:
            return rules.compartment_demand_range(n, rules.fixed_compartment_fleet_capacity(k))
        return rules.compartment_demand_range(n, None if capacity is None else k * capacity)
    return (float(base[0]), float(base[1]))


# ---- one attempt -----------------------------------------------------------------------------


def _draft(spec: Variant, scenario: Scenario, rng: np.random.Generator) -> Draft:
    depots = depot_points(spec.has(Module.MD))
    points = customer_points(scenario.layout, rng, scenario.n)
    n, first = scenario.n, len(depots)
    demands: tuple[float, ...] = (0.0,) * n
    compartments = None
    pairs: tuple[PickupDelivery, ...] = ()
    backhaul: tuple[bool, ...] = (False,) * n
    if spec.has(Module.PD):
        pairs = rules.draw_pairs(rng, n, first, scenario.demand)
    elif spec.has(Module.MC):
        compartments = rules.draw_compartment_demands(rng, n, scenario.demand)
        demands = tuple(rules.round2(sum(c)) for c in compartments)
    elif not spec.is_tsp:
        demands = rules.draw_demands(rng, n, scenario.demand)
    if spec.has(Module.BH):
        backhaul = rules.draw_backhaul(rng, n)
    service = rules.draw_service_times(rng, n) if rules.timed(spec) else (0.0,) * n
    return Draft(depots, points, demands, compartments, pairs, backhaul, service)


def _fleet(spec: Variant, scenario: Scenario, rng: np.random.Generator, num_depots: int) -> Fleet:
    depots = tuple(v % num_depots for v in range(scenario.k))
    none: tuple[None, ...] = (None,) * scenario.k
    if spec.has(Module.MC) and spec.heterogeneous:
        sizes = rules.fleet_mix(scenario.k)
        kinds = rules.compartment_types(rng, sizes)
        types = tuple(kinds[s] for s in sizes)
        limits = tuple(tuple(rules.to_cents(c) for c in t.compartments or ()) for t in types)
        return Fleet(depots, limits, types, None)
    if scenario.capacity is None or spec.has(Module.SPLIT):
        return Fleet(depots, none, none, None)
    total = rules.to_cents(scenario.capacity)
    if spec.has(Module.MC):
        split = rules.split_compartments(rng, total, (0, 0))
        if split is None:
            raise ValueError(f"locked capacity {scenario.capacity} cannot be split into compartments")
        return Fleet(depots, (split,) * scenario.k, none, split)
    width = 2 if spec.has(Module.BH) else 1
    return Fleet(depots, ((total,) * width,) * scenario.k, none, None)


def _problem(spec: Variant, scenario: Scenario, draft: Draft, fleet: Fleet) -> PlanProblem:
    coords = draft.coords
    first = len(draft.depots)
    matrix = distance_matrix(DistanceKind.EUCLIDEAN, coords)
    node_load: list[tuple[int, ...]]
    if spec.has(Module.PD):
        signed = [0] * len(coords)
        for pair in draft.pairs:
            signed[pair.pickup] = rules.to_cents(pair.quantity)
            signed[pair.delivery] = -rules.to_cents(pair.quantity)
        node_load = [(s,) for s in signed]
        units = tuple(
            Unit(
                (p.pickup, p.delivery),
                rules.to_cents(p.quantity),
                _midpoint(coords[p.pickup], coords[p.delivery]),
            )
            for p in draft.pairs
        )
    else:
        if draft.compartments is not None:
            node_load = [(0,) * rules.COMPARTMENTS] * first
            node_load += [tuple(rules.to_cents(a) for a in c) for c in draft.compartments]
        elif spec.has(Module.BH):
            node_load = [(0, 0)] * first
            node_load += [
                (0, rules.to_cents(d)) if back else (rules.to_cents(d), 0)
                for d, back in zip(draft.demands, draft.backhaul, strict=True)
            ]
        else:
            node_load = [(0,)] * first + [(rules.to_cents(d),) for d in draft.demands]
        units = tuple(
            Unit((first + i,), rules.to_cents(d), p)
            for i, (d, p) in enumerate(zip(draft.demands, draft.points, strict=True))
        )
    hard_horizon = scenario.horizon if spec.has(Module.HTW) else None
    return PlanProblem(
        coords=coords,
        distances=tuple(tuple(row) for row in matrix),
        vehicle_depots=fleet.depots,
        limits=fleet.limits,
        units=units,
        node_load=tuple(node_load),
        load_model=LoadModel.ONBOARD if spec.has(Module.PD) else LoadModel.ADDITIVE,
        backhaul=frozenset(first + i for i, b in enumerate(draft.backhaul) if b),
        service=(0.0,) * first + draft.service,
        horizon=hard_horizon,
        open_routes=spec.has(Module.OPEN),
    )


def _midpoint(a: Point, b: Point) -> Point:
    return ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)


def _plan(
    spec: Variant, scenario: Scenario, draft: Draft, problem: PlanProblem, rng: np.random.Generator
) -> tuple[Solution, float | None] | None:
    """The reference plan and, for split delivery, the capacity it was built for.

    Split delivery needs its capacity before the plan: the plan splits a customer only when the
    unsplit sweep does not fit that capacity.
    """
    if not spec.has(Module.SPLIT):
        plan = build_plan(problem)
        return None if plan is None else (plan, None)
    total = sum(u.weight for u in problem.units)
    capacity = scenario.capacity
    if capacity is None:
        capacity = rules.homogeneous_capacity(
            rng,
            math.ceil(total / scenario.k),
            total / 100 / scenario.k,
            rules.capacity_envelope(spec),
            rules.SPLIT_CAPACITY_SLACK,
        )
        if capacity is None:
            return None
    cents = rules.to_cents(capacity)
    whole = build_plan(replace(problem, limits=((cents,),) * scenario.k))
    if whole is not None:
        demand = {len(draft.depots) + i: d for i, d in enumerate(draft.demands)}
        return with_full_deliveries(whole, demand), capacity
    split = split_delivery_plan(problem, cents)
    return None if split is None else (split, capacity)


def _totals(problem: PlanProblem) -> tuple[int, ...]:
    """Whole-instance load per usage dimension (pickups only for pickup-and-delivery)."""
    width = len(problem.node_load[0])
    return tuple(sum(max(0, load[i]) for load in problem.node_load) for i in range(width))


def _usage_by_vehicle(problem: PlanProblem, plan: Solution) -> dict[int, tuple[int, ...]]:
    width = len(problem.node_load[0])
    usage = {v: (0,) * width for v in range(problem.fleet_size)}
    usage.update({r.vehicle: route_usage(problem, r.visits) for r in plan.routes})
    return usage


def _homogeneous_vehicles(
    spec: Variant,
    scenario: Scenario,
    problem: PlanProblem,
    fleet: Fleet,
    plan: Solution,
    rng: np.random.Generator,
) -> tuple[float, tuple[float, ...] | None] | None:
    """(capacity, compartment capacities) of the identical vehicles, or None if out of envelope."""
    usage = _usage_by_vehicle(problem, plan)
    envelope = rules.capacity_envelope(spec)
    if spec.has(Module.MC):
        split = fleet.compartments
        if split is None:
            per_vehicle = sum(_totals(problem)) / 100 / scenario.k
            heaviest = max(sum(u) for u in usage.values())
            capacity = rules.homogeneous_capacity(rng, heaviest, per_vehicle, envelope)
            if capacity is None:
                return None
            needs = tuple(max(u[c] for u in usage.values()) for c in range(rules.COMPARTMENTS))
            split = rules.split_compartments(rng, rules.to_cents(capacity), needs)
            if split is None or sum(split) > rules.to_cents(envelope[1]):
                return None
        return sum(split) / 100, tuple(c / 100 for c in split)
    if scenario.capacity is not None:
        return scenario.capacity, None
    need = max(max(u) for u in usage.values())
    per_vehicle = max(_totals(problem)) / 100 / scenario.k
    capacity = rules.homogeneous_capacity(rng, need, per_vehicle, envelope)
    return None if capacity is None else (capacity, None)


def _fleet_types(
    scenario: Scenario, problem: PlanProblem, fleet: Fleet, plan: Solution, rng: np.random.Generator
) -> tuple[rules.VehicleType, ...] | None:
    """Vehicle types of a heterogeneous fleet.

    Fixed types (multi-compartment) were used while planning. Otherwise the planned routes are
    ranked by load and the fleet's sizes handed out in that order (the lightest route drives the
    small vehicle), then each size's capacity is drawn from its band and raised to its heaviest
    route, so the plan fits by construction.
    """
    if all(t is not None for t in fleet.types):
        return tuple(t for t in fleet.types if t is not None)
    usage = _usage_by_vehicle(problem, plan)
    ranked = sorted(range(scenario.k), key=lambda v: (sum(usage[v]), v))
    size_of = dict(zip(ranked, rules.fleet_mix(scenario.k), strict=True))
    needs: dict[rules.VehicleSize, int] = {}
    for v, size in size_of.items():
        needs[size] = max(needs.get(size, 0), sum(usage[v]))
    kinds = rules.sized_types(rng, needs)
    return None if kinds is None else tuple(kinds[size_of[v]] for v in range(scenario.k))


def _vehicles(
    spec: Variant,
    scenario: Scenario,
    problem: PlanProblem,
    fleet: Fleet,
    plan: Solution,
    split_capacity: float | None,
    rng: np.random.Generator,
) -> tuple[Vehicle, ...] | None:
    if spec.capacity is CapacityKind.NONE:
        return tuple(Vehicle(depot=d) for d in fleet.depots)
    if spec.heterogeneous:
        types = _fleet_types(scenario, problem, fleet, plan, rng)
        if types is None:
            return None
        return tuple(
            Vehicle(
                depot=d,
                capacity=t.capacity,
                compartment_capacity=t.compartments,
                fixed_cost=t.fixed_cost,
                cost_per_distance=t.cost_per_distance,
                type_name=t.size.value,
            )
            for d, t in zip(fleet.depots, types, strict=True)
        )
    if split_capacity is not None:
        capacity, compartments = split_capacity, None
    else:
        sized = _homogeneous_vehicles(spec, scenario, problem, fleet, plan, rng)
        if sized is None:
            return None
        capacity, compartments = sized
    return tuple(Vehicle(depot=d, capacity=capacity, compartment_capacity=compartments) for d in fleet.depots)


def _windows(
    spec: Variant,
    scenario: Scenario,
    draft: Draft,
    problem: PlanProblem,
    plan: Solution,
    rng: np.random.Generator,
) -> dict[int, TimeWindow]:
    """Customer windows; hard ones are anchored on the plan's service starts."""
    first = len(draft.depots)
    nodes = list(range(first, first + scenario.n))
    reach = {node: min(problem.distances[node][d] for d in range(first)) for node in nodes}
    planned: dict[int, float] | None = None
    if spec.has(Module.HTW):
        planned = {}
        for route in plan.routes:
            planned.update(zip(route.visits, service_starts(problem, route.depot, route.visits), strict=True))
    service = {node: problem.service[node] for node in nodes}
    return rules.draw_windows(rng, nodes, reach, planned, service, draft.pairs, problem.distances)


def _attempt(
    spec: Variant, profile: int, seed: int, scenario: Scenario, rng: np.random.Generator
) -> tuple[Instance, Solution] | None:
    draft = _draft(spec, scenario, rng)
    fleet = _fleet(spec, scenario, rng, len(draft.depots))
    problem = _problem(spec, scenario, draft, fleet)
    planned = _plan(spec, scenario, draft, problem, rng)
    if planned is None:
        return None
    plan, split_capacity = planned
    vehicles = _vehicles(spec, scenario, problem, fleet, plan, split_capacity, rng)
    if vehicles is None:
        return None
    max_distance = None
    if spec.has(Module.DIST):
        longest = max(route_length(problem, r.depot, r.visits) for r in plan.routes)
        max_distance = rules.distance_limit(rng, longest)
        if max_distance is None:
            return None

    first = len(draft.depots)
    windows: dict[int, TimeWindow] = {}
    penalties: tuple[float | None, ...] = (None,) * scenario.n
    depot_window = None
    if rules.timed(spec) and scenario.horizon is not None:
        windows = _windows(spec, scenario, draft, problem, plan, rng)
        depot_window = TimeWindow(start=0.0, end=scenario.horizon)
        if spec.has(Module.STW):
            penalties = rules.draw_late_penalties(rng, scenario.n)

    customers = tuple(
        Customer(
            x=x,
            y=y,
            demand=draft.demands[i],
            compartment_demand=None if draft.compartments is None else draft.compartments[i],
            service_time=draft.service[i],
            window=windows.get(first + i),
            late_penalty=penalties[i],
            backhaul=draft.backhaul[i],
        )
        for i, (x, y) in enumerate(draft.points)
    )
    instance = Instance(
        name=f"{spec.name}-p{profile}-s{seed}",
        variant=spec.name,
        depots=tuple(Depot(x=x, y=y, window=depot_window) for x, y in draft.depots),
        customers=customers,
        vehicles=vehicles,
        pairs=draft.pairs,
        max_route_distance=max_distance,
        provenance=Provenance(
            source="sampled",
            profile=profile,
            seed=seed,
            subfamily=None if scenario.subfamily is None else scenario.subfamily.value,
        ),
    )
    return instance, plan

"""Reference plans: one simple feasible route plan per sampled instance.

The sampler builds the plan *before* it fixes the bounds that can be derived (capacity, the
distance limit, hard windows) and then sizes those bounds from the plan, so the plan is feasible by
construction. Bounds that are fixed in advance (a locked capacity, a heterogeneous type's capacity,
a short horizon) are respected while the plan is built; when no plan is found, the caller redraws.

The plan is a sweep: customers (or whole pickup-delivery pairs) are ordered by angle around their
vehicle's depot and the circular order is cut into at most one contiguous group per vehicle, by a
small dynamic programme that minimises the heaviest group and then the total distance over every
rotation of the circle. Within a group the sweep order is kept, pickup is followed directly by its
delivery, and linehauls come before backhauls. Every quantity is handled in integer cents (all
sampled numbers have two decimals), so capacity comparisons here are exact.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from vrpcoder.solutions import Route, Solution

Point = tuple[float, float]
Usage = tuple[int, ...]

MD_SHARE_SLACK = 1.25
"""A depot may take this multiple of its fleet share of the total load before customers spill to
the other depot: nearest-depot assignment alone can pile every customer on one small depot."""


class LoadModel(StrEnum):
    ADDITIVE = "additive"
    """A route uses the sum of its customers' load vectors."""
    ONBOARD = "onboard"
    """Pickup and delivery: node loads are signed (+q pickup, -q delivery) and a route uses the
    peak of the running sum."""


@dataclass(frozen=True, slots=True)
class Unit:
    """What the plan keeps together: one customer, or a pickup and its delivery (in that order)."""

    nodes: tuple[int, ...]
    weight: int
    """Load in cents used to balance the groups."""
    anchor: Point
    """Position used to sweep and to pick the nearest depot."""


@dataclass(frozen=True, slots=True)
class PlanProblem:
    """Everything the plan needs to know, in internal node numbering (depots first)."""

    coords: tuple[Point, ...]
    distances: tuple[tuple[float, ...], ...]
    vehicle_depots: tuple[int, ...]
    limits: tuple[Usage | None, ...]
    """Per vehicle: usage bounds fixed before the plan (cents), or None when derived from it."""
    units: tuple[Unit, ...]
    node_load: tuple[Usage, ...]
    """Per node load vector in cents (depots: zeros); its width matches every limit."""
    load_model: LoadModel
    backhaul: frozenset[int]
    service: tuple[float, ...]
    """Per node service time (depots: 0)."""
    horizon: float | None
    """Latest return to the depot for closed routes (hard windows); None when unbounded."""
    open_routes: bool

    @property
    def fleet_size(self) -> int:
        return len(self.vehicle_depots)

    @property
    def capacity_fixed(self) -> bool:
        return any(limit is not None for limit in self.limits)


# ---- route measures --------------------------------------------------------------------------


def route_usage(problem: PlanProblem, visits: Sequence[int]) -> Usage:
    width = len(problem.node_load[0])
    if problem.load_model is LoadModel.ONBOARD:
        load, peak = 0, 0
        for node in visits:
            load += problem.node_load[node][0]
            peak = max(peak, load)
        return (peak,) * width
    return tuple(sum(problem.node_load[node][i] for node in visits) for i in range(width))


def route_length(problem: PlanProblem, depot: int, visits: Sequence[int]) -> float:
    """Driven distance; open routes end at their last customer."""
    path = [depot, *visits] if problem.open_routes else [depot, *visits, depot]
    return sum(problem.distances[a][b] for a, b in zip(path, path[1:], strict=False))


def service_starts(problem: PlanProblem, depot: int, visits: Sequence[int]) -> tuple[float, ...]:
    """Start of service at each visit when the vehicle leaves at time 0 and never waits.

    The sampler draws hard windows that contain these times, so no waiting ever happens and the
    times stay those of the earliest schedule of docs/semantics.md.
    """
    time, node, starts = 0.0, depot, []
    for visit in visits:
        time = time + problem.service[node] + problem.distances[node][visit]
        starts.append(time)
        node = visit
    return tuple(starts)


def return_time(problem: PlanProblem, depot: int, visits: Sequence[int]) -> float:
    if not visits:
        return 0.0
    last = visits[-1]
    return service_starts(problem, depot, visits)[-1] + problem.service[last] + problem.distances[last][depot]


def _fits(usage: Usage, limit: Usage | None) -> bool:
    return limit is None or all(u <= b for u, b in zip(usage, limit, strict=True))


def _serves_linehaul(problem: PlanProblem, visits: Sequence[int]) -> bool:
    """VRPB: no route serves backhaul customers only (docs/semantics.md, backhaul)."""
    return not problem.backhaul or not visits or any(n not in problem.backhaul for n in visits)


def _on_time(problem: PlanProblem, depot: int, visits: Sequence[int]) -> bool:
    if problem.horizon is None or problem.open_routes:
        return True
    return return_time(problem, depot, visits) <= problem.horizon


def _angle(centre: Point, point: Point) -> float:
    return math.atan2(point[1] - centre[1], point[0] - centre[0])


def _sweep_order(problem: PlanProblem, depot: int, units: Sequence[Unit]) -> list[Unit]:
    centre = problem.coords[depot]
    return sorted(units, key=lambda u: (_angle(centre, u.anchor), u.nodes))


def _visits(problem: PlanProblem, units: Sequence[Unit]) -> tuple[int, ...]:
    nodes = [node for unit in units for node in unit.nodes]
    if not problem.backhaul:
        return tuple(nodes)
    linehaul = tuple(n for n in nodes if n not in problem.backhaul)
    return linehaul + tuple(n for n in nodes if n in problem.backhaul)


# ---- depot assignment ------------------------------------------------------------------------


def _assign_depots(problem: PlanProblem) -> dict[int, list[Unit]]:
    """Nearest depot first, most clear-cut customers first, within a load share per depot."""
    fleet = Counter(problem.vehicle_depots)
    depots = sorted(fleet)
    if len(depots) == 1:
        return {depots[0]: list(problem.units)}
    total = sum(u.weight for u in problem.units)
    share = {d: total * fleet[d] / problem.fleet_size * MD_SHARE_SLACK for d in depots}

    def reach(unit: Unit, depot: int) -> float:
        return math.dist(unit.anchor, problem.coords[depot])

    def clarity(unit: Unit) -> float:
        near = sorted(reach(unit, d) for d in depots)
        return near[1] - near[0]

    loads = dict.fromkeys(depots, 0)
    out: dict[int, list[Unit]] = {d: [] for d in depots}
    for unit in sorted(problem.units, key=lambda u: (-clarity(u), u.nodes)):
        ranked = sorted(depots, key=lambda d: (reach(unit, d), d))
        choice = next((d for d in ranked if loads[d] + unit.weight <= share[d]), ranked[0])
        loads[choice] += unit.weight
        out[choice].append(unit)
    return out


# ---- sweep partition -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Segment:
    ok: bool
    weight: int
    length: float
    visits: tuple[int, ...]


def _partition(
    problem: PlanProblem, depot: int, units: Sequence[Unit], groups: int, limit: Usage | None
) -> list[tuple[int, ...]] | None:
    """Best cut of the circular sweep order into at most ``groups`` contiguous routes.

    Minimises the heaviest route, then the total distance; a route is admissible when it fits
    ``limit`` and returns within the horizon. None when no cut is admissible.
    """
    order = _sweep_order(problem, depot, units)
    n = len(order)
    if n == 0:
        return []
    circle = order + order
    segments = [
        [_segment(problem, depot, circle[start : start + size], limit) for size in range(n + 1)]
        for start in range(n)
    ]

    best: tuple[int, float] | None = None
    best_cuts: list[tuple[int, int]] = []
    for rotation in range(n):
        cost: list[list[tuple[int, float] | None]] = [[None] * (n + 1) for _ in range(groups + 1)]
        back = [[0] * (n + 1) for _ in range(groups + 1)]
        cost[0][0] = (0, 0.0)
        for used in range(1, groups + 1):
            for end in range(used, n + 1):
                candidate: tuple[int, float] | None = None
                for cut in range(used - 1, end):
                    previous = cost[used - 1][cut]
                    segment = segments[(rotation + cut) % n][end - cut]
                    if previous is None or not segment.ok:
                        continue
                    option = (max(previous[0], segment.weight), previous[1] + segment.length)
                    if candidate is None or option < candidate:
                        candidate, back[used][end] = option, cut
                cost[used][end] = candidate
            finished = cost[used][n]
            if finished is not None and (best is None or finished < best):
                best, best_cuts = finished, _cuts(back, used, n, rotation, n)
    if best is None:
        return None
    return [segments[start][size].visits for start, size in best_cuts]


def _segment(problem: PlanProblem, depot: int, chosen: Sequence[Unit], limit: Usage | None) -> _Segment:
    visits = _visits(problem, chosen)
    ok = (
        bool(chosen)
        and _serves_linehaul(problem, visits)
        and _fits(route_usage(problem, visits), limit)
        and _on_time(problem, depot, visits)
    )
    weight = sum(u.weight for u in chosen)
    return _Segment(ok, weight, route_length(problem, depot, visits), visits)


def _cuts(back: list[list[int]], used: int, end: int, rotation: int, n: int) -> list[tuple[int, int]]:
    """(start, size) of each route of the cut recorded in ``back``, in sweep order."""
    out: list[tuple[int, int]] = []
    while used > 0:
        cut = back[used][end]
        out.append(((rotation + cut) % n, end - cut))
        used, end = used - 1, cut
    return out[::-1]


def _sweep_plan(problem: PlanProblem) -> dict[int, tuple[int, ...]] | None:
    plan: dict[int, tuple[int, ...]] = {}
    for depot, units in _assign_depots(problem).items():
        fleet = [v for v, d in enumerate(problem.vehicle_depots) if d == depot]
        limits = {problem.limits[v] for v in fleet}
        shared = next(iter(limits)) if len(limits) == 1 else None
        groups = _partition(problem, depot, units, len(fleet), shared)
        if groups is None:
            return None
        if len(limits) > 1:
            placed = _match_by_size(problem, fleet, groups)
            if placed is None:
                return None
            plan.update(placed)
        else:
            plan.update(zip(fleet, groups, strict=False))
    return plan


def _match_by_size(
    problem: PlanProblem, fleet: Sequence[int], groups: Sequence[tuple[int, ...]]
) -> dict[int, tuple[int, ...]] | None:
    """Heterogeneous fixed limits: heaviest group on the largest vehicle, and so on down."""
    by_size = sorted(fleet, key=lambda v: (-sum(problem.limits[v] or ()), v))
    by_load = sorted(groups, key=lambda g: (-sum(route_usage(problem, g)), g))
    placed = dict(zip(by_size, by_load, strict=False))
    if all(_fits(route_usage(problem, g), problem.limits[v]) for v, g in placed.items()):
        return placed
    return None


# ---- first-fit fallback ----------------------------------------------------------------------


def _unit_usage(problem: PlanProblem, unit: Unit) -> Usage:
    width = len(problem.node_load[0])
    if problem.load_model is LoadModel.ONBOARD:
        return (sum(max(0, problem.node_load[n][0]) for n in unit.nodes),) * width
    return tuple(sum(problem.node_load[n][i] for n in unit.nodes) for i in range(width))


def _first_fit_plan(problem: PlanProblem) -> dict[int, tuple[int, ...]] | None:
    """First-fit decreasing over all vehicles, for fixed limits the sweep could not meet.

    Packing ignores geography, so the routes are longer; each is then ordered by sweep around its
    depot and rechecked (the additive packing bound is conservative for pickup-and-delivery).
    """
    if any(limit is None for limit in problem.limits):
        return None
    width = len(problem.node_load[0])
    vehicles = sorted(range(problem.fleet_size), key=lambda v: (-sum(problem.limits[v] or ()), v))
    loads = {v: (0,) * width for v in vehicles}
    chosen: dict[int, list[Unit]] = {v: [] for v in vehicles}
    for unit in sorted(problem.units, key=lambda u: (-u.weight, u.nodes)):
        need = _unit_usage(problem, unit)
        target = next(
            (
                v
                for v in vehicles
                if _fits(tuple(a + b for a, b in zip(loads[v], need, strict=True)), problem.limits[v])
            ),
            None,
        )
        if target is None:
            return None
        loads[target] = tuple(a + b for a, b in zip(loads[target], need, strict=True))
        chosen[target].append(unit)
    plan: dict[int, tuple[int, ...]] = {}
    for v, units in chosen.items():
        depot = problem.vehicle_depots[v]
        visits = _visits(problem, _sweep_order(problem, depot, units))
        fits = _fits(route_usage(problem, visits), problem.limits[v]) and _on_time(problem, depot, visits)
        if not (fits and _serves_linehaul(problem, visits)):
            return None
        plan[v] = visits
    return plan


# ---- public entry points ---------------------------------------------------------------------


def _solution(problem: PlanProblem, plan: dict[int, tuple[int, ...]]) -> Solution:
    routes = tuple(
        Route(vehicle=v, depot=problem.vehicle_depots[v], visits=visits)
        for v, visits in sorted(plan.items())
        if visits
    )
    return Solution(routes=routes)


def build_plan(problem: PlanProblem) -> Solution | None:
    """A feasible plan (each customer once) under the fixed limits and horizon, or None."""
    plan = _sweep_plan(problem)
    if plan is None and problem.capacity_fixed:
        plan = _first_fit_plan(problem)
    return None if plan is None else _solution(problem, plan)


def split_delivery_plan(problem: PlanProblem, capacity: int) -> Solution | None:
    """Split delivery: fill the vehicles in sweep order with an equal share of the total load.

    Each vehicle takes ceil(total / fleet) cents (at most ``capacity``), cutting a customer's
    demand between consecutive vehicles where a share ends; a vehicle serves a contiguous stretch
    of the sweep and therefore visits each customer at most once. None when the fleet cannot carry
    the total.
    """
    depot = problem.vehicle_depots[0]
    order = _sweep_order(problem, depot, problem.units)
    total = sum(u.weight for u in order)
    fleet = problem.fleet_size
    share = -(-total // fleet)
    if share > capacity:
        return None
    stops: list[list[tuple[int, int]]] = [[] for _ in range(fleet)]
    vehicle, room = 0, share
    for unit in order:
        left = unit.weight
        while left > 0:
            if room == 0:
                return None
            take = min(left, room)
            stops[vehicle].append((unit.nodes[0], take))
            left -= take
            room -= take
            if room == 0 and vehicle < fleet - 1:
                vehicle, room = vehicle + 1, share
    routes = tuple(
        Route(
            vehicle=v,
            depot=problem.vehicle_depots[v],
            visits=tuple(node for node, _ in chunk),
            deliveries=tuple(amount / 100 for _, amount in chunk),
        )
        for v, chunk in enumerate(stops)
        if chunk
    )
    return Solution(routes=routes)


def with_full_deliveries(solution: Solution, demand: dict[int, float]) -> Solution:
    """Split-delivery plan that happens not to split: state each visit's quantity explicitly."""
    routes = tuple(
        Route(
            vehicle=route.vehicle,
            depot=route.depot,
            visits=route.visits,
            deliveries=tuple(demand[c] for c in route.visits),
        )
        for route in solution.routes
    )
    return Solution(routes=routes)

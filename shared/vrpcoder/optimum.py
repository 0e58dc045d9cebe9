"""The third operator: the candidate's own optimal plan, read off its ``x`` and judged by the checker.

DIFF compares one number and INJ asks the candidate's model about plans we chose. Neither looks at
the plan the candidate's model itself settles on, and a model that lacks a rule can settle on a plan
that breaks it at exactly the reference cost (a reversed route costs the same as the original, so a
model that drops the closing side of the windows may drive it backwards). Here the values of the
matched routing variable are decoded into routes and the solver-free checker judges them.

What is read, and what is not:

* Only ``x``. Loads, start times and split quantities are recomputed by the checker from the route
  order (split quantities by its own assignment of the visits' demand), so the candidate's other
  variables are never needed, not even as hints: nothing it reports about them can make a plan pass.
* A 3-index ``x`` on a fleet whose vehicles differ (``Variant.heterogeneous``) is read with its third
  index as the vehicle, exactly as INJ pins it. Any other third index (vehicles numbered from 1,
  one layer per depot) and a 2-index ``x`` only say which arcs are driven; their routes are given
  distinct vehicles of their own depot by a matching over the vehicles each route fits on alone,
  so a plan passes when *some* assignment of its routes to the fleet is feasible (which vehicle
  drives a route is not in such a model's answer).
* A closed route that leaves one depot and ends at another carries that end (``end_depot``), which
  the checker reports under ``route_structure``; a route whose arcs stop at a customer is read as
  returning to its own depot (a closed model may keep its return arcs in another variable), so a
  missing return never fails the check by itself. Open routes end at their last customer whatever
  return arcs a model keeps (zero-cost returns are a common way to write them). Arcs between depots
  carry no customer and are skipped.

The function ``judge_plan`` is pure (no gurobipy): the sandbox's supervisor runs it again on the plan
a child reports, so a forged "passed" has to be a plan the checker accepts.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from vrpcoder_client.verdicts import Family, OptimumCheck, PlanRoute, PlanViolation, Rule

from vrpcoder.checker import check
from vrpcoder.instances import Instance
from vrpcoder.relabelling import distinct_assignment
from vrpcoder.solutions import Cycle, Route, Solution
from vrpcoder.variants import Module

INTEGRALITY_TOLERANCE = 1e-3
"""How far from an integer an arc value may be (Gurobi's own IntFeasTol is 1e-5)."""

Key = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Tour:
    """A walk through ``x``'s arcs in internal node numbers: from a depot (a route) or a cycle."""

    layer: int | None
    """The third index of the arcs (None for a 2-index ``x``)."""
    start: int | None
    """The depot the walk leaves (None for a customer-only cycle or a fragment)."""
    visits: tuple[int, ...]
    end: int | None
    """The depot the walk reaches (None: it stops at a customer, or closes a cycle)."""
    closed: bool = False
    """A customer-only cycle."""


@dataclass(frozen=True, slots=True)
class Decoded:
    """The walks of an integral ``x``, or why ``x`` is not integral."""

    tours: tuple[Tour, ...]
    fractional: str | None = None


def arc_multiplicities(values: Mapping[Key, float]) -> tuple[dict[Key, int], str | None]:
    """Each arc's value as an integer count, or a note on the first value that is not integral."""
    counts: dict[Key, int] = {}
    for key, value in values.items():
        count = round(value)
        if abs(value - count) > INTEGRALITY_TOLERANCE:
            return {}, f"x[{','.join(map(str, key))}] = {value:.6g} at the candidate's optimum is not integral"
        if count > 0:
            counts[key] = count
    return counts, None


def decode_tours(
    instance: Instance, values: Mapping[Key, float], position_of: Sequence[int]
) -> Decoded:
    """Walk ``x``'s driven arcs (keyed by the candidate's positions) into routes and cycles.

    ``position_of[p]`` is the candidate's position of internal node ``p`` (``NodeMap.index``).
    """
    counts, fractional = arc_multiplicities(values)
    if fractional is not None:
        return Decoded(tours=(), fractional=fractional)
    node_of = {position: node for node, position in enumerate(position_of)}
    depots = set(range(instance.num_depots))
    layers: dict[int | None, dict[int, list[int]]] = {}
    for key, count in sorted(counts.items()):
        u, v = node_of.get(key[0]), node_of.get(key[1])
        if u is None or v is None or (u in depots and v in depots):
            continue
        layer = key[2] if len(key) == 3 else None
        layers.setdefault(layer, {}).setdefault(u, []).extend([v] * count)
    tours: list[Tour] = []
    for layer, successors in sorted(layers.items(), key=lambda item: (item[0] is not None, item[0] or 0)):
        tours += _layer_tours(layer, successors, depots)
    return Decoded(tours=tuple(tours))


def _layer_tours(layer: int | None, successors: dict[int, list[int]], depots: set[int]) -> list[Tour]:
    tours: list[Tour] = []
    for depot in sorted(depots):
        while successors.get(depot):
            visits, end, _ = _walk(successors, depot, depots)
            tours.append(Tour(layer=layer, start=depot, visits=visits, end=end))
    # What is left starts at a customer: a cycle, or a fragment whose flow no depot feeds.
    indegree = Counter(v for heads in successors.values() for v in heads)
    for start in sorted(successors, key=lambda node: (indegree[node] > 0, node)):
        while successors.get(start):
            visits, end, closed = _walk(successors, start, depots, cycle_at=start)
            tours.append(Tour(layer=layer, start=None, visits=(start, *visits), end=end, closed=closed))
    return tours


def _walk(
    successors: dict[int, list[int]], start: int, depots: set[int], cycle_at: int | None = None
) -> tuple[tuple[int, ...], int | None, bool]:
    """Follow (and consume) arcs from ``start``: the customers passed, the depot reached (if any),
    and whether the walk came back to ``cycle_at``."""
    visits: list[int] = []
    node = start
    while successors.get(node):
        node = successors[node].pop(0)
        if node in depots:
            return tuple(visits), node, False
        if node == cycle_at:
            return tuple(visits), None, True
        visits.append(node)
    return tuple(visits), None, False


# ---- from walks to a plan, and the checker's verdict on it ---------------------------------------


def reads_layer_as_vehicle(instance: Instance, dims: int, layers: Sequence[int]) -> bool:
    """Whether a 3-index ``x``'s third index is taken as the vehicle (as INJ's direct fixing does)."""
    return dims == 3 and instance.spec.heterogeneous and set(layers) <= set(range(len(instance.vehicles)))


def plan_from_tours(
    instance: Instance, tours: Sequence[Tour], *, layer_is_vehicle: bool
) -> tuple[tuple[PlanRoute, ...], tuple[tuple[int, ...], ...], str]:
    """Routes with vehicles, customer cycles, and how the vehicles were chosen."""
    routes = [t for t in tours if t.start is not None and t.visits]
    cycles = tuple(t.visits for t in tours if t.start is None)
    if layer_is_vehicle:
        plan = tuple(_plan_route(t, t.layer if t.layer is not None else 0) for t in routes)
        return plan, cycles, "x's third index read as the vehicle"
    vehicles = _assign_vehicles(instance, routes)
    plan = tuple(_plan_route(t, k) for t, k in zip(routes, vehicles, strict=True))
    return plan, cycles, "routes read from x's arcs and given distinct vehicles of their depots"


def _plan_route(tour: Tour, vehicle: int) -> PlanRoute:
    assert tour.start is not None
    end = tour.end if tour.end is not None and tour.end != tour.start else None
    return PlanRoute(vehicle=vehicle, depot=tour.start, visits=tour.visits, end_depot=end)


def _assign_vehicles(instance: Instance, routes: Sequence[Tour]) -> list[int]:
    """A distinct vehicle of each route's depot.

    Where a depot's vehicles differ, a matching looks for one on which each route alone breaks
    nothing (a route that only the big truck can carry gets the big truck). Where they are alike, or
    no matching exists, each route in turn takes the first vehicle of its depot not yet taken, and
    the checker says what is wrong with that plan: a route no vehicle can carry, or more routes than
    the depot has vehicles (one vehicle then drives two routes, a ``route_structure`` violation)."""
    count = len(instance.vehicles)
    if not _identical_per_depot(instance):
        options = [[k for k in range(count) if _fits(instance, route, k)] for route in routes]
        matched = distinct_assignment(options, count)
        if matched is not None:
            return matched
    taken: set[int] = set()
    out: list[int] = []
    for route in routes:
        own = [k for k in range(count) if instance.vehicles[k].depot == route.start]
        free = [k for k in own if k not in taken] or own or [0]
        out.append(free[0])
        taken.add(free[0])
    return out


def _identical_per_depot(instance: Instance) -> bool:
    """Whether the vehicles of each depot are all alike (then any distinct ones will do)."""
    first: dict[int, object] = {}
    return all(first.setdefault(v.depot, v) == v for v in instance.vehicles)


def _fits(instance: Instance, tour: Tour, vehicle: int) -> bool:
    if tour.start is None or instance.vehicles[vehicle].depot != tour.start:
        return False
    alone = Solution(routes=(Route(vehicle=vehicle, depot=tour.start, visits=tour.visits),))
    return set(check(instance, alone).families) <= {Family.COVERAGE}


def describe_route(route: PlanRoute, instance: Instance) -> str:
    """``vehicle 1: 0 -> 4 -> 2 -> 0`` (open routes stop at their last customer)."""
    end: list[int] = []
    if route.end_depot is not None:
        end = [route.end_depot]
    elif not instance.has(Module.OPEN):
        end = [route.depot]
    return f"vehicle {route.vehicle}: " + " -> ".join(map(str, (route.depot, *route.visits, *end)))


def judge_plan(
    instance: Instance,
    routes: Sequence[PlanRoute],
    cycles: Sequence[Sequence[int]],
    *,
    reading: str,
    fragments: Sequence[str] = (),
    seconds: float = 0.0,
) -> OptimumCheck:
    """The checker's verdict on a decoded plan, as the verdict's record (pure: no solver).

    ``fragments`` describe arcs that form neither a route nor a cycle (flow that no depot feeds);
    each is a ``route_structure`` violation (the checker reports a route that ends at another depot
    under the same family)."""
    solution = Solution(
        routes=tuple(Route(vehicle=r.vehicle, depot=r.depot, visits=r.visits, end_depot=r.end_depot) for r in routes),
        cycles=tuple(Cycle(visits=tuple(c)) for c in cycles if len(c) >= 2),
    )
    report = check(instance, solution)
    violations = [
        PlanViolation(
            family=v.family, detail=_with_route(v.detail, v.vehicle, routes, instance), vehicle=v.vehicle, rule=v.rule
        )
        for v in report.violations
    ]
    violations += [
        PlanViolation(family=Family.SUBTOUR, detail=f"customer {c[0]} is driven back to itself", rule=Rule.NO_CYCLE)
        for c in cycles
        if len(c) < 2
    ]
    violations += [PlanViolation(family=Family.ROUTE_STRUCTURE, detail=text) for text in fragments]
    return OptimumCheck(
        passed=not violations,
        routes=tuple(routes),
        cycles=tuple(tuple(c) for c in cycles),
        violations=tuple(violations),
        cost=report.cost,
        reading=reading,
        seconds=seconds,
    )


def _with_route(detail: str, vehicle: int | None, routes: Sequence[PlanRoute], instance: Instance) -> str:
    route = next((r for r in routes if r.vehicle == vehicle), None)
    if route is None:
        return detail
    return f"{detail} (driven as {describe_route(route, instance).split(': ', 1)[1]})"


def check_optimum(
    instance: Instance,
    values: Mapping[Key, float],
    position_of: Sequence[int],
    *,
    dims: int,
    layers: Sequence[int] = (),
) -> OptimumCheck:
    """Decode the candidate's optimal ``x`` (values keyed by its own positions) and judge the plan."""
    started = time.perf_counter()
    decoded = decode_tours(instance, values, position_of)
    if decoded.fractional is not None:
        violation = PlanViolation(family=Family.ROUTE_STRUCTURE, detail=decoded.fractional)
        return OptimumCheck(
            passed=False, violations=(violation,), reading="x is not integral", seconds=time.perf_counter() - started
        )
    layer_is_vehicle = reads_layer_as_vehicle(instance, dims, layers)
    tours = decoded.tours
    if instance.has(Module.OPEN):
        tours = tuple(replace(t, end=None) if t.start is not None else t for t in tours)
    routes, cycles, reading = plan_from_tours(instance, tours, layer_is_vehicle=layer_is_vehicle)
    fragments = [
        f"x's arcs {' -> '.join(map(str, t.visits))}"
        + (f" -> depot {t.end}" if t.end is not None else "")
        + " start at a customer that no route reaches"
        for t in decoded.tours
        if t.start is None and not t.closed
    ]
    closed = [t.visits for t in decoded.tours if t.start is None and t.closed]
    return judge_plan(
        instance, routes, closed, reading=reading, fragments=fragments, seconds=time.perf_counter() - started
    )

"""The shared toolkit of the attackers: editing a plan, widening non-target bounds, and the label
rule every probe must pass before it leaves an attacker.

Attackers are written as generators of *candidates* (an instance, a violating plan and, for
parameter attacks, the bound that was set); :func:`first_verified` walks them in order and keeps
the first one on which the checker finds s+ feasible and s- breaking exactly the target family.
That way an attacker never has to prove that an edit is clean: an edit that also breaks something
else is simply passed over for the next alternative.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from vrpcoder.attacks.records import Attack, AttackSkipped, BoundKind, ParameterBound, tightened_bound
from vrpcoder.checker import (
    CheckReport,
    check,
    compartment_loads,
    return_time,
    route_distance,
    schedule,
)
from vrpcoder.families import Family
from vrpcoder.instances import Instance, TimeWindow, Vehicle
from vrpcoder.relaxation import WINDOW_LIMIT, capacity_usage, rebuilt, round_up
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import ATTACKERS, Attacker, Module

_T = TypeVar("_T")

WANTED_EXCESS = 0.05
"""Overload attacks keep moving customers until s- uses at least this share more than s+ (or
run out of customers): a wider (g, b) keeps the violation well clear of solver tolerances."""


@dataclass(frozen=True, slots=True)
class Candidate:
    instance: Instance
    solution: Solution
    bound: ParameterBound | None = None
    at_formula: bool = True
    """False when the bound rule's value had to be lowered to the bound already in force; such a
    candidate is used only if no candidate keeps the rule's value."""


# ---- the label rule ----------------------------------------------------------------------------


def first_verified(
    attacker: Attacker, plus: Solution, candidates: Iterable[Candidate], nothing_to_try: str
) -> Attack | AttackSkipped:
    """The first candidate that meets the label rule, else a skip that says what was tried.

    Candidates whose bound keeps the rule's value win over earlier ones whose bound was lowered to
    the bound in force (see :func:`attacked_value`).
    """
    family = ATTACKERS[attacker].target
    tried = 0
    fallback: Candidate | None = None
    for candidate in candidates:
        tried += 1
        if not meets_label_rule(candidate.instance, plus, candidate.solution, attacker):
            continue
        if candidate.at_formula:
            return _attack(attacker, candidate)
        fallback = fallback or candidate
    if fallback is not None:
        return _attack(attacker, fallback)
    if tried == 0:
        return AttackSkipped(attacker=attacker, reason=nothing_to_try)
    rules = ATTACKERS[attacker].rules
    broken = family.value if not rules else " or ".join(r.value for r in rules)
    return AttackSkipped(
        attacker=attacker,
        reason=f"none of {tried} candidate probe(s) broke {broken} alone while s+ stayed feasible",
    )


def _attack(attacker: Attacker, candidate: Candidate) -> Attack:
    return Attack(
        attacker=attacker,
        family=ATTACKERS[attacker].target,
        solution=candidate.solution,
        instance=candidate.instance,
        bound=candidate.bound,
    )


def meets_label_rule(instance: Instance, plus: Solution, minus: Solution, attacker: Attacker) -> bool:
    """s+ feasible and s- breaking the attacker's family, or its one rule, alone (``label_problem``)."""
    return check(instance, plus).feasible and label_problem(check(instance, minus), attacker) is None


def label_problem(report: CheckReport, attacker: Attacker) -> str | None:
    """Why the checker's report on a violating probe does not fit its attacker (None: it fits).

    The probe must break the attacker's family alone; a sub-rule attacker's probe must also break
    exactly one rule, one of the attacker's (and, where ``single``, in exactly one violation): a
    model that drops that rule alone and keeps the rest of the family must accept it. The one
    place this rule is written: the attackers, the derived attacks and sample assembly all ask it.
    """
    info = ATTACKERS[attacker]
    if report.families != (info.target,):
        return f"breaks {[f.value for f in report.families]}, not {info.target.value} alone"
    if not info.rules:
        return None
    if len(report.rules) != 1 or report.rules[0] not in info.rules:
        return f"breaks rules {[r.value for r in report.rules]}, not one of {[r.value for r in info.rules]} alone"
    if info.single and len(report.violations) != 1:
        return f"breaks {report.rules[0].value} in {len(report.violations)} places, not in one"
    return None


# ---- plan edits ----------------------------------------------------------------------------------


def shuffled(rng: np.random.Generator, items: Sequence[_T]) -> list[_T]:
    """The items in an order drawn from ``rng`` (the attack's only source of choice)."""
    return [items[i] for i in rng.permutation(len(items))]


def used_routes(solution: Solution) -> list[Route]:
    return [r for r in solution.routes if r.visits]


def units(instance: Instance) -> list[tuple[int, ...]]:
    """What moves as one piece: a customer, or a whole pickup-delivery pair (pickup first), so
    that moving it never breaks pairing or precedence as a side effect."""
    if instance.has(Module.PD):
        return [(p.pickup, p.delivery) for p in instance.pairs]
    return [(c,) for c in instance.customer_nodes]


def units_on(instance: Instance, visits: Sequence[int]) -> list[tuple[int, ...]]:
    """Units whose nodes all lie on the route."""
    on = set(visits)
    return [u for u in units(instance) if all(n in on for n in u)]


def with_route(solution: Solution, route: Route) -> Solution:
    """Replace the route of ``route.vehicle`` (or add it); a route without visits is dropped."""
    others = [r for r in solution.routes if r.vehicle != route.vehicle]
    kept = [*others, route] if route.visits else others
    return Solution(routes=tuple(sorted(kept, key=lambda r: r.vehicle)), cycles=solution.cycles)


def without(solution: Solution, nodes: Iterable[int]) -> Solution:
    """Remove the nodes from every route (with their delivered quantities); empty routes go."""
    gone = set(nodes)
    routes: list[Route] = []
    for route in solution.routes:
        keep = [i for i, v in enumerate(route.visits) if v not in gone]
        if not keep:
            continue
        deliveries = None if route.deliveries is None else tuple(route.deliveries[i] for i in keep)
        visits = tuple(route.visits[i] for i in keep)
        routes.append(route.model_copy(update={"visits": visits, "deliveries": deliveries}))
    return Solution(routes=tuple(routes), cycles=solution.cycles)


def without_quantities(solution: Solution) -> Solution:
    """Split probes are judged on their routes alone: INJ pins arcs, not delivered quantities, so
    the checker must ask whether *any* split fits, not whether the quantities s+ happened to use
    still do."""
    routes = tuple(r.model_copy(update={"deliveries": None}) for r in solution.routes)
    return Solution(routes=routes, cycles=solution.cycles)


def route_families(instance: Instance, route: Route) -> set[Family]:
    """Families the route breaks on its own (coverage is about the rest of the plan, not it)."""
    report = check(instance, Solution(routes=(route,)))
    return {v.family for v in report.violations} - {Family.COVERAGE}


def insert_unit(instance: Instance, route: Route, unit: Sequence[int], tolerated: frozenset[Family]) -> Route:
    """The unit inserted at the shortest position whose route breaks only tolerated families
    (the attack's own), else at the shortest position at all (the attacked copy then widens the
    other bounds). A pair's delivery is never placed before its pickup."""
    slots = range(len(route.visits) + 1)
    placements: list[tuple[int, ...]] = (
        [(i,) for i in slots] if len(unit) == 1 else [(i, j) for i in slots for j in slots if j >= i]
    )
    options: list[tuple[bool, float, Route]] = []
    for positions in placements:
        visits = list(route.visits)
        for shift, (node, position) in enumerate(zip(unit, positions, strict=True)):
            visits.insert(position + shift, node)
        grown = route.model_copy(update={"visits": tuple(visits), "deliveries": None})
        clean = route_families(instance, grown) <= tolerated
        options.append((not clean, route_distance(instance, grown), grown))
    return min(options, key=lambda o: (o[0], o[1]))[2]


def preferred(values: Sequence[float], goal: float) -> list[int]:
    """Indices in the order an attack tries them: values that reach ``goal``, smallest first (an
    overshoot far past the goal would put the tightened bound above the bound already in force),
    then the others, largest first. Equal values keep their order, which the rng drew."""
    reaching = sorted((i for i, v in enumerate(values) if v >= goal), key=lambda i: values[i])
    short = sorted((i for i, v in enumerate(values) if v < goal), key=lambda i: -values[i])
    return reaching + short


def pick(after: Sequence[float], now: float, goal: float) -> int | None:
    """The move to make next: the first in :func:`preferred` order, unless even that one does not
    raise the usage above ``now``."""
    order = preferred(after, goal)
    if not order or (after[order[0]] < goal and after[order[0]] <= now):
        return None
    return order[0]


# ---- bounds on the attacked copy ---------------------------------------------------------------


def attacked_value(g: float, b: float, eps: float, current: float | None) -> tuple[float, bool]:
    """The bound on the attacked copy and whether it is the bound rule's own value.

    The rule's value (:func:`tightened_bound`, in two decimals when that keeps it inside) is used
    unless it lies above the bound already in force: an attack tightens, it never loosens, so the
    bound in force is kept then (it still lies in (g, b) when the caller checks ``value > g``).
    """
    value = tidy(tightened_bound(g, b, eps), g, b, eps)
    if current is not None and current < value:
        return current, False
    return value, True


def tidy(value: float, g: float, b: float, eps: float) -> float:
    """Two decimals, like every stored number, when that keeps the bound eps/2 inside (g, b)."""
    rounded = round(value, 2)
    return rounded if g + eps / 2 <= rounded <= b - eps / 2 else value


def with_capacity(instance: Instance, value: float, vehicle: int | None) -> Instance:
    """Set the capacity of one vehicle, or of the whole (identical) fleet when ``vehicle`` is None."""
    fleet = tuple(
        v.model_copy(update={"capacity": value}) if vehicle is None or k == vehicle else v
        for k, v in enumerate(instance.vehicles)
    )
    return rebuilt(instance, vehicles=fleet)


def with_compartment(instance: Instance, compartment: int, value: float, vehicle: int | None) -> Instance:
    fleet = tuple(
        _compartment_set(v, compartment, value) if vehicle is None or k == vehicle else v
        for k, v in enumerate(instance.vehicles)
    )
    return rebuilt(instance, vehicles=fleet)


def _compartment_set(vehicle: Vehicle, compartment: int, value: float) -> Vehicle:
    limits = list(vehicle.compartment_capacity or ())
    limits[compartment] = value
    return vehicle.model_copy(update={"compartment_capacity": tuple(limits)})


def accommodate(
    instance: Instance, minus: Solution, fixed: BoundKind, compartment: int | None = None
) -> Instance | None:
    """Widen every bound other than the attacked one that s- breaks, so s- breaks only the target.

    ``fixed`` is the attacked kind; for compartments only the attacked ``compartment`` is fixed and
    the others may be widened. Widening never costs s+ its feasibility. None when a window would
    have to end after ``WINDOW_LIMIT``.
    """
    families = check(instance, minus).families
    routes = [r for r in used_routes(minus) if r.vehicle < len(instance.vehicles)]
    out = instance
    if Family.CAPACITY in families and fixed is not BoundKind.CAPACITY and not instance.has(Module.SPLIT):
        out = _fit_capacity(out, routes)
    if Family.COMPARTMENT in families:
        keep = compartment if fixed is BoundKind.COMPARTMENT_CAPACITY else None
        if fixed is not BoundKind.COMPARTMENT_CAPACITY or keep is not None:
            out = _fit_compartments(out, routes, keep)
    if Family.DISTANCE in families and fixed is not BoundKind.MAX_ROUTE_DISTANCE and out.max_route_distance:
        longest = max(route_distance(out, r) for r in routes)
        out = rebuilt(out, max_route_distance=max(out.max_route_distance, round_up(longest)))
    if Family.TIME_WINDOW in families and fixed is not BoundKind.TIME_WINDOW:
        return _fit_windows(out, routes)
    return out


def _fleet_fit(instance: Instance, needs: dict[int, float], current: Sequence[float]) -> list[float]:
    """Per vehicle the raised limit: its own need (heterogeneous), the fleet's top need otherwise."""
    if instance.spec.heterogeneous:
        return [max(c, round_up(needs.get(k, 0.0))) for k, c in enumerate(current)]
    top = round_up(max(needs.values(), default=0.0))
    return [max(c, top) for c in current]


def _fit_capacity(instance: Instance, routes: Sequence[Route]) -> Instance:
    needs = {r.vehicle: capacity_usage(instance, r) for r in routes}
    current = [v.capacity or 0.0 for v in instance.vehicles]
    raised = _fleet_fit(instance, needs, current)
    fleet = tuple(
        v.model_copy(update={"capacity": c}) for v, c in zip(instance.vehicles, raised, strict=True)
    )
    return rebuilt(instance, vehicles=fleet)


def _fit_compartments(instance: Instance, routes: Sequence[Route], keep: int | None) -> Instance:
    loads = {r.vehicle: compartment_loads(instance, r) for r in routes}
    fleet = list(instance.vehicles)
    width = len(fleet[0].compartment_capacity or ())
    for c in range(width):
        if c == keep:
            continue
        current = [(v.compartment_capacity or ())[c] for v in fleet]
        raised = _fleet_fit(instance, {k: load[c] for k, load in loads.items()}, current)
        fleet = [_compartment_set(v, c, value) for v, value in zip(fleet, raised, strict=True)]
    return rebuilt(instance, vehicles=tuple(fleet))


def pool_proof(instance: Instance, minus: Solution, compartment: int) -> Instance:
    """Raise a compartment other than the attacked one until every route of s- fits its vehicle's
    holds taken together.

    s- then breaks the attacked compartment's own capacity and nothing else, so a model that pools
    its compartments into one shared hold accepts it (and is caught), while a model that keeps
    them apart still rejects it. Widening never costs s+ its feasibility.
    """
    fleet = list(instance.vehicles)
    width = len(fleet[0].compartment_capacity or ())
    if width < 2:
        return instance
    other = 1 if compartment == 0 else 0
    needs: dict[int, float] = {}
    for route in used_routes(minus):
        if route.vehicle >= len(fleet):
            continue
        holds = fleet[route.vehicle].compartment_capacity or ()
        deficit = sum(compartment_loads(instance, route)) - sum(holds)
        if deficit > 0:
            needs[route.vehicle] = holds[other] + deficit
    if not needs:
        return instance
    current = [(v.compartment_capacity or ())[other] for v in fleet]
    raised = _fleet_fit(instance, needs, current)
    return rebuilt(instance, vehicles=tuple(_compartment_set(v, other, value) for v, value in zip(fleet, raised, strict=True)))


def _fit_windows(instance: Instance, routes: Sequence[Route]) -> Instance | None:
    """Move late window ends (and depot closings) out to the starts s- needs; the earliest
    schedule does not depend on window ends, so one pass suffices. A depot never closes before a
    customer window does (open routes have no return to push it)."""
    ends = {
        c: cust.window.end
        for c, cust in zip(instance.customer_nodes, instance.customers, strict=True)
        if cust.window
    }
    depot_ends = {d: dep.window.end for d, dep in enumerate(instance.depots) if dep.window}
    raised: list[float] = []
    for route in routes:
        for visit, start in zip(route.visits, schedule(instance, route), strict=True):
            if visit in ends and start > ends[visit]:
                ends[visit] = round_up(start)
                raised.append(ends[visit])
        back = return_time(instance, route)
        if not instance.has(Module.OPEN) and route.depot in depot_ends and back > depot_ends[route.depot]:
            depot_ends[route.depot] = round_up(back)
            raised.append(depot_ends[route.depot])
    if any(end > WINDOW_LIMIT for end in raised):
        return None
    latest = max(ends.values(), default=0.0)
    depot_ends = {d: max(end, latest) for d, end in depot_ends.items()}
    customers = tuple(
        cust.model_copy(update={"window": TimeWindow(start=cust.window.start, end=ends[c])})
        if cust.window
        else cust
        for c, cust in zip(instance.customer_nodes, instance.customers, strict=True)
    )
    depots = tuple(
        dep.model_copy(update={"window": TimeWindow(start=dep.window.start, end=depot_ends[d])})
        if dep.window
        else dep
        for d, dep in enumerate(instance.depots)
    )
    return rebuilt(instance, customers=customers, depots=depots)

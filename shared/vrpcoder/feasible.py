"""The feasible probe s+: a route plan every correct model of the instance must accept.

The probe only has to be feasible, not good, so it comes from a cheap construction heuristic
(nearest neighbour, then slack-first insertion of leftovers) and only falls back to a time-limited
gold solve when the heuristic gets stuck. Every step of the heuristic asks the independent checker
whether the route it is growing is still legal, so each variant's resources (capacity, linehaul
and backhaul loads, on-board load, compartments, distance limit, hard windows and the horizon,
backhaul order, pickup-before-delivery, vehicle depots, open routes, vehicle-specific capacities)
are enforced through one code path, the same one that later judges the probe. Whatever the source,
a plan is returned only after the checker found it fully feasible.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from vrpcoder.checker import check, compartment_loads, return_time, route_cost, route_distance, schedule
from vrpcoder.families import Family
from vrpcoder.gold import solve_gold
from vrpcoder.instances import Instance
from vrpcoder.relaxation import capacity_usage
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import Module

FALLBACK_MIP_FOCUS = 1
"""Gurobi's MIPFocus for the fallback solve: look for any feasible plan first (paper, App. B.3)."""
TOLERANCE = 1e-9


class FeasibleProbe(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    solution: Solution
    source: Literal["heuristic", "gold_fallback"]


def feasible_probe(instance: Instance, *, fallback_time_limit: float = 15.0) -> FeasibleProbe | None:
    """s+ from the heuristic, else from a short gold solve; None when neither gives a checked plan.

    The gold fallback is judged by the checker like the heuristic's plan: a time-limited solve may
    stop on a plan the extraction cannot read back, and such a plan must not become a probe.
    """
    if fallback_time_limit <= 0:
        raise ValueError(f"fallback_time_limit must be positive, got {fallback_time_limit}")
    plan = construct_feasible(instance)
    if plan is not None:
        return FeasibleProbe(solution=plan, source="heuristic")
    result = solve_gold(instance, time_limit=fallback_time_limit, threads=1, mip_focus=FALLBACK_MIP_FOCUS)
    if result.solution is not None and check(instance, result.solution).feasible:
        return FeasibleProbe(solution=result.solution, source="gold_fallback")
    return None


def construct_feasible(instance: Instance) -> Solution | None:
    """A checker-feasible plan built without a solver, or None when the heuristic gets stuck.

    The nearest-neighbour pass fills the vehicles one after another. It first runs with a quota
    (each vehicle takes about an equal share of the customers, at least two, before the next one
    starts), because most attacks need a plan that uses several vehicles: with a single route
    there is no customer to move between routes. Without the quota it runs next, then, for
    heterogeneous fleets, with the largest vehicles first, since filling small vehicles first can
    strand a heavy customer. When all of these leave a customer that fits nowhere, a parallel
    insertion (hardest units first, each at its cheapest legal position over all routes) gets a
    last try: it places tight units before the easy ones use up the room they need.
    """
    for plan in _attempts(instance):
        if plan is not None and check(instance, plan).feasible:
            return plan
    return None


def _attempts(instance: Instance) -> Iterator[Solution | None]:
    """Candidate plans in order of preference, built lazily (the first feasible one wins)."""
    orders = _vehicle_orders(instance)
    share = max(2, -(-len(_units(instance)) // len(instance.vehicles)))
    if len(instance.vehicles) > 1:
        yield _construct(instance, orders[0], share)
    for order in orders:
        yield _construct(instance, order, None)
    yield _parallel_insertion(instance)


# ---- units of insertion ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Unit:
    """What is inserted in one step: a customer, or a pickup-delivery pair (pickup first)."""

    nodes: tuple[int, ...]


def _units(instance: Instance) -> list[_Unit]:
    if instance.has(Module.PD):
        return [_Unit((p.pickup, p.delivery)) for p in instance.pairs]
    return [_Unit((c,)) for c in instance.customer_nodes]


def _vehicle_orders(instance: Instance) -> list[tuple[int, ...]]:
    by_index = tuple(range(len(instance.vehicles)))
    if not instance.spec.heterogeneous:
        return [by_index]
    largest_first = tuple(sorted(by_index, key=lambda k: (-(instance.vehicles[k].capacity or 0.0), k)))
    return [by_index] if largest_first == by_index else [by_index, largest_first]


# ---- route under construction ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Draft:
    """A route being built: visits and, for split delivery, the quantity dropped at each visit."""

    vehicle: int
    depot: int
    visits: tuple[int, ...] = ()
    amounts: tuple[float, ...] = ()

    def route(self, instance: Instance) -> Route:
        deliveries = self.amounts if instance.has(Module.SPLIT) else None
        return Route(vehicle=self.vehicle, depot=self.depot, visits=self.visits, deliveries=deliveries)

    def inserted(self, nodes: Sequence[int], positions: Sequence[int], amounts: Sequence[float]) -> _Draft:
        """Insert ``nodes[i]`` before the current visit ``positions[i]`` (positions ascending)."""
        visits, quantities = list(self.visits), list(self.amounts)
        for shift, (node, position, amount) in enumerate(zip(nodes, positions, amounts, strict=True)):
            visits.insert(position + shift, node)
            quantities.insert(position + shift, amount)
        return _Draft(self.vehicle, self.depot, tuple(visits), tuple(quantities))


def _legal(instance: Instance, draft: _Draft) -> bool:
    """The route alone breaks nothing but coverage (customers not inserted yet are unvisited)."""
    report = check(instance, Solution(routes=(draft.route(instance),)))
    return all(v.family is Family.COVERAGE for v in report.violations)


def _full_amounts(instance: Instance, nodes: Sequence[int]) -> tuple[float, ...]:
    return tuple(instance.customer(n).demand for n in nodes)


def _appended(instance: Instance, draft: _Draft, unit: _Unit) -> _Draft:
    end = len(draft.visits)
    return draft.inserted(unit.nodes, (end,) * len(unit.nodes), _full_amounts(instance, unit.nodes))


def _placements(draft: _Draft, unit: _Unit) -> Iterator[tuple[int, ...]]:
    """Insertion positions for the unit's nodes, the delivery of a pair never before its pickup."""
    slots = range(len(draft.visits) + 1)
    if len(unit.nodes) == 1:
        yield from ((i,) for i in slots)
        return
    yield from ((i, j) for i in slots for j in slots if j >= i)


def _cheapest_insertion(
    instance: Instance, draft: _Draft, unit: _Unit, amounts: Sequence[float]
) -> _Draft | None:
    best: tuple[float, _Draft] | None = None
    for positions in _placements(draft, unit):
        grown = draft.inserted(unit.nodes, positions, amounts)
        if not _legal(instance, grown):
            continue
        cost = route_cost(instance, grown.route(instance))
        if best is None or cost < best[0] - TOLERANCE:
            best = (cost, grown)
    return None if best is None else best[1]


# ---- the construction ------------------------------------------------------------------------


def _construct(instance: Instance, order: Sequence[int], quota: int | None) -> Solution | None:
    """Nearest neighbour vehicle by vehicle (at most ``quota`` units each when given), then the
    leftovers by slack."""
    drafts = {k: _Draft(k, instance.vehicles[k].depot) for k in order}
    pending = _units(instance)
    for k in order:
        drafts[k], pending = _nearest_neighbour(instance, drafts[k], pending, quota)
    for unit in pending:
        placed = _insert_leftover(instance, drafts, unit)
        if placed is None:
            return None
        drafts = placed
    routes = tuple(drafts[k].route(instance) for k in sorted(drafts) if drafts[k].visits)
    return Solution(routes=routes)


def _parallel_insertion(instance: Instance) -> Solution | None:
    drafts = {k: _Draft(k, v.depot) for k, v in enumerate(instance.vehicles)}
    for unit in sorted(_units(instance), key=lambda u: _difficulty(instance, u)):
        placed = _insert_cheapest_anywhere(instance, drafts, unit)
        if placed is None:
            return None
        drafts = placed
    return Solution(routes=tuple(drafts[k].route(instance) for k in sorted(drafts) if drafts[k].visits))


def _difficulty(instance: Instance, unit: _Unit) -> tuple[float, float, int]:
    """Sort key, hardest first: the earliest window end, then the largest quantity."""
    first = instance.customer(unit.nodes[0])
    closes = first.window.end if first.window is not None and instance.has(Module.HTW) else 0.0
    weight = sum(instance.customer(n).demand for n in unit.nodes)
    weight += sum(p.quantity for p in instance.pairs if p.pickup == unit.nodes[0])
    return (closes, -weight, unit.nodes[0])


def _insert_cheapest_anywhere(
    instance: Instance, drafts: dict[int, _Draft], unit: _Unit
) -> dict[int, _Draft] | None:
    amounts = _full_amounts(instance, unit.nodes)
    best: tuple[float, int, _Draft] | None = None
    for k in sorted(drafts):
        grown = _cheapest_insertion(instance, drafts[k], unit, amounts)
        if grown is None:
            continue
        before = route_cost(instance, drafts[k].route(instance)) if drafts[k].visits else 0.0
        increase = route_cost(instance, grown.route(instance)) - before
        if best is None or increase < best[0] - TOLERANCE:
            best = (increase, k, grown)
    if best is not None:
        return {**drafts, best[1]: best[2]}
    if instance.has(Module.SPLIT):
        return _split_over_routes(instance, drafts, unit.nodes[0])
    return None


def _nearest_neighbour(
    instance: Instance, draft: _Draft, pending: list[_Unit], quota: int | None
) -> tuple[_Draft, list[_Unit]]:
    """Grow one route by the nearest unit that keeps it legal until none does.

    With time windows "nearest" means earliest service start, which is what keeps a route of
    windowed customers feasible for longest; otherwise it is the distance from the last stop.
    """
    left = list(pending)
    taken = 0
    while left and (quota is None or taken < quota):
        options = []
        for index, unit in enumerate(left):
            grown = _appended(instance, draft, unit)
            if _legal(instance, grown):
                options.append((_nearness(instance, draft, grown, unit), index, grown))
        if not options:
            break
        _, index, draft = min(options, key=lambda o: (o[0], o[1]))
        left.pop(index)
        taken += 1
    return draft, left


def _nearness(instance: Instance, before: _Draft, after: _Draft, unit: _Unit) -> float:
    if instance.has(Module.HTW) or instance.has(Module.STW):
        return schedule(instance, after.route(instance))[len(before.visits)]
    last = before.visits[-1] if before.visits else before.depot
    return instance.distances[last][unit.nodes[0]]


def _insert_leftover(instance: Instance, drafts: dict[int, _Draft], unit: _Unit) -> dict[int, _Draft] | None:
    """Cheapest legal position in the route with the most slack that has one; split delivery may
    instead spread the customer's demand over the routes with spare capacity."""
    ranked = sorted(drafts, key=lambda k: (-_slack(instance, drafts[k]), k))
    amounts = _full_amounts(instance, unit.nodes)
    for k in ranked:
        grown = _cheapest_insertion(instance, drafts[k], unit, amounts)
        if grown is not None:
            return {**drafts, k: grown}
    if instance.has(Module.SPLIT):
        return _split_over_routes(instance, drafts, unit.nodes[0])
    return None


def _split_over_routes(
    instance: Instance, drafts: dict[int, _Draft], customer: int
) -> dict[int, _Draft] | None:
    rest = instance.customer(customer).demand
    out = dict(drafts)
    ranked = sorted(out, key=lambda k: (-_spare_capacity(instance, out[k]), k))
    for k in ranked:
        spare = _spare_capacity(instance, out[k])
        if rest <= TOLERANCE:
            break
        if spare <= TOLERANCE:
            continue
        amount = min(spare, rest)
        grown = _cheapest_insertion(instance, out[k], _Unit((customer,)), (amount,))
        if grown is not None:
            out[k] = grown
            rest -= amount
    return out if rest <= TOLERANCE else None


def _spare_capacity(instance: Instance, draft: _Draft) -> float:
    capacity = instance.vehicles[draft.vehicle].capacity
    return float("inf") if capacity is None else capacity - sum(draft.amounts)


def _slack(instance: Instance, draft: _Draft) -> float:
    """Smallest remaining share of any bounded resource of the route (1 for an empty route)."""
    if not draft.visits:
        return 1.0
    route = draft.route(instance)
    vehicle = instance.vehicles[draft.vehicle]
    shares = [1.0]
    if vehicle.capacity is not None:
        shares.append(1.0 - capacity_usage(instance, route) / vehicle.capacity)
    for load, limit in zip(
        compartment_loads(instance, route), vehicle.compartment_capacity or (), strict=False
    ):
        shares.append(1.0 - load / limit if limit > 0 else 0.0)
    if instance.max_route_distance is not None:
        shares.append(1.0 - route_distance(instance, route) / instance.max_route_distance)
    window = instance.depots[draft.depot].window
    if instance.has(Module.HTW) and window is not None and window.end > 0:
        shares.append(1.0 - return_time(instance, route) / window.end)
    return min(shares)


# ---- a small set of far-apart feasible probes (issue 14, item 3) -------------------------------


MAX_EXTRA_FEASIBLE = 4
"""Feasible probes a sample carries besides s+: each costs one INJ query per verification."""


def diverse_feasible(instance: Instance, plus: Solution) -> list[tuple[str, Solution]]:
    """Feasible plans far from s+ and from each other, named by what sets them apart.

    One feasible probe catches a spurious rule only if that probe happens to cross it: a model
    that forces every vehicle out of its depot accepts an s+ that uses the whole fleet. So a
    sample also carries the plan with the fewest vehicles the construction finds, one that spreads
    the customers over the most vehicles, and the plan near s+ that uses its resources most tightly
    (the fullest route, the least window slack, the longest route against the limit): a model with
    a tightened window or a reduced capacity rejects it. Every plan is checked feasible here and
    labelled again by the gold script where samples are assembled; duplicates of s+ (same arcs)
    are left out.
    """
    found: list[tuple[str, Solution]] = []
    seen = {_arc_signature(plus)}

    def add(name: str, plan: Solution | None) -> None:
        if plan is None or not check(instance, plan).feasible:
            return
        signature = _arc_signature(plan)
        if signature in seen:
            return
        seen.add(signature)
        found.append((name, plan))

    fewest = _fewest_vehicles(instance, plus)
    if fewest is not None and _used(fewest) < _used(plus):
        add("fewest_vehicles", fewest)
    most = _most_vehicles(instance, plus)
    if _used(most) > _used(plus):
        add("most_vehicles", most)
    for name, plan in _tightest(instance, plus):
        add(name, plan)
    return found[:MAX_EXTRA_FEASIBLE]


def _used(plan: Solution) -> int:
    return sum(1 for r in plan.routes if r.visits)


def _arc_signature(plan: Solution) -> frozenset[tuple[int, int, int]]:
    """What INJ can tell apart about a plan: its arcs and the routes' starting depots."""
    return frozenset((r.depot, *arc) for r in plan.routes if r.visits for arc in r.arcs)


def _fewest_vehicles(instance: Instance, plus: Solution) -> Solution | None:
    """The heuristic's plans without the quota, and s+ with routes merged while that stays feasible;
    whichever uses the fewest vehicles."""
    options = [p for p in (_construct(instance, order, None) for order in _vehicle_orders(instance)) if p is not None]
    options.append(_merged(instance, plus))
    feasible = [p for p in options if check(instance, p).feasible]
    return min(feasible, key=_used) if feasible else None


def _merged(instance: Instance, plan: Solution) -> Solution:
    """Empty the lightest route into the others (each unit at its cheapest legal position) for as
    long as that keeps the plan feasible."""
    current = plan
    while True:
        routes = [r for r in current.routes if r.visits]
        if len(routes) < 2:
            return current
        drafts = {r.vehicle: _Draft(r.vehicle, r.depot, r.visits, _full_amounts(instance, r.visits)) for r in routes}
        lightest = min(routes, key=lambda r: (len(r.visits), r.vehicle))
        del drafts[lightest.vehicle]
        for unit in _units_of(instance, lightest.visits):
            placed = _insert_cheapest_anywhere(instance, drafts, unit)
            if placed is None:
                return current
            drafts = placed
        merged = Solution(routes=tuple(drafts[k].route(instance) for k in sorted(drafts) if drafts[k].visits))
        if not check(instance, merged).feasible:
            return current
        current = merged


def _units_of(instance: Instance, visits: Sequence[int]) -> list[_Unit]:
    on = set(visits)
    return [u for u in _units(instance) if all(n in on for n in u.nodes)]


def _most_vehicles(instance: Instance, plus: Solution) -> Solution:
    """s+ with units moved from the longest routes onto idle vehicles while that stays feasible."""
    current = plus
    for k, vehicle in enumerate(instance.vehicles):
        if current.route_of(k) is not None:
            continue
        donors = sorted((r for r in current.routes if len(r.visits) > 1), key=lambda r: -len(r.visits))
        for donor in donors:
            moved = _moved_to_idle(instance, current, donor, k, vehicle.depot)
            if moved is not None:
                current = moved
                break
    return current


def _moved_to_idle(instance: Instance, plan: Solution, donor: Route, vehicle: int, depot: int) -> Solution | None:
    for unit in _units_of(instance, donor.visits):
        rest = tuple(v for v in donor.visits if v not in unit.nodes)
        if not rest:
            continue
        amounts = _full_amounts(instance, unit.nodes)
        deliveries = _full_amounts(instance, rest) if instance.has(Module.SPLIT) else None
        shrunk = donor.model_copy(update={"visits": rest, "deliveries": deliveries})
        fresh = Route(vehicle=vehicle, depot=depot, visits=unit.nodes, deliveries=amounts if instance.has(Module.SPLIT) else None)
        routes = sorted([*(r for r in plan.routes if r.vehicle != donor.vehicle), shrunk, fresh], key=lambda r: r.vehicle)
        candidate = Solution(routes=tuple(routes))
        if check(instance, candidate).feasible:
            return candidate
    return None


def _shares(instance: Instance, plan: Solution) -> dict[str, float]:
    """Per resource, the smallest share of it that a route of the plan leaves unused (1 if none)."""
    shares = {"fullest": 1.0, "longest": 1.0, "tightest_window": 1.0}
    for route in (r for r in plan.routes if r.visits):
        vehicle = instance.vehicles[route.vehicle]
        if vehicle.capacity is not None and not instance.has(Module.SPLIT):
            shares["fullest"] = min(shares["fullest"], 1.0 - capacity_usage(instance, route) / vehicle.capacity)
        for load, limit in zip(compartment_loads(instance, route), vehicle.compartment_capacity or (), strict=False):
            shares["fullest"] = min(shares["fullest"], 1.0 - load / limit if limit > 0 else 0.0)
        if instance.max_route_distance is not None:
            shares["longest"] = min(shares["longest"], 1.0 - route_distance(instance, route) / instance.max_route_distance)
        if instance.has(Module.HTW):
            horizon = max((d.window.end for d in instance.depots if d.window is not None), default=1.0) or 1.0
            for visit, start in zip(route.visits, schedule(instance, route), strict=True):
                window = instance.customer(visit).window
                if window is not None:
                    shares["tightest_window"] = min(shares["tightest_window"], (window.end - start) / horizon)
    return shares


def _tightest(instance: Instance, plus: Solution) -> list[tuple[str, Solution]]:
    """Per resource (load, route length, window slack), the feasible plan near s+ that leaves the
    least of it unused, where that is less than s+ leaves: a model that tightens that resource
    (a reduced capacity, service that must end before the window closes) rejects it."""
    from vrpcoder.attacks.boundary import neighbours, piles  # the attack toolkit builds on this module

    base = _shares(instance, plus)
    candidates = list(neighbours(instance, plus))
    if any(v.capacity is not None for v in instance.vehicles) and not instance.has(Module.SPLIT):
        candidates += piles(instance, plus, capacity_usage, lambda i, r: i.vehicles[r.vehicle].capacity or 0.0)
    if instance.max_route_distance is not None:
        candidates += piles(instance, plus, route_distance, lambda i, r: i.max_route_distance or 0.0)
    best: dict[str, tuple[float, Solution]] = {}
    for plan in candidates:
        if not check(instance, plan).feasible:
            continue
        for name, value in _shares(instance, plan).items():
            if value < base[name] - 1e-9 and (name not in best or value < best[name][0] - 1e-9):
                best[name] = (value, plan)
    return [(name, best[name][1]) for name in ("fullest", "tightest_window", "longest") if name in best]

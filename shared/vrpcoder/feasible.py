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

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

from pydantic import BaseModel, ConfigDict

from vrpcoder.checker import (
    check,
    compartment_loads,
    path_length,
    return_time,
    route_cost,
    route_distance,
    schedule,
)
from vrpcoder.families import Family
from vrpcoder.gold import solve_gold
from vrpcoder.instances import Instance, TimeWindow, Vehicle
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
"""Far-apart feasible probes a sample carries besides s+ (fewest and most vehicles, fullest route,
tightest window slack): each costs one INJ query per verification. The plans that exercise a
freedom of the rules (``FREEDOMS``, the longest route, every vehicle type) come on top of these."""
FREEDOM_MARGIN = 0.01
"""A plan uses a freedom by at least this much (a late start, a wait, a closed return past the
horizon): a hundredth of a unit, the data's resolution, far above any solver's tolerance, so a model
that forbids the freedom rejects the plan whatever its tolerances."""


def diverse_feasible(instance: Instance, plus: Solution) -> list[tuple[str, Solution]]:
    """Feasible plans far from s+ and from each other, named by what sets them apart.

    One feasible probe catches a spurious rule only if that probe happens to cross it: a model
    that forces every vehicle out of its depot accepts an s+ that uses the whole fleet. So a
    sample also carries the plan with the fewest vehicles the construction finds, one that spreads
    the customers over the most vehicles, and the plan near s+ that uses its resources most tightly
    (the fullest route, the least window slack, the longest route against the limit): a model with
    a tightened window or a reduced capacity rejects it. Then, for every freedom the variant's rules
    allow (``FREEDOMS``: a split delivery, a late service, a wait, a wait that makes a later
    customer late, an open route that could not have closed; and on mixed fleets a route on every
    vehicle type and each type loaded past a smaller type's limits, ``type_loads``) that none of
    these plans uses, a plan that uses it, wherever the instance admits one. Every plan is checked feasible here and
    labelled again by the gold script where samples are assembled; duplicates of s+ (same arcs)
    are left out.
    """
    from vrpcoder.attacks.boundary import neighbours  # the attack toolkit builds on this module

    found: list[tuple[str, Solution]] = []
    seen = {_arc_signature(instance, plus)}

    def add(name: str, plan: Solution | None) -> None:
        if plan is None or not check(instance, plan).feasible:
            return
        signature = _arc_signature(instance, plan)
        if signature in seen:
            return
        seen.add(signature)
        found.append((name, plan))

    near = [plan for plan in neighbours(instance, plus) if check(instance, plan).feasible]
    fewest = _fewest_vehicles(instance, plus)
    if fewest is not None and _used(fewest) < _used(plus):
        add("fewest_vehicles", fewest)
    most = _most_vehicles(instance, plus)
    if _used(most) > _used(plus):
        add("most_vehicles", most)
    tightest = dict(_tightest(instance, plus, near))
    for name in ("fullest", "tightest_window"):
        add(name, tightest.get(name))
    del found[MAX_EXTRA_FEASIBLE:]
    add("longest", tightest.get("longest"))
    for freedom in FREEDOMS:
        if freedom.allowed(instance) and not any(freedom.used(instance, p) for p in (plus, *(q for _, q in found))):
            add(freedom.name, freedom.find(instance, plus, near))
    add(EVERY_VEHICLE_TYPE, _every_vehicle_type(instance, plus, [q for _, q in found]))
    for name, plan in type_loads(instance, plus, near, [plus, *(q for _, q in found)]):
        add(name, plan)
    return found


def _used(plan: Solution) -> int:
    return sum(1 for r in plan.routes if r.visits)


def _arc_signature(instance: Instance, plan: Solution) -> frozenset[tuple[int, ...]]:
    """What INJ can tell apart about a plan: its arcs and the routes' starting depots, and on mixed
    fleets the vehicle of each arc (their probes are written on the vehicle index)."""
    def who(route: Route) -> tuple[int, ...]:
        return (route.depot, route.vehicle) if instance.spec.heterogeneous else (route.depot,)

    return frozenset((*who(r), *arc) for r in plan.routes if r.visits for arc in r.arcs)


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


def _tightest(instance: Instance, plus: Solution, near: Sequence[Solution]) -> list[tuple[str, Solution]]:
    """Per resource (load, route length, window slack), the feasible plan near s+ that leaves the
    least of it unused, where that is less than s+ leaves: a model that tightens that resource
    (a reduced capacity, service that must end before the window closes) rejects it. ``near`` are
    the feasible plans one move from s+."""
    from vrpcoder.attacks.boundary import piles  # the attack toolkit builds on this module

    base = _shares(instance, plus)
    candidates: list[Solution] = []
    if any(v.capacity is not None for v in instance.vehicles) and not instance.has(Module.SPLIT):
        candidates += piles(instance, plus, capacity_usage, lambda i, r: i.vehicles[r.vehicle].capacity or 0.0)
    if instance.max_route_distance is not None:
        candidates += piles(instance, plus, route_distance, lambda i, r: i.max_route_distance or 0.0)
    best: dict[str, tuple[float, Solution]] = {}
    for plan in [*near, *(p for p in candidates if check(instance, p).feasible)]:
        for name, value in _shares(instance, plan).items():
            if value < base[name] - 1e-9 and (name not in best or value < best[name][0] - 1e-9):
                best[name] = (value, plan)
    return [(name, best[name][1]) for name in ("fullest", "tightest_window", "longest") if name in best]


# ---- plans that use a freedom the rules allow (issue 28, item 3) --------------------------------


Extent = Callable[[Instance, Solution], float]
Search = Callable[[Instance, Solution, Sequence[Solution]], Solution | None]


@dataclass(frozen=True, slots=True)
class Freedom:
    """Something the rules of a module allow that a plausible wrong model forbids.

    A feasible plan that uses it is the only probe that tells the two apart: a model that never
    splits a delivery, or treats soft windows as hard, accepts every feasible plan that does not
    split or is never late, and with it s+ and every violating probe. ``extent`` says how far a
    plan uses the freedom (0 when not at all); ``find`` looks for a plan that uses it."""

    name: str
    """The probe's variety (``s+:<name>``)."""
    needs: frozenset[Module]
    """The freedom exists on instances with all of these modules ..."""
    and_any: frozenset[Module]
    """... and at least one of these (where not empty)."""
    extent: Extent
    find: Search

    def allowed(self, instance: Instance) -> bool:
        spec = instance.spec
        return all(spec.has(m) for m in self.needs) and (not self.and_any or any(spec.has(m) for m in self.and_any))

    def used(self, instance: Instance, plan: Solution) -> bool:
        return self.extent(instance, plan) >= FREEDOM_MARGIN


def _widest(extent: Extent) -> Search:
    """Search the plans one move from s+ for the one that uses the freedom most."""

    def find(instance: Instance, plus: Solution, near: Sequence[Solution]) -> Solution | None:
        best = max(near, key=lambda plan: extent(instance, plan), default=None)
        return best if best is not None and extent(instance, best) >= FREEDOM_MARGIN else None

    return find


def _arrivals(instance: Instance, route: Route) -> list[float]:
    """Arrival at each visit under the earliest schedule (``schedule`` gives the service starts;
    a start later than its arrival is a wait for the window to open)."""
    starts = schedule(instance, route)
    out: list[float] = []
    window = instance.depots[route.depot].window
    node, ready = route.depot, (0.0 if window is None else window.start)
    for visit, start in zip(route.visits, starts, strict=True):
        out.append(ready + instance.distances[node][visit])
        node, ready = visit, start + instance.customer(visit).service_time
    return out


def lateness(instance: Instance, plan: Solution) -> float:
    """The latest service start past its window's close over the plan (soft windows price it)."""
    return _worst_visit(instance, plan, schedule, lambda window, start: start - window.end)


def waiting(instance: Instance, plan: Solution) -> float:
    """The longest wait for a window to open over the plan (arrival before the window opens)."""
    return _worst_visit(instance, plan, _arrivals, lambda window, arrival: window.start - arrival)


def _worst_visit(
    instance: Instance,
    plan: Solution,
    times: Callable[[Instance, Route], list[float]],
    gap: Callable[[TimeWindow, float], float],
) -> float:
    """The largest ``gap(window, time)`` over the plan's windowed visits (0 when none is positive)."""
    worst = 0.0
    for route in (r for r in plan.routes if r.visits):
        for visit, time in zip(route.visits, times(instance, route), strict=True):
            window = instance.customer(visit).window
            if window is not None:
                worst = max(worst, gap(window, time))
    return worst


def closed_excess(instance: Instance, plan: Solution) -> float:
    """How far the plan's open routes would break a rule had they to drive back to their depot:
    the latest return past the depot's close (hard windows), or the longest closed route past the
    distance limit. Positive only where the plan is feasible *because* its routes are open."""
    excess = 0.0
    for route in (r for r in plan.routes if r.visits):
        closed = path_length(instance, [route.depot, *route.visits, route.depot])
        if instance.max_route_distance is not None:
            excess = max(excess, closed - instance.max_route_distance)
        window = instance.depots[route.depot].window
        if window is not None and instance.has(Module.HTW):
            excess = max(excess, return_time(instance, route) - window.end)
    return excess


def split_customers(instance: Instance, plan: Solution) -> float:
    """Customers served by more than one route."""
    visits = Counter(c for r in plan.routes if r.visits for c in set(r.visits))
    return float(sum(1 for n in visits.values() if n > 1))


def _split_delivery(instance: Instance, plus: Solution, _near: Sequence[Solution]) -> Solution | None:
    """s+ with part of one customer's delivery handed to a second vehicle (a route with room, or an
    idle vehicle), the cheapest such plan: half the customer's quantity, or the room there is."""
    routes = [r for r in plus.routes if r.visits]
    stated = {
        r.vehicle: r.deliveries if r.deliveries is not None else _full_amounts(instance, r.visits) for r in routes
    }
    busy = {r.vehicle for r in routes}
    idle = [Route(vehicle=k, depot=v.depot, visits=(), deliveries=()) for k, v in enumerate(instance.vehicles) if k not in busy]
    best: tuple[float, Solution] | None = None
    for donor in routes:
        for index, customer in enumerate(donor.visits):
            amount = stated[donor.vehicle][index]
            for receiver in [*(r for r in routes if r.vehicle != donor.vehicle), *idle]:
                if customer in receiver.visits:
                    continue
                room = instance.vehicles[receiver.vehicle].capacity
                given = stated.get(receiver.vehicle, ())
                spare = float("inf") if room is None else room - sum(given)
                share = min(spare, amount / 2)
                if share < FREEDOM_MARGIN:
                    continue
                kept = tuple(q - share if i == index else q for i, q in enumerate(stated[donor.vehicle]))
                shrunk = donor.model_copy(update={"deliveries": kept})
                draft = _Draft(receiver.vehicle, receiver.depot, receiver.visits, tuple(given))
                grown = _cheapest_insertion(instance, draft, _Unit((customer,)), (share,))
                if grown is None:
                    continue
                others = [r for r in routes if r.vehicle not in (donor.vehicle, receiver.vehicle)]
                plan = Solution(routes=tuple(sorted([*others, shrunk, grown.route(instance)], key=lambda r: r.vehicle)))
                report = check(instance, plan)
                if report.feasible and (best is None or report.cost < best[0] - TOLERANCE):
                    best = (report.cost, plan)
    return None if best is None else best[1]


MAX_RESEQUENCED_VISITS = 6
"""Routes of s+ up to this many visits are tried in every order by the costly-wait search (720
orders at most; the checker leaves out those that break a rule, such as a pair delivered before its
pickup)."""


def _cheapest_with_early_starts(instance: Instance, route: Route) -> float:
    """The route's least soft-window price when service may also start before a window opens, at
    the customer's late penalty per time unit early (lateness plus earliness).

    It is a small linear programme on a chain (each start at least the previous start, service and
    leg later; the first at least the drive from the depot), solved exactly without a solver: at an
    optimal vertex every start is tied through a run of back-to-back visits either to the first
    possible start or to some customer's window opening or closing. Measured in "time at the first
    visit" (the start minus the drive and service before it), those ties give at most 2n + 1 values,
    and the starts' values never decrease along the route; a dynamic programme over them finds the
    cheapest choice."""
    visits = route.visits
    window = instance.depots[route.depot].window
    first = (0.0 if window is None else window.start) + instance.distances[route.depot][visits[0]]
    offset = [0.0]
    for a, b in zip(visits, visits[1:], strict=False):
        offset.append(offset[-1] + instance.customer(a).service_time + instance.distances[a][b])
    anchors = {first}
    for position, visit in enumerate(visits):
        w = instance.customer(visit).window
        if w is not None:
            anchors |= {w.start - offset[position], w.end - offset[position]}
    values = sorted(a for a in anchors if a >= first - TOLERANCE)

    def price(position: int, start: float) -> float:
        customer = instance.customer(visits[position])
        w = customer.window
        if w is None:
            return 0.0
        return (customer.late_penalty or 0.0) * (max(0.0, start - w.end) + max(0.0, w.start - start))

    # later[j]: the cheapest price of the visits from here on, their anchors at least values[j]
    later = [0.0] * len(values)
    for position in reversed(range(len(visits))):
        here = [price(position, value + offset[position]) + later[j] for j, value in enumerate(values)]
        running = float("inf")
        for j in reversed(range(len(values))):
            running = min(running, here[j])
            here[j] = running
        later = here
    return later[0]


def costly_wait(instance: Instance, plan: Solution) -> float:
    """How much cheaper the plan would be if a vehicle could start service before a window opens,
    paying each customer's late penalty per time unit early, instead of waiting (soft windows).

    Under soft windows waiting is free but forced: a vehicle that arrives early waits, and a later
    customer may be late because of it. A model that prices earliness instead of forbidding it (or
    starts service on arrival) then prices the plan lower, while on a plan whose waits delay nobody
    it agrees with the rules. The sum over the plan's routes: exactly what such a model's price of
    the plan falls short of the rules' price."""
    total = 0.0
    for route in (r for r in plan.routes if r.visits):
        if waiting(instance, Solution(routes=(route,))) <= TOLERANCE:
            continue  # no vehicle arrives early: no start can move before its arrival
        forced = sum(
            (instance.customer(v).late_penalty or 0.0) * max(0.0, start - w.end)
            for v, start in zip(route.visits, schedule(instance, route), strict=True)
            if (w := instance.customer(v).window) is not None
        )
        total += max(0.0, forced - _cheapest_with_early_starts(instance, route))
    return total


def _costly_wait_plan(instance: Instance, plus: Solution, near: Sequence[Solution]) -> Solution | None:
    """Among plans near s+, every order of each route of s+, and s+ with two customers served back
    to back (one anywhere, the other right after it, on any route or an idle vehicle), the feasible
    plan whose waits cost the most lateness (``costly_wait``): a wait that makes the next customer
    late needs the two visits in a row, which one move from s+ rarely gives."""
    from vrpcoder.attacks.boundary import back_to_back, resequenced  # the attack toolkit builds on this module

    candidates = [*near, *resequenced(plus, MAX_RESEQUENCED_VISITS), *back_to_back(instance, plus)]
    best: tuple[float, Solution] | None = None
    for plan in candidates:
        value = costly_wait(instance, plan)
        if value >= FREEDOM_MARGIN and (best is None or value > best[0] + TOLERANCE) and check(instance, plan).feasible:
            best = (value, plan)
    return None if best is None else best[1]


_NONE: frozenset[Module] = frozenset()

FREEDOMS: tuple[Freedom, ...] = (
    Freedom("split_delivery", frozenset({Module.SPLIT}), _NONE, split_customers, _split_delivery),
    Freedom("late_service", frozenset({Module.STW}), _NONE, lateness, _widest(lateness)),
    Freedom("waiting", _NONE, frozenset({Module.HTW, Module.STW}), waiting, _widest(waiting)),
    Freedom("costly_wait", frozenset({Module.STW}), _NONE, costly_wait, _costly_wait_plan),
    Freedom("open_end", frozenset({Module.OPEN}), frozenset({Module.HTW, Module.DIST}), closed_excess, _widest(closed_excess)),
)
"""The freedoms a module's rules allow and some wrong model forbids (or, for ``costly_wait``,
prices otherwise), one plan each where the instance admits one. An open route "ends anywhere" in a way a feasible plan can show only where a
closed route could not have ended there (past the depot's close, or past the distance limit), so
``open_end`` needs windows or a limit besides. Two more are searched apart: the longest route
against the distance limit (``longest``, among the tightest plans) and a route on every vehicle
type of a mixed fleet (``EVERY_VEHICLE_TYPE``). A route ending at a depot other than its own is no
freedom: a closed route returns to the depot it left on every variant (docs/semantics.md)."""

EVERY_VEHICLE_TYPE = "every_vehicle_type"


def vehicle_type(vehicle: Vehicle) -> tuple[object, ...]:
    """What sets a vehicle apart besides its depot: capacities and costs."""
    return (vehicle.capacity, vehicle.compartment_capacity, vehicle.fixed_cost, vehicle.cost_per_distance)


def types_used(instance: Instance, plan: Solution) -> set[tuple[object, ...]]:
    return {vehicle_type(instance.vehicles[r.vehicle]) for r in plan.routes if r.visits}


def _every_vehicle_type(instance: Instance, plus: Solution, others: Sequence[Solution]) -> Solution | None:
    """On a mixed fleet, s+ with a route handed to (or, failing that, one unit moved onto) an idle
    vehicle of each type no plan so far uses, as long as that stays feasible: a model that leaves a
    type out (an off-by-one vehicle range, one type's capacity for all) rejects it."""
    if not instance.spec.heterogeneous:
        return None
    used = set().union(*(types_used(instance, p) for p in (plus, *others)))
    missing = [t for t in dict.fromkeys(vehicle_type(v) for v in instance.vehicles) if t not in used]
    current = plus
    for wanted in missing:
        for k, vehicle in enumerate(instance.vehicles):
            if vehicle_type(vehicle) != wanted or current.route_of(k) is not None:
                continue
            moved = _handed_over(instance, current, k) or _onto_idle(instance, current, k)
            if moved is not None:
                current = moved
                break
    return current if types_used(instance, current) - used else None


def _handed_over(instance: Instance, plan: Solution, vehicle: int) -> Solution | None:
    """A whole route of the plan driven by the idle ``vehicle`` instead (lightest route first)."""
    depot = instance.vehicles[vehicle].depot
    for route in sorted((r for r in plan.routes if r.visits), key=lambda r: (capacity_usage(instance, r), r.vehicle)):
        moved = route.model_copy(update={"vehicle": vehicle, "depot": depot})
        routes = sorted([*(r for r in plan.routes if r.vehicle != route.vehicle), moved], key=lambda r: r.vehicle)
        candidate = Solution(routes=tuple(routes))
        if check(instance, candidate).feasible:
            return candidate
    return None


def _onto_idle(instance: Instance, plan: Solution, vehicle: int) -> Solution | None:
    depot = instance.vehicles[vehicle].depot
    for donor in sorted((r for r in plan.routes if len(r.visits) > 1), key=lambda r: -len(r.visits)):
        moved = _moved_to_idle(instance, plan, donor, vehicle, depot)
        if moved is not None:
            return moved
    return None


# ---- on a mixed fleet, each vehicle type loaded past a smaller type's limit ---------------------------

TYPE_LOAD = "type_load"
"""The variety prefix of the plans that load a vehicle type past another type's smaller limit."""


@dataclass(frozen=True, slots=True)
class LoadGap:
    """A vehicle type and a resource on which it may carry more than another type's limit, which no
    feasible plan so far shows: a model that gives this type the other's limit goes unnoticed."""

    name: str
    """The plan's variety: ``type_load_k<vehicle>`` (total load) or ``..._c<compartment>``."""
    vehicles: frozenset[int]
    usage: Callable[[Instance, Route], float]
    limit: Callable[[Vehicle], float]
    smaller: float
    """The largest limit on this resource among the fleet's vehicles with a smaller one."""


def _resources(instance: Instance) -> list[tuple[str, Callable[[Instance, Route], float], Callable[[Vehicle], float]]]:
    """(name suffix, usage, limit) of every capacity a vehicle type has: the total, each compartment."""
    out: list[tuple[str, Callable[[Instance, Route], float], Callable[[Vehicle], float]]] = [
        ("", capacity_usage, lambda v: v.capacity or float("inf"))
    ]
    for c in range(len(instance.vehicles[0].compartment_capacity or ())):
        out.append(
            (f"_c{c}", lambda i, r, c=c: compartment_loads(i, r)[c], lambda v, c=c: (v.compartment_capacity or ())[c])
        )
    return out


def load_gaps(instance: Instance, plans: Sequence[Solution]) -> list[LoadGap]:
    """Per vehicle type and resource, the gap no plan of ``plans`` shows: no route of the type
    carries more of the resource than the next smaller limit another vehicle has on it."""
    if not instance.spec.heterogeneous or instance.has(Module.SPLIT):
        return []
    gaps: list[LoadGap] = []
    for suffix, usage, limit in _resources(instance):
        limits = sorted({limit(v) for v in instance.vehicles})
        for wanted in dict.fromkeys(vehicle_type(v) for v in instance.vehicles):
            vehicles = frozenset(k for k, v in enumerate(instance.vehicles) if vehicle_type(v) == wanted)
            own = limit(instance.vehicles[min(vehicles)])
            below = [value for value in limits if value < own - FREEDOM_MARGIN]
            if not below:
                continue
            smaller = below[-1]
            whole = usage(instance, Route(vehicle=min(vehicles), depot=0, visits=tuple(instance.customer_nodes)))
            if whole < smaller + FREEDOM_MARGIN:
                continue  # all customers together do not carry that much: no plan shows the gap
            shown = any(
                usage(instance, r) >= smaller + FREEDOM_MARGIN
                for plan in plans
                for r in plan.routes
                if r.visits and r.vehicle in vehicles
            )
            if not shown:
                gaps.append(LoadGap(f"{TYPE_LOAD}_k{min(vehicles)}{suffix}", vehicles, usage, limit, smaller))
    return gaps


def type_loads(
    instance: Instance, plus: Solution, near: Sequence[Solution], plans: Sequence[Solution]
) -> list[tuple[str, Solution]]:
    """On a mixed fleet, for each vehicle type and each of its capacities (the total, every
    compartment) a feasible plan in which a vehicle of that type carries more than the next smaller
    limit another type has on it, where no feasible plan so far does: a model that gives a type
    another type's limits (the smallest vehicle's, or the largest vehicle's compartments on a
    vehicle whose total is smaller) rejects it. The plan comes from those one move from s+, s+'s
    routes handed to a vehicle of the type, units piled onto its route, and on small instances any
    set of units gathered on it (tried most loaded first, only where it beats the others); among
    them, the one that loads the type most. One plan may close several gaps."""
    from vrpcoder.attacks.boundary import piles  # the attack toolkit builds on this module

    found: list[tuple[str, Solution]] = []
    for gap in load_gaps(instance, plans):
        if not any(g.name == gap.name for g in load_gaps(instance, [*plans, *(p for _, p in found)])):
            continue
        targets = [plus.route_of(k) or Route(vehicle=k, depot=instance.vehicles[k].depot, visits=()) for k in sorted(gap.vehicles)]
        handed = [h for k in sorted(gap.vehicles) if plus.route_of(k) is None for h in _all_handed_over(instance, plus, k)]

        def room(inst: Instance, route: Route, gap: LoadGap = gap) -> float:
            return gap.limit(inst.vehicles[route.vehicle])

        candidates = [
            *near,
            *handed,
            *piles(instance, plus, gap.usage, room, targets),
            *(q for h in handed for q in piles(instance, h, gap.usage, room, [r for r in h.routes if r.vehicle in gap.vehicles])),
        ]

        def carried(plan: Solution, gap: LoadGap = gap) -> float:
            return max((gap.usage(instance, r) for r in plan.routes if r.visits and r.vehicle in gap.vehicles), default=0.0)

        best: tuple[float, Solution] | None = None
        for plan in candidates:
            value = carried(plan)
            if value >= gap.smaller + FREEDOM_MARGIN and (best is None or value > best[0] + TOLERANCE):
                if check(instance, plan).feasible:
                    best = (value, plan)
        floor = gap.smaller + FREEDOM_MARGIN if best is None else best[0] + TOLERANCE
        for tried, (value, plan) in enumerate(_gathered(instance, plus, min(gap.vehicles), gap.usage, floor)):
            if tried >= MAX_GATHERED_TRIES:
                break
            if check(instance, plan).feasible:
                best = (value, plan)
                break
        if best is not None:
            found.append((gap.name, best[1]))
    return found


def _all_handed_over(instance: Instance, plan: Solution, vehicle: int) -> list[Solution]:
    """Every feasible plan with one route of ``plan`` driven by the idle ``vehicle`` instead."""
    depot = instance.vehicles[vehicle].depot
    out: list[Solution] = []
    for route in (r for r in plan.routes if r.visits):
        moved = route.model_copy(update={"vehicle": vehicle, "depot": depot})
        candidate = Solution(routes=tuple(sorted([*(r for r in plan.routes if r.vehicle != route.vehicle), moved], key=lambda r: r.vehicle)))
        if check(instance, candidate).feasible:
            out.append(candidate)
    return out


MAX_GATHERED_UNITS = 12
"""Up to this many units, every set of them is tried as the route of one vehicle (4096 sets)."""
MAX_GATHERED_TRIES = 300
"""Gathered plans checked per gap, most loaded first (with windows most orders of a heavy set are
late, and each check costs about a millisecond)."""


def _gathered(
    instance: Instance, plus: Solution, vehicle: int, usage: Callable[[Instance, Route], float], floor: float
) -> Iterator[tuple[float, Solution]]:
    """s+ with the route of ``vehicle`` replaced by a set of units taken off their routes and
    visited in the order s+ visits them (and, with windows, in the order their windows open), the
    units it drove before and no longer does at their cheapest legal position elsewhere: every set
    whose route uses more than ``floor``, the most used first (with how much it uses), so the first
    feasible one is the best."""
    order = [u.nodes for r in plus.routes if r.visits for u in _units_of(instance, r.visits)]
    if len(order) > MAX_GATHERED_UNITS:
        return
    depot = instance.vehicles[vehicle].depot
    own = plus.route_of(vehicle)
    timed = instance.has(Module.HTW) or instance.has(Module.STW)
    routes: list[tuple[float, Route]] = []
    for size in range(1, len(order) + 1):
        for chosen in combinations(order, size):
            visits = tuple(n for u in chosen for n in u)
            sequences = [visits, tuple(sorted(visits, key=lambda n: _opens(instance, n)))] if timed else [visits]
            for sequence in dict.fromkeys(sequences):
                route = Route(vehicle=vehicle, depot=depot, visits=sequence)
                value = usage(instance, route)
                if value >= floor:
                    routes.append((value, route))
    routes.sort(key=lambda pair: -pair[0])
    for value, route in routes:
        if not _legal(instance, _Draft(vehicle, depot, route.visits, _full_amounts(instance, route.visits))):
            continue  # the route alone breaks a rule (a late visit, an overloaded compartment)
        moved = set(route.visits)
        drafts = {
            r.vehicle: _Draft(r.vehicle, r.depot, kept, _full_amounts(instance, kept))
            for r in plus.routes
            if r.vehicle != vehicle and (kept := tuple(v for v in r.visits if v not in moved)) is not None
        }
        for unit in [] if own is None else _units_of(instance, [v for v in own.visits if v not in moved]):
            placed = _insert_cheapest_anywhere(instance, drafts, unit)
            if placed is None:
                break
            drafts = placed
        else:
            rest = [d.route(instance) for d in drafts.values() if d.visits]
            yield value, Solution(routes=tuple(sorted([*rest, route], key=lambda r: r.vehicle)))


def _opens(instance: Instance, node: int) -> float:
    window = instance.customer(node).window
    return 0.0 if window is None else window.start

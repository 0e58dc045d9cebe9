"""Edge attacks: violating probes on the sample's own instance I*, over their rule by as little as
the data allows (issue 19, items 1 and 2).

The paper's parameter attacks put capacity, distance and window probes on attacked copies of the
instance. Within one sample (one statement, one reward) a model that drops such a rule is then
caught only where dropping it moves the optimum. These attackers build the probe on I* itself:
they search plans close to s+ (one unit moved or two neighbours swapped, or customers piled onto
one route until it just crosses its limit) and keep, among those that break exactly the target
family, the one whose excess over the limit is smallest. A probe that only just breaks its rule is
what tells a complete model from a partial one: a route a few time units late because of the
service times it includes is accepted by a model that leaves service times out.

Flavours that target a common partial implementation carry their own attacker:

* ``service_time_edge``: late only because of service times (feasible with them set to zero);
* ``return_leg_edge``: over the distance limit only because of the return leg;
* ``backhaul_load_edge``: a VRPB route whose pickups overload it (its deliveries fit), beside
  ``capacity_edge``, whose deliveries overload it (its pickups fit);
* ``other_depot_return``: on several depots, a route that ends at a depot other than its own;
* ``waiting_edge``: late only because a vehicle waits for a window to open (feasible if service
  could start on arrival); ``depot_close_edge``: every customer on time, back after the depot
  closes; ``time_window_edge`` is late at a customer and back in time;
* ``other_compartment_edge``: a second compartment beside ``compartment_edge``'s; on mixed fleets
  ``smallest_vehicle_edge`` and ``smallest_vehicle_compartment_edge`` overload a smallest vehicle
  within the next larger one's limit (a model with one vehicle's limits for all accepts them), and
  on fleets of three or more capacities ``middle_vehicle_edge`` and
  ``middle_vehicle_compartment_edge`` do the same for a middle-sized vehicle.

Each of these breaks one rule of its family alone (``AttackerInfo.rules``, issue 28.2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import permutations

import numpy as np

from vrpcoder.attacks.editing import (
    label_problem,
    shuffled,
    units_on,
    used_routes,
    with_route,
    without,
    without_quantities,
)
from vrpcoder.attacks.records import Attack, AttackSkipped
from vrpcoder.checker import (
    backhaul_loads,
    check,
    compartment_loads,
    return_time,
    route_distance,
    schedule,
)
from vrpcoder.instances import Instance
from vrpcoder.relaxation import capacity_usage, rebuilt, split_capacity_need
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import ATTACKERS, Attacker, Module

MIN_EXCESS = 1e-3
"""A probe must break its rule by more than this (the checker's tolerance is 1e-6; solvers work to
about 1e-6 too), so that a correct model's rejection never hinges on rounding."""
MAX_PILE_TARGETS = 3
"""Routes tried as the target of a pile (the fullest first): enough for a choice, cheap to build."""

Usage = Callable[[Instance, Route], float]
Limit = Callable[[Instance, Route], float]


@dataclass(frozen=True, slots=True)
class _Scored:
    excess: float
    order: int
    solution: Solution


# ---- plans near s+ ------------------------------------------------------------------------------


def _insertions(route: Route, unit: Sequence[int]) -> Iterator[Route]:
    """The unit inserted at every position of the route (a pair's delivery never before its pickup)."""
    slots = range(len(route.visits) + 1)
    placements = [(i,) for i in slots] if len(unit) == 1 else [(i, j) for i in slots for j in slots if j >= i]
    for positions in placements:
        visits = list(route.visits)
        for shift, (node, position) in enumerate(zip(unit, positions, strict=True)):
            visits.insert(position + shift, node)
        yield route.model_copy(update={"visits": tuple(visits), "deliveries": None})


def _receivers(instance: Instance, plan: Solution) -> list[Route]:
    """Routes a unit may move to: the plan's routes and one idle vehicle per depot."""
    routes = used_routes(plan)
    busy = {r.vehicle for r in routes}
    idle: dict[int, Route] = {}
    for k, vehicle in enumerate(instance.vehicles):
        if k not in busy and vehicle.depot not in idle:
            idle[vehicle.depot] = Route(vehicle=k, depot=vehicle.depot, visits=())
    return [*routes, *idle.values()]


def neighbours(instance: Instance, plus: Solution) -> Iterator[Solution]:
    """Every plan one move from s+: a unit (customer or pickup-delivery pair) taken off its route
    and put at any position of any route (its own included, or an idle vehicle's), or two
    neighbouring customers of a route swapped."""
    for route in used_routes(plus):
        for unit in units_on(instance, route.visits):
            rest = without(plus, unit)
            for receiver in _receivers(instance, rest):
                if receiver.vehicle == route.vehicle:
                    receiver = rest.route_of(route.vehicle) or Route(vehicle=route.vehicle, depot=route.depot, visits=())
                for grown in _insertions(receiver, unit):
                    if grown.vehicle == route.vehicle and grown.visits == route.visits:
                        continue
                    yield with_route(rest, grown)
        for i in range(len(route.visits) - 1):
            visits = list(route.visits)
            visits[i], visits[i + 1] = visits[i + 1], visits[i]
            yield with_route(plus, route.model_copy(update={"visits": tuple(visits), "deliveries": None}))


def resequenced(plus: Solution, max_visits: int) -> Iterator[Solution]:
    """s+ with one route driven in another order (every order of each route of at most
    ``max_visits`` visits)."""
    for route in used_routes(plus):
        if not 1 < len(route.visits) <= max_visits:
            continue
        for order in permutations(route.visits):
            if order != route.visits:
                yield with_route(plus, route.model_copy(update={"visits": order, "deliveries": None}))


def back_to_back(instance: Instance, plus: Solution) -> Iterator[Solution]:
    """s+ with two units taken off their routes and served one right after the other, as a block
    at every position of every route (or an idle vehicle's)."""
    every = [u for r in used_routes(plus) for u in units_on(instance, r.visits)]
    for first in every:
        for second in every:
            if first == second:
                continue
            rest = without(plus, (*first, *second))
            for receiver in _receivers(instance, rest):
                for position in range(len(receiver.visits) + 1):
                    visits = (*receiver.visits[:position], *first, *second, *receiver.visits[position:])
                    yield with_route(rest, receiver.model_copy(update={"visits": visits, "deliveries": None}))


def piles(
    instance: Instance, plus: Solution, usage: Usage, limit: Limit, targets: Sequence[Route] | None = None
) -> Iterator[Solution]:
    """Plans where one route takes units from the others until its usage just crosses its limit
    (each pile is given as the last plan within the limit, then the first one past it).

    Each step moves the unit that raises the usage most while staying within the limit; once no
    such unit is left, the unit that crosses it by the least is moved and the pile is done. Units
    go to their cheapest position (shortest route). The fullest routes are tried as targets, or
    the fullest of ``targets`` (which may be idle vehicles' empty routes).
    """
    pool = used_routes(plus) if targets is None else list(targets)
    routes = sorted(pool, key=lambda r: -usage(instance, r) / max(limit(instance, r), 1e-9))
    for target in routes[:MAX_PILE_TARGETS]:
        plan, route = plus, target
        cap = limit(instance, route)
        donors = [u for r in used_routes(plus) if r.vehicle != target.vehicle for u in units_on(instance, r.visits)]
        while donors:
            grown = [min(_insertions(route, u), key=lambda g: route_distance(instance, g)) for u in donors]
            values = [usage(instance, g) for g in grown]
            crossing = [i for i, v in enumerate(values) if v > cap + MIN_EXCESS]
            below = [i for i, v in enumerate(values) if v <= cap + MIN_EXCESS and v > usage(instance, route) + 1e-9]
            pick = min(crossing, key=lambda i: values[i]) if crossing else (max(below, key=lambda i: values[i]) if below else None)
            if pick is None:
                break
            if pick in crossing:
                yield plan
                yield with_route(without(plan, donors[pick]), grown[pick])
                break
            plan = with_route(without(plan, donors[pick]), grown[pick])
            route = grown[pick]
            donors.pop(pick)


# ---- choosing the probe ---------------------------------------------------------------------------


def closest(
    attacker: Attacker,
    instance: Instance,
    plus: Solution,
    candidates: Iterable[Solution],
    excess: Callable[[Solution], float | None],
    nothing: str,
) -> Attack | AttackSkipped:
    """Of the candidate plans that break exactly the attacker's family, or its one rule (by more
    than ``MIN_EXCESS``, as ``excess`` measures it; None rejects a plan), the one that breaks it
    least."""
    family = ATTACKERS[attacker].target
    if not check(instance, plus).feasible:
        return AttackSkipped(attacker=attacker, reason="s+ is not feasible on the instance")
    best: _Scored | None = None
    seen: set[Solution] = set()
    for order, plan in enumerate(candidates):
        if plan in seen:
            continue
        seen.add(plan)
        if label_problem(check(instance, plan), attacker) is not None:
            continue
        amount = excess(plan)
        if amount is None or amount <= MIN_EXCESS:
            continue
        if best is None or amount < best.excess - 1e-9:
            best = _Scored(amount, order, plan)
    if best is None:
        return AttackSkipped(attacker=attacker, reason=nothing)
    return Attack(attacker=attacker, family=family, solution=best.solution, instance=instance)


def _worst(values: Iterable[float]) -> float | None:
    found = [v for v in values if v > 0]
    return max(found) if found else None


# ---- capacity and compartments ------------------------------------------------------------------


def _capacity_of(instance: Instance, route: Route) -> float:
    return instance.vehicles[route.vehicle].capacity or float("inf")


def _linehaul(instance: Instance, route: Route) -> float:
    return backhaul_loads(instance, route)[0]


def _backhaul(instance: Instance, route: Route) -> float:
    return backhaul_loads(instance, route)[1]


def _load_attack(attacker: Attacker, usage: Usage, clean: Usage | None) -> Callable[..., Attack | AttackSkipped]:
    """A capacity edge attack measured by ``usage``; ``clean`` (VRPB) is the other load, which must
    still fit, so the probe tells apart the two halves of the rule."""

    def attack(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
        def excess(plan: Solution) -> float | None:
            routes = used_routes(plan)
            if clean is not None and any(clean(instance, r) > _capacity_of(instance, r) + 1e-6 for r in routes):
                return None
            return _worst(usage(instance, r) - _capacity_of(instance, r) for r in routes)

        candidates = [*neighbours(instance, plus), *piles(instance, plus, usage, _capacity_of)]
        return closest(
            attacker, instance, plus, shuffled(rng, candidates), excess,
            "no plan near s+ overloads a route without breaking another rule",
        )

    return attack


capacity_edge = _load_attack(Attacker.CAPACITY_EDGE, capacity_usage, None)
_vrpb_capacity_edge = _load_attack(Attacker.CAPACITY_EDGE, _linehaul, _backhaul)
backhaul_load_edge = _load_attack(Attacker.BACKHAUL_LOAD_EDGE, _backhaul, _linehaul)


def capacity_edge_any(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """The capacity edge probe; on VRPB its deliveries overload the route and its pickups fit (a
    model that limits only the pickups accepts it; ``backhaul_load_edge`` is the mirror)."""
    if instance.has(Module.BH):
        return _vrpb_capacity_edge(instance, plus, rng)
    return capacity_edge(instance, plus, rng)


def _compartment_best(
    attacker: Attacker,
    instance: Instance,
    plus: Solution,
    rng: np.random.Generator,
    vehicles: frozenset[int] | None = None,
) -> dict[int, Attack]:
    """For each compartment the plan near s+ that overloads it (on one route, of one of
    ``vehicles`` when given) by the least, the vehicles' totals still within their capacity."""
    width = len(instance.vehicles[0].compartment_capacity or ())

    def room(inst: Instance, route: Route, c: int) -> float:
        return (inst.vehicles[route.vehicle].compartment_capacity or ())[c]

    targets = None if vehicles is None else _vehicle_routes(instance, plus, vehicles)
    candidates = list(neighbours(instance, plus))
    for c in range(width):
        candidates += piles(
            instance, plus, lambda i, r, c=c: compartment_loads(i, r)[c], lambda i, r, c=c: room(i, r, c), targets
        )
    candidates = shuffled(rng, candidates)
    found: dict[int, Attack] = {}
    for c in range(width):

        def excess(plan: Solution, c: int = c) -> float | None:
            over = [
                compartment_loads(instance, r)[c] - room(instance, r, c)
                for r in used_routes(plan)
                if vehicles is None or r.vehicle in vehicles
            ]
            return _worst(over)

        best = closest(attacker, instance, plus, candidates, excess, "none")
        if isinstance(best, Attack):
            found[c] = best
    return found


def _least(found: dict[int, Attack], instance: Instance) -> list[int]:
    """Compartments in the order of their probe's excess (ties: the lower index)."""

    def amount(c: int) -> float:
        return max(
            compartment_loads(instance, r)[c] - (instance.vehicles[r.vehicle].compartment_capacity or ())[c]
            for r in used_routes(found[c].solution)
        )

    return sorted(found, key=lambda c: (amount(c), c))


def compartment_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """One compartment of one route just over its capacity, the vehicle's total still within it
    (of all compartments, the one a plan near s+ overloads by the least)."""
    found = _compartment_best(Attacker.COMPARTMENT_EDGE, instance, plus, rng)
    if not found:
        reason = "no plan near s+ overloads a compartment without breaking another rule"
        return AttackSkipped(attacker=Attacker.COMPARTMENT_EDGE, reason=reason)
    return found[_least(found, instance)[0]]


def other_compartment_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """The compartment edge probe for another compartment than ``compartment_edge`` overloads: a
    model that limits only some compartments (the first, or one per vehicle) accepts one of the two."""
    attacker = Attacker.OTHER_COMPARTMENT_EDGE
    found = _compartment_best(Attacker.COMPARTMENT_EDGE, instance, plus, rng)
    order = _least(found, instance)
    if len(order) < 2:
        single = len(instance.vehicles[0].compartment_capacity or ()) < 2
        reason = "no plan near s+ overloads a second compartment without breaking another rule"
        return AttackSkipped(attacker=attacker, reason="the vehicles have a single compartment" if single else reason)
    chosen = found[order[1]]
    return Attack(attacker=attacker, family=chosen.family, solution=chosen.solution, instance=instance)


def _vehicle_routes(instance: Instance, plus: Solution, vehicles: frozenset[int]) -> list[Route]:
    """The routes of ``vehicles`` in s+, an idle one's as an empty route."""
    return [
        plus.route_of(k) or Route(vehicle=k, depot=instance.vehicles[k].depot, visits=())
        for k in sorted(vehicles)
    ]


def capacity_steps(instance: Instance) -> list[tuple[frozenset[int], float]]:
    """Per capacity of a mixed fleet but the largest, smallest first: its vehicles and the next
    larger capacity. A model that gives a vehicle a larger vehicle's capacity accepts an overload
    of that vehicle up to the next larger capacity."""
    sizes = sorted({v.capacity for v in instance.vehicles if v.capacity is not None})
    return [
        (frozenset(k for k, v in enumerate(instance.vehicles) if v.capacity == size), larger)
        for size, larger in zip(sizes, sizes[1:], strict=False)
    ]


def smallest_type(instance: Instance) -> tuple[frozenset[int], float] | None:
    """The vehicles of the fleet's smallest capacity and the next larger capacity (None when every
    vehicle has the same)."""
    steps = capacity_steps(instance)
    return steps[0] if steps else None


def _type_load_edge(
    attacker: Attacker, instance: Instance, plus: Solution, rng: np.random.Generator, step: tuple[frozenset[int], float]
) -> Attack | AttackSkipped:
    """A route of one of ``step``'s vehicles just over its capacity and within the next larger one."""
    small, next_size = step
    own = min(instance.vehicles[k].capacity or 0.0 for k in small)
    if sum(c.demand for c in instance.customers) <= own:
        return AttackSkipped(attacker=attacker, reason=f"the whole demand fits a vehicle of capacity {own}")

    def excess(plan: Solution) -> float | None:
        over = []
        for r in used_routes(plan):
            load = capacity_usage(instance, r)
            if r.vehicle in small and load > _capacity_of(instance, r):
                if load > next_size + 1e-6:
                    return None
                over.append(load - _capacity_of(instance, r))
        return _worst(over)

    targets = _vehicle_routes(instance, plus, small)
    candidates = [*neighbours(instance, plus), *piles(instance, plus, capacity_usage, _capacity_of, targets)]
    return closest(
        attacker, instance, plus, shuffled(rng, candidates), excess,
        f"no plan near s+ overloads a vehicle of capacity {own} within the next capacity without breaking another rule",
    )


def smallest_vehicle_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """On a mixed fleet, a route of a smallest vehicle just over its capacity and within the next
    larger capacity: a model that keeps only the largest vehicle's limit (or one capacity for all
    taken from a larger vehicle) accepts it."""
    step = smallest_type(instance)
    if step is None:
        return AttackSkipped(attacker=Attacker.SMALLEST_VEHICLE_EDGE, reason="every vehicle has the same capacity")
    return _type_load_edge(Attacker.SMALLEST_VEHICLE_EDGE, instance, plus, rng, step)


def middle_vehicle_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """On a fleet of three or more capacities, a route of a middle-sized vehicle (neither the
    smallest nor the largest) just over its capacity and within the next larger one: a model that
    gives the middle vehicles a larger vehicle's capacity keeps the smallest vehicle's limit, so
    ``smallest_vehicle_edge`` cannot see it. With several middle sizes, the smallest one that
    admits such a plan."""
    return _on_middle_steps(Attacker.MIDDLE_VEHICLE_EDGE, _type_load_edge, instance, plus, rng)


TypeEdge = Callable[
    [Attacker, Instance, Solution, np.random.Generator, tuple[frozenset[int], float]], Attack | AttackSkipped
]


def _on_middle_steps(
    attacker: Attacker, edge: TypeEdge, instance: Instance, plus: Solution, rng: np.random.Generator
) -> Attack | AttackSkipped:
    """``edge`` on the middle capacities, smallest first: the first that admits a plan, else the
    first reason none did."""
    steps = capacity_steps(instance)[1:]
    if not steps:
        return AttackSkipped(attacker=attacker, reason="the fleet has fewer than three capacities")
    skipped: AttackSkipped | None = None
    for step in steps:
        found = edge(attacker, instance, plus, rng, step)
        if isinstance(found, Attack):
            return found
        skipped = skipped or found
    assert skipped is not None
    return skipped


def _type_compartment_edge(
    attacker: Attacker, instance: Instance, plus: Solution, rng: np.random.Generator, step: tuple[frozenset[int], float]
) -> Attack | AttackSkipped:
    """A compartment of one of ``step``'s vehicles just over its capacity and within the same
    compartment of the vehicles of the next larger capacity."""
    small, next_size = step
    larger = [v for v in instance.vehicles if v.capacity == next_size]
    found = _compartment_best(attacker, instance, plus, rng, small)

    def within_larger(c: int) -> bool:
        room = min((v.compartment_capacity or ())[c] for v in larger)
        return all(compartment_loads(instance, r)[c] <= room + 1e-6 for r in used_routes(found[c].solution))

    order = [c for c in _least(found, instance) if within_larger(c)]
    if not order:
        own = min(instance.vehicles[k].capacity or 0.0 for k in small)
        reason = f"no plan near s+ overloads a compartment of a vehicle of capacity {own} within the next vehicle's alone"
        return AttackSkipped(attacker=attacker, reason=reason)
    return found[order[0]]


def smallest_vehicle_compartment_edge(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> Attack | AttackSkipped:
    """On a mixed multi-compartment fleet, a compartment of a smallest vehicle just over its
    capacity and within the same compartment of the next larger vehicle."""
    step = smallest_type(instance)
    if step is None:
        return AttackSkipped(attacker=Attacker.SMALLEST_VEHICLE_COMPARTMENT_EDGE, reason="every vehicle has the same capacity")
    return _type_compartment_edge(Attacker.SMALLEST_VEHICLE_COMPARTMENT_EDGE, instance, plus, rng, step)


def middle_vehicle_compartment_edge(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> Attack | AttackSkipped:
    """On a multi-compartment fleet of three or more capacities, a compartment of a middle-sized
    vehicle just over its capacity and within the same compartment of the next larger vehicle."""
    return _on_middle_steps(Attacker.MIDDLE_VEHICLE_COMPARTMENT_EDGE, _type_compartment_edge, instance, plus, rng)


# ---- split delivery ---------------------------------------------------------------------------------


def split_load_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Split delivery, on the sample's own instance: a plan near s+ whose visiting vehicles cannot
    carry their customers' demand in any split, short by as little as such a plan is (a customer
    left to one of its visitors, or one route's customers grafted onto another and its vehicle
    kept home). A model without per-vehicle capacity accepts it, and so does one that lets a
    vehicle deliver where it does not visit (the grounded vehicle's capacity would do)."""
    attacker = Attacker.SPLIT_LOAD_EDGE
    capacity = instance.vehicles[0].capacity
    if capacity is None or len({v.capacity for v in instance.vehicles}) > 1:
        return AttackSkipped(attacker=attacker, reason="the split rule's load is judged for one common capacity")
    routes = used_routes(plus)
    candidates: list[Solution] = []
    for customer in sorted(set(plus.visited)):
        for route in routes:
            rest = without(plus, (customer,))
            base = rest.route_of(route.vehicle) or route.model_copy(update={"visits": ()})
            grown = min(_insertions(base, (customer,)), key=lambda g: route_distance(instance, g))
            candidates.append(without_quantities(with_route(rest, grown)))
    for target in routes:
        for grounded in (r for r in routes if r.vehicle != target.vehicle):
            extra = tuple(c for c in grounded.visits if c not in target.visits)
            grafted = target.model_copy(update={"visits": (*target.visits, *extra), "deliveries": None})
            kept = tuple(r for r in plus.routes if r.vehicle not in (target.vehicle, grounded.vehicle))
            candidates.append(without_quantities(Solution(routes=tuple(sorted((*kept, grafted), key=lambda r: r.vehicle)))))

    def excess(plan: Solution) -> float | None:
        return split_capacity_need(instance, plan) - capacity

    return closest(
        attacker, instance, plus, shuffled(rng, candidates), excess,
        "no plan near s+ leaves its visitors short of capacity without breaking another rule",
    )


# ---- distance --------------------------------------------------------------------------------------


def _limit(instance: Instance, _route: Route) -> float:
    return instance.max_route_distance or float("inf")


def _distance_candidates(instance: Instance, plus: Solution, rng: np.random.Generator) -> list[Solution]:
    return shuffled(rng, [*neighbours(instance, plus), *piles(instance, plus, route_distance, _limit)])


def _within_fleet_total(instance: Instance, plan: Solution) -> bool:
    """The plan's routes together drive no more than the fleet's limits added up (one vehicle: the
    rule itself): a model that bounds the fleet's total distance instead of each route's accepts
    a probe whose one long route others make up for."""
    fleet = len(instance.vehicles)
    total = sum(route_distance(instance, r) for r in used_routes(plan))
    return fleet < 2 or total <= fleet * (instance.max_route_distance or float("inf")) + 1e-6


def distance_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """A route just longer than the distance limit, the plan's total within the fleet's limits
    added up."""

    def excess(plan: Solution) -> float | None:
        if not _within_fleet_total(instance, plan):
            return None
        return _worst(route_distance(instance, r) - _limit(instance, r) for r in used_routes(plan))

    return closest(
        Attacker.DISTANCE_EDGE, instance, plus, _distance_candidates(instance, plus, rng), excess,
        "no plan near s+ lengthens a route past the limit without breaking another rule",
    )


def return_leg_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """A route within the limit up to its last customer and over it with its return leg (a model
    that checks the distance before the return accepts it)."""
    if instance.has(Module.OPEN):
        return AttackSkipped(attacker=Attacker.RETURN_LEG_EDGE, reason="open routes drive no return leg")

    def excess(plan: Solution) -> float | None:
        if not _within_fleet_total(instance, plan):
            return None
        amounts = []
        for r in used_routes(plan):
            full = route_distance(instance, r)
            outbound = full - instance.distances[r.visits[-1]][r.end]
            if full > _limit(instance, r) and outbound > _limit(instance, r) + 1e-6:
                return None
            amounts.append(full - _limit(instance, r))
        return _worst(amounts)

    return closest(
        Attacker.RETURN_LEG_EDGE, instance, plus, _distance_candidates(instance, plus, rng), excess,
        "no plan near s+ breaks the distance limit through its return leg alone",
    )


# ---- time windows ----------------------------------------------------------------------------------


DEPOT_LATENESS_PENALTY = 1e6
"""A late depot return counts as a worse probe than any late customer: a model that keeps the
depot's closing but drops the customers' would still reject it."""


def _lateness(instance: Instance, plan: Solution) -> float | None:
    worst = 0.0
    for route in used_routes(plan):
        for visit, start in zip(route.visits, schedule(instance, route), strict=True):
            window = instance.customer(visit).window
            if window is not None:
                worst = max(worst, start - window.end)
        depot = instance.depots[route.end].window
        if depot is not None and not instance.has(Module.OPEN):
            late = return_time(instance, route) - depot.end
            if late > 0:
                worst = max(worst, DEPOT_LATENESS_PENALTY + late)
    return worst if worst > 0 else None


def _route_lateness(instance: Instance, route: Route) -> float:
    """How late the route's latest service start is against its window (negative: the least slack)."""
    slack = [
        start - window.end
        for visit, start in zip(route.visits, schedule(instance, route), strict=True)
        if (window := instance.customer(visit).window) is not None
    ]
    return max(slack, default=float("-inf"))


def _zero(_instance: Instance, _route: Route) -> float:
    return 0.0


def _window_candidates(instance: Instance, plus: Solution, rng: np.random.Generator) -> list[Solution]:
    """Plans one move from s+, then piles that make a route's schedule run just past a window."""
    return shuffled(rng, [*neighbours(instance, plus), *piles(instance, plus, _route_lateness, _zero)])


def time_window_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """A plan that starts service after a window closes, by as little as any plan near s+ does."""
    return closest(
        Attacker.TIME_WINDOW_EDGE, instance, plus, _window_candidates(instance, plus, rng),
        lambda plan: _lateness(instance, plan),
        "no plan near s+ misses a window without breaking another rule",
    )


def without_service_times(instance: Instance) -> Instance:
    customers = tuple(c.model_copy(update={"service_time": 0.0}) for c in instance.customers)
    return rebuilt(instance, customers=customers)


def service_time_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """A plan that misses a window only because service takes time: with every service time set to
    zero it is feasible, so a model that leaves service times out of its time propagation accepts it."""
    if all(c.service_time <= 0 for c in instance.customers):
        return AttackSkipped(attacker=Attacker.SERVICE_TIME_EDGE, reason="no customer has a service time")
    instant = without_service_times(instance)

    def excess(plan: Solution) -> float | None:
        return _lateness(instance, plan) if check(instant, plan).feasible else None

    return closest(
        Attacker.SERVICE_TIME_EDGE, instance, plus, _window_candidates(instance, plus, rng), excess,
        "no plan near s+ misses a window only because of its service times",
    )


def _depot_lateness(instance: Instance, plan: Solution) -> float | None:
    """How late the latest return is, where every customer is served on time (else None)."""
    worst = 0.0
    for route in used_routes(plan):
        for visit, start in zip(route.visits, schedule(instance, route), strict=True):
            window = instance.customer(visit).window
            if window is not None and start > window.end + 1e-6:
                return None
        depot = instance.depots[route.end].window
        if depot is not None:
            worst = max(worst, return_time(instance, route) - depot.end)
    return worst if worst > 0 else None


def _return_time(instance: Instance, route: Route) -> float:
    return return_time(instance, route) if route.visits else 0.0


def _depot_close(instance: Instance, route: Route) -> float:
    window = instance.depots[route.end].window
    return float("inf") if window is None else window.end


def depot_never_closes_first(instance: Instance) -> bool:
    """Whether every depot closes after any route could return to it (the latest service start a
    window allows, the service and the leg back): the depot's closing never binds."""
    if instance.has(Module.OPEN):
        return True
    for d, depot in enumerate(instance.depots):
        if depot.window is None:
            continue
        for node, customer in zip(instance.customer_nodes, instance.customers, strict=True):
            latest = float("inf") if customer.window is None else customer.window.end
            if latest + customer.service_time + instance.distances[node][d] > depot.window.end + 1e-9:
                return False
    return True


def no_waiting_possible(instance: Instance) -> bool:
    """Whether no vehicle can ever arrive before a window opens (each opens no later than the
    earliest arrival from any depot): dropping the windows' opening times changes nothing."""
    for node, customer in zip(instance.customer_nodes, instance.customers, strict=True):
        if customer.window is None:
            continue
        arrival = min(
            (0.0 if depot.window is None else depot.window.start) + instance.distances[d][node]
            for d, depot in enumerate(instance.depots)
        )
        if customer.window.start > arrival + 1e-9:
            return False
    return True


def depot_close_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """A route on time at every customer and back just after its depot closes (a model that
    checks the customers' windows but not the return accepts it)."""
    if instance.has(Module.OPEN):
        return AttackSkipped(attacker=Attacker.DEPOT_CLOSE_EDGE, reason="open routes do not return to a depot")
    if depot_never_closes_first(instance):
        reason = "every depot closes after any route can be back"
        return AttackSkipped(attacker=Attacker.DEPOT_CLOSE_EDGE, reason=reason)
    candidates = shuffled(rng, [*neighbours(instance, plus), *piles(instance, plus, _return_time, _depot_close)])
    return closest(
        Attacker.DEPOT_CLOSE_EDGE, instance, plus, candidates, lambda plan: _depot_lateness(instance, plan),
        "no plan near s+ returns after its depot closes while serving every customer on time",
    )


def without_waiting(instance: Instance) -> Instance:
    """The instance with every customer window opening at 0: service starts on arrival."""
    customers = tuple(
        c.model_copy(update={"window": c.window.model_copy(update={"start": 0.0})}) if c.window is not None else c
        for c in instance.customers
    )
    return rebuilt(instance, customers=customers)


def waiting_edge(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """A plan late only because a vehicle waits for a window to open: feasible if service could
    start on arrival, so a model that drops the windows' opening times accepts it."""
    if no_waiting_possible(instance):
        return AttackSkipped(attacker=Attacker.WAITING_EDGE, reason="no window opens after a vehicle can first arrive")
    eager = without_waiting(instance)

    def excess(plan: Solution) -> float | None:
        return _lateness(instance, plan) if check(eager, plan).feasible else None

    return closest(
        Attacker.WAITING_EDGE, instance, plus, _window_candidates(instance, plus, rng), excess,
        "no plan near s+ misses a window only because it waits for another to open",
    )


# ---- depots ----------------------------------------------------------------------------------------


def other_depot_return(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """A route of s+ that returns to another depot than the one it left (the nearest other depot to
    its last customer first: the return a model that lets routes end anywhere would pick)."""
    if instance.num_depots < 2 or instance.has(Module.OPEN):
        return AttackSkipped(attacker=Attacker.OTHER_DEPOT_RETURN, reason="routes have a single depot to end at")
    candidates: list[Solution] = []
    for route in shuffled(rng, used_routes(plus)):
        last = route.visits[-1]
        others = sorted((d for d in range(instance.num_depots) if d != route.depot), key=lambda d: instance.distances[last][d])
        candidates += [with_route(plus, route.model_copy(update={"end_depot": d})) for d in others]

    def any_end(plan: Solution) -> float:
        """Every such plan breaks the rule by the same (one wrong arc): the first valid one wins."""
        return 1.0

    return closest(
        Attacker.OTHER_DEPOT_RETURN, instance, plus, candidates, any_end,
        "no route of s+ can end at another depot without breaking another rule",
    )


EDGE_ATTACKERS: dict[Attacker, Callable[[Instance, Solution, np.random.Generator], Attack | AttackSkipped]] = {
    Attacker.CAPACITY_EDGE: capacity_edge_any,
    Attacker.BACKHAUL_LOAD_EDGE: backhaul_load_edge,
    Attacker.COMPARTMENT_EDGE: compartment_edge,
    Attacker.OTHER_COMPARTMENT_EDGE: other_compartment_edge,
    Attacker.SMALLEST_VEHICLE_EDGE: smallest_vehicle_edge,
    Attacker.SMALLEST_VEHICLE_COMPARTMENT_EDGE: smallest_vehicle_compartment_edge,
    Attacker.MIDDLE_VEHICLE_EDGE: middle_vehicle_edge,
    Attacker.MIDDLE_VEHICLE_COMPARTMENT_EDGE: middle_vehicle_compartment_edge,
    Attacker.SPLIT_LOAD_EDGE: split_load_edge,
    Attacker.DISTANCE_EDGE: distance_edge,
    Attacker.RETURN_LEG_EDGE: return_leg_edge,
    Attacker.TIME_WINDOW_EDGE: time_window_edge,
    Attacker.SERVICE_TIME_EDGE: service_time_edge,
    Attacker.WAITING_EDGE: waiting_edge,
    Attacker.DEPOT_CLOSE_EDGE: depot_close_edge,
    Attacker.OTHER_DEPOT_RETURN: other_depot_return,
}

__all__ = [
    "EDGE_ATTACKERS",
    "back_to_back",
    "capacity_steps",
    "closest",
    "depot_never_closes_first",
    "neighbours",
    "no_waiting_possible",
    "piles",
    "resequenced",
    "smallest_type",
    "without_service_times",
    "without_waiting",
]

"""Split-delivery attacks (SDVRP): coverage, subtour and capacity probes that a model cannot repair
by shifting demand to another vehicle (paper, Appendix B.4, the split-delivery remarks).

Under split delivery a customer may be served by several vehicles, so the ordinary probes do not
isolate their rule: a customer removed from one route is still served by another, a detached
cycle's customer can still be reached from a depot through a second visitor, and an overloaded
route can hand part of its load to a vehicle that also visits the customer. Each probe here first
takes that escape away. Probes carry no delivered quantities (see ``without_quantities``), and
the capacity a probe needs is the smallest common capacity under which *some* split fits, found
with the checker (``split_capacity_need``).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from vrpcoder.attacks.editing import (
    Candidate,
    attacked_value,
    first_verified,
    insert_unit,
    pick,
    preferred,
    shuffled,
    used_routes,
    with_capacity,
    with_route,
    without,
    without_quantities,
)
from vrpcoder.attacks.records import (
    SPLIT_EPS,
    Attack,
    AttackSkipped,
    BoundKind,
    ParameterBound,
)
from vrpcoder.attacks.structural import cycle_options
from vrpcoder.families import Family
from vrpcoder.instances import Instance
from vrpcoder.relaxation import split_capacity_need
from vrpcoder.solutions import Cycle, Route, Solution
from vrpcoder.variants import Attacker

WANTED_SPLIT_EXCESS = 0.05
"""Quarantine keeps adding customers until the quarantined vehicle needs this share more than s+'s
heaviest vehicle (or no customer is left)."""


def sd_remove_customer(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> Attack | AttackSkipped:
    """Drop one customer from every route that delivers any part of its demand."""
    visited = sorted(set(plus.visited))
    candidates = (
        Candidate(instance, without_quantities(without(plus, (c,)))) for c in shuffled(rng, visited)
    )
    return first_verified(Attacker.SD_REMOVE_CUSTOMER, plus, candidates, "s+ visits no customer")


def sd_isolated_subtour(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> Attack | AttackSkipped:
    """Detach a stretch of a route into a cycle and take its customers off every other route, so no
    second visitor connects them to a depot."""
    return first_verified(
        Attacker.SD_ISOLATED_SUBTOUR,
        plus,
        _isolated(instance, plus, rng),
        "no route has two customers that can form a cycle",
    )


def _isolated(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Candidate]:
    for route, start, end in cycle_options(instance, plus, rng):
        stretch = route.visits[start:end]
        rest = without(plus, stretch)
        cycle = Cycle(vehicle=route.vehicle, visits=stretch)
        yield Candidate(instance, without_quantities(Solution(routes=rest.routes, cycles=(cycle,))))


# ---- capacity ---------------------------------------------------------------------------------


def _capacity_candidate(instance: Instance, minus: Solution, g: float, b: float) -> Candidate | None:
    """The common capacity set between g (s+'s need) and b (the probe's need)."""
    if b <= g + 2 * SPLIT_EPS:
        return None
    capacity = instance.vehicles[0].capacity
    value, at_formula = attacked_value(g, b, SPLIT_EPS, capacity)
    if value <= g:
        return None
    bound = ParameterBound(kind=BoundKind.CAPACITY, g=g, b=b, value=value)
    return Candidate(with_capacity(instance, value, None), minus, bound, at_formula)


def quarantine_overload(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> Attack | AttackSkipped:
    """Make one vehicle the only visitor of its customers (adding customers from the other routes
    while it does not yet need more than s+'s heaviest vehicle), then set the common capacity below
    what it must carry alone."""
    return first_verified(
        Attacker.QUARANTINE_OVERLOAD,
        plus,
        _quarantines(instance, plus, rng),
        "no vehicle, made the only visitor of its customers, needs clearly more capacity than s+ uses",
    )


def _quarantines(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Candidate]:
    g = split_capacity_need(instance, plus)
    goal = g * (1 + WANTED_SPLIT_EXCESS) + 2 * SPLIT_EPS
    for target in shuffled(rng, used_routes(plus)):
        route = target.model_copy(update={"deliveries": None})
        minus = without_quantities(with_route(without(plus, route.visits), route))
        donors = shuffled(rng, [c for c in sorted(set(plus.visited)) if c not in route.visits])
        while donors and _alone(instance, route) < goal:
            best = pick(
                [_alone(instance, route) + instance.customer(c).demand for c in donors],
                _alone(instance, route),
                goal,
            )
            if best is None:
                break
            moved = donors.pop(best)
            route = insert_unit(instance, route, (moved,), frozenset({Family.CAPACITY}))
            minus = with_route(without(minus, (moved,)), route)
        candidate = _capacity_candidate(instance, minus, g, split_capacity_need(instance, minus))
        if candidate is not None:
            yield candidate


def _alone(instance: Instance, route: Route) -> float:
    """What the route must carry when it is the only visitor of its customers."""
    return sum(instance.customer(c).demand for c in route.visits)


def phantom_delivery(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Graft one vehicle's customers onto another route, ground the first vehicle, and set the
    capacity below what the remaining visitors need.

    A model that lets a vehicle deliver without visiting keeps using the grounded vehicle's
    capacity and accepts the probe; with visits and deliveries coupled it must reject it.
    """
    if len(used_routes(plus)) < 2:
        return AttackSkipped(
            attacker=Attacker.PHANTOM_DELIVERY, reason="s+ uses a single vehicle; none can be grounded"
        )
    return first_verified(
        Attacker.PHANTOM_DELIVERY,
        plus,
        _phantoms(instance, plus, rng),
        "no route grafted onto another needs clearly more capacity than s+ uses",
    )


def _phantoms(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Candidate]:
    """Grafts in :func:`preferred` order of the capacity they need."""
    g = split_capacity_need(instance, plus)
    goal = g * (1 + WANTED_SPLIT_EXCESS) + 2 * SPLIT_EPS
    routes = used_routes(plus)
    pairs = [(a, t) for a in routes for t in routes if a.vehicle != t.vehicle]
    grafts = [_grounded(plus, a, t) for a, t in shuffled(rng, pairs)]
    needs = [split_capacity_need(instance, minus) for minus in grafts]
    for index in preferred(needs, goal):
        candidate = _capacity_candidate(instance, grafts[index], g, needs[index])
        if candidate is not None:
            yield candidate


def _grounded(plus: Solution, grounded: Route, target: Route) -> Solution:
    kept = tuple(r for r in plus.routes if r.vehicle not in (grounded.vehicle, target.vehicle))
    routes = tuple(sorted((*kept, _grafted(target, grounded)), key=lambda r: r.vehicle))
    return without_quantities(Solution(routes=routes))


def _grafted(target: Route, grounded: Route) -> Route:
    extra = tuple(c for c in grounded.visits if c not in target.visits)
    return target.model_copy(update={"visits": (*target.visits, *extra), "deliveries": None})

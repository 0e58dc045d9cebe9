"""Structural attacks: the probe differs from s+ only in which customers are visited in what order;
the instance (I*) is left as it is (paper, Appendix B.4, "Structural Attacks").

Pickup-and-delivery pairs are moved and removed as whole pairs wherever the attack is not about
the pair itself, so that a removed customer or a detached cycle does not also leave a pair half
served, which a model would reject for a reason other than the one under test.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

import numpy as np

from vrpcoder.attacks.editing import (
    Candidate,
    first_verified,
    insert_unit,
    shuffled,
    units,
    used_routes,
    with_route,
    without,
)
from vrpcoder.attacks.records import Attack, AttackSkipped
from vrpcoder.families import Family
from vrpcoder.instances import Instance
from vrpcoder.solutions import Cycle, Route, Solution
from vrpcoder.variants import Attacker, Module


def remove_customer(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Leave one customer (a whole pair for pickup and delivery) unserved."""
    visited = set(plus.visited)
    pieces = [u for u in units(instance) if all(n in visited for n in u)]
    candidates = (Candidate(instance, without(plus, unit)) for unit in shuffled(rng, pieces))
    return first_verified(Attacker.REMOVE_CUSTOMER, plus, candidates, "s+ visits no customer")


# ---- subtour ---------------------------------------------------------------------------------


def segments(instance: Instance, route: Route) -> list[tuple[int, int]]:
    """Stretches ``visits[i:j]`` of at least two customers that can leave the route as a cycle.

    A stretch must hold every pair it touches completely, and stretches that leave the route with
    a customer come first: a route emptied into a cycle leaves its vehicle's depot unused, which a
    model may reject for its fleet rules rather than for the cycle.
    """
    partner = {p.pickup: p.delivery for p in instance.pairs} | {p.delivery: p.pickup for p in instance.pairs}
    n = len(route.visits)
    found: list[tuple[int, int]] = []
    for i in range(n):
        for j in range(i + 2, n + 1):
            stretch = set(route.visits[i:j])
            if all(partner[v] in stretch for v in stretch if v in partner):
                found.append((i, j))
    return sorted(found, key=lambda s: s[1] - s[0] == n)


def detached(solution: Solution, route: Route, start: int, end: int) -> Solution:
    """The stretch as a cycle of the route's vehicle; the route keeps the rest."""
    cycle = Cycle(vehicle=route.vehicle, visits=route.visits[start:end])
    rest = route.model_copy(update={"visits": route.visits[:start] + route.visits[end:], "deliveries": None})
    edited = with_route(solution, rest)
    return Solution(routes=edited.routes, cycles=(*edited.cycles, cycle))


def cycle_options(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> list[tuple[Route, int, int]]:
    """(route, start, end) choices in the attack's order: partial stretches before whole routes."""
    options = [(r, i, j) for r in used_routes(plus) for i, j in segments(instance, r)]

    return sorted(shuffled(rng, options), key=lambda o: o[2] - o[1] == len(o[0].visits))


def subtour_cycle(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Lift two or more consecutive customers of a route into a cycle that never meets a depot;
    failing that, two customers of different routes.

    On VRPB cycles of one kind come first, from a route or across routes: a mixed cycle closes with
    a backhaul-to-linehaul arc, which the backhaul rule forbids, so a model without subtour
    elimination would reject it too and the probe would test nothing."""
    options = cycle_options(instance, plus, rng)
    uniform = [o for o in options if not _mixed(instance, o[0].visits[o[1] : o[2]])]
    mixed = [o for o in options if _mixed(instance, o[0].visits[o[1] : o[2]])]
    cross = sorted(_cross_route_cycles(instance, plus, rng), key=lambda c: not carried_within_capacity(instance, c.solution))
    candidates = chain(
        (Candidate(instance, detached(plus, r, i, j)) for r, i, j in uniform),
        (c for c in cross if not _mixed(instance, c.solution.cycles[0].visits)),
        (Candidate(instance, detached(plus, r, i, j)) for r, i, j in mixed),
        (c for c in cross if _mixed(instance, c.solution.cycles[0].visits)),
    )
    return first_verified(
        Attacker.SUBTOUR_CYCLE, plus, candidates, "no route has two customers that can form a cycle"
    )


def _mixed(instance: Instance, visits: tuple[int, ...]) -> bool:
    """Linehaul and backhaul customers together (always False outside VRPB)."""
    return len({instance.customer(v).backhaul for v in visits}) > 1


def _cross_route_cycles(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Candidate]:
    """Cycles of two customers taken from two routes, driven by either route's vehicle. On VRPB
    this reaches a cycle of one kind (two backhauls of different routes) where every stretch of a
    route either mixes the kinds (its closing arc is forbidden by the backhaul rule anyway) or leaves
    a route of backhauls only."""
    if instance.has(Module.PD):
        return
    owner = {c: r.vehicle for r in used_routes(plus) for c in r.visits}
    pairs = [(u, v) for u in owner for v in owner if u < v and owner[u] != owner[v]]
    for u, v in shuffled(rng, pairs):
        rest = without(plus, (u, v))
        for vehicle in (owner[u], owner[v]):
            yield Candidate(instance, Solution(routes=rest.routes, cycles=(Cycle(vehicle=vehicle, visits=(u, v)),)))


def carried_within_capacity(instance: Instance, plan: Solution) -> bool:
    """Whether every vehicle that drives a cycle could carry its route's customers and the cycle's
    together (deliveries and backhaul pickups each against the whole capacity).

    The checker judges a cycle on its own, but a vehicle-indexed model counts the cycle's customers
    into the load of the vehicle that drives it: a cycle that overloads its vehicle is rejected by
    such a model's capacity rule even without subtour elimination, and the probe tests nothing. A
    stretch lifted out of a route keeps its vehicle's load; a cycle made of two routes' customers
    adds one of them to the other vehicle, so those come first where they fit. Split deliveries
    (quantities are the model's choice) count as fitting."""
    if instance.has(Module.SPLIT):
        return True
    for vehicle in {c.vehicle for c in plan.cycles if c.vehicle is not None}:
        capacity = instance.vehicles[vehicle].capacity
        if capacity is None:
            continue
        visits = [v for r in plan.routes if r.vehicle == vehicle for v in r.visits]
        visits += [v for c in plan.cycles if c.vehicle == vehicle for v in c.visits]
        for backhaul in (False, True):
            load = sum(instance.customer(v).demand for v in visits if instance.customer(v).backhaul is backhaul)
            if load > capacity + 1e-9:
                return False
    return True


# ---- backhaul --------------------------------------------------------------------------------


def backhaul_order(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Serve a backhaul customer before a linehaul customer of the same route.

    Moves within a route come first (loads unchanged); moving a customer in from another route is
    the fallback for plans that never mix the two kinds on one route.
    """
    return first_verified(
        Attacker.BACKHAUL_ORDER,
        plus,
        _backhaul_candidates(instance, plus, rng),
        "no route serves a linehaul customer that a backhaul customer could precede",
    )


def _backhaul_candidates(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Candidate]:
    routes = shuffled(rng, used_routes(plus))
    kind = {c: instance.customer(c).backhaul for c in instance.customer_nodes}
    for route in routes:
        for back in (v for v in route.visits if kind[v]):
            for ahead in (v for v in route.visits if not kind[v]):
                visits = [v for v in route.visits if v != back]
                visits.insert(visits.index(ahead), back)
                yield Candidate(
                    instance, with_route(plus, route.model_copy(update={"visits": tuple(visits)}))
                )
    for target in routes:
        for donor in (r for r in routes if r.vehicle != target.vehicle):
            for moved in donor.visits:
                yield from _cross_backhaul(instance, plus, target, moved, kind)


def _cross_backhaul(
    instance: Instance, plus: Solution, target: Route, moved: int, kind: dict[int, bool]
) -> Iterator[Candidate]:
    """Bring ``moved`` from its route into ``target`` on the wrong side of the other kind."""
    for position, visit in enumerate(target.visits):
        if kind[moved] and not kind[visit]:
            where = position
        elif not kind[moved] and kind[visit]:
            where = position + 1
        else:
            continue
        visits = (*target.visits[:where], moved, *target.visits[where:])
        edited = with_route(without(plus, (moved,)), target.model_copy(update={"visits": visits}))
        yield Candidate(instance, edited)


# ---- pickup and delivery ---------------------------------------------------------------------


def precedence(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Serve a delivery before its own pickup on the pair's route.

    The paper's swap of the two nodes comes first; moving the delivery to just before the pickup
    (or the pickup to just after the delivery) disturbs a timed route less and is tried next.
    Pairs that sit close together are tried before distant ones.
    """
    return first_verified(
        Attacker.PRECEDENCE,
        plus,
        _precedence_candidates(instance, plus, rng),
        "no route carries a pickup-delivery pair",
    )


def _precedence_candidates(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> Iterator[Candidate]:
    options: list[tuple[Route, int, int]] = []
    for route in used_routes(plus):
        where = {v: i for i, v in enumerate(route.visits)}
        options += [
            (route, where[p.pickup], where[p.delivery])
            for p in instance.pairs
            if p.pickup in where and p.delivery in where
        ]
    for route, at_p, at_d in sorted(shuffled(rng, options), key=lambda o: o[2] - o[1]):
        visits = list(route.visits)
        pickup, delivery = visits[at_p], visits[at_d]
        swapped = list(visits)
        swapped[at_p], swapped[at_d] = delivery, pickup
        early = [v for v in visits if v != delivery]
        early.insert(early.index(pickup), delivery)
        late = [v for v in visits if v != pickup]
        late.insert(late.index(delivery) + 1, pickup)
        for order in _distinct((swapped, early, late)):
            yield Candidate(instance, with_route(plus, route.model_copy(update={"visits": tuple(order)})))


def _distinct(orders: tuple[list[int], ...]) -> list[list[int]]:
    out: list[list[int]] = []
    for order in orders:
        if order not in out:
            out.append(order)
    return out


def split_pd_pair(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Keep a pickup on its vehicle and hand its delivery to another vehicle."""
    if len(instance.vehicles) < 2:
        return AttackSkipped(attacker=Attacker.SPLIT_PD_PAIR, reason="the fleet has a single vehicle")
    return first_verified(
        Attacker.SPLIT_PD_PAIR,
        plus,
        _split_pair_candidates(instance, plus, rng),
        "no route carries a pickup-delivery pair",
    )


def _split_pair_candidates(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> Iterator[Candidate]:
    """Other vehicles' routes first (at the delivery's cheapest position), unused vehicles last:
    a route of one customer has no customer-to-customer arc to pin the delivery to its vehicle."""
    routes = used_routes(plus)
    idle = [
        Route(vehicle=k, depot=v.depot, visits=())
        for k, v in enumerate(instance.vehicles)
        if plus.route_of(k) is None
    ]
    for route in shuffled(rng, routes):
        pairs = [p for p in instance.pairs if p.pickup in route.visits and p.delivery in route.visits]
        for pair in shuffled(rng, pairs):
            rest = without(plus, (pair.delivery,))
            receivers = [r for r in rest.routes if r.vehicle != route.vehicle] + idle
            for receiver in receivers:
                moved = insert_unit(instance, receiver, (pair.delivery,), frozenset({Family.PAIRING}))
                yield Candidate(instance, with_route(rest, moved))

"""Sub-rule attacks: probes that break one part of a compound family and keep its other parts
(issue 28.2; the paper's one-constraint rule applied per rule, ``vrpcoder.families.Rule``).

A probe that breaks two parts of a family is rejected by a model that keeps either part, so the
part a model drops is never seen. Each attacker here keeps the parts its probe is not about:

* ``backhaul_start``: a route of backhauls only, and no linehaul after a backhaul anywhere (the
  paper's ``backhaul_order`` probe now starts its route with a linehaul: the mirror image);
* ``precedence_carried``: a delivery before its own pickup where an earlier pickup of another pair
  keeps every running on-board sum within [0, Q]: a model that tracks the load but drops
  precedence accepts it (the paper's probe puts the delivery where nothing is on board);
* ``pair_exchange``: two routes swap the deliveries of pairs of equal quantity (one or two pairs a
  side), so every route's running sum stays within [0, Q] and ends at 0: a model that tracks the
  load but drops pairing accepts it (``split_pd_pair`` leaves a route below zero);
* ``extra_route``: one route more than a depot has vehicles, two of them on one vehicle that
  carries both within its limits (TSP: two tours through the start city);
* ``foreign_depot_start``: a vehicle's route leaves and re-enters another depot whose own vehicles
  are all out (a model that pools the depots' fleets accepts it).

On closed routes every route of the ``extra_route``, ``foreign_depot_start`` and ``backhaul_start``
probes names its end depot (its own), so INJ pins both depot arcs of each
(``vrpcoder.injection.depot_arc_fixes``): otherwise a model could serve a chain from another depot,
or leave a route of one customer unserved (a model that lets customers go unvisited would then
accept the probe, which is about another rule). Open routes have no depot arc to pin at their end,
so there the routes these probes add hold at least two customers (an arc between them is pinned).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

import numpy as np

from vrpcoder.attacks.editing import (
    Candidate,
    first_verified,
    route_families,
    shuffled,
    units_on,
    used_routes,
    with_route,
    without,
    without_quantities,
)
from vrpcoder.attacks.records import Attack, AttackSkipped
from vrpcoder.checker import route_distance
from vrpcoder.instances import Instance, PickupDelivery
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import Attacker, Module

LOAD_TOLERANCE = 1e-6

# ---- backhaul --------------------------------------------------------------------------------------


def backhaul_start(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """A route that serves backhaul customers only, every other route still starting with a
    linehaul: an idle vehicle takes backhauls off the other routes, or a route hands its linehauls
    to the others (each at its cheapest place before that route's first backhaul)."""
    if not any(c.backhaul for c in instance.customers):
        return AttackSkipped(attacker=Attacker.BACKHAUL_START, reason="the instance has no backhaul customer")
    return first_verified(
        Attacker.BACKHAUL_START,
        plus,
        (Candidate(instance, _pinned(instance, plan)) for plan in _backhaul_only(instance, plus, rng)),
        "no vehicle is idle and no route has both kinds of customer",
    )


def _backhaul_only(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Solution]:
    routes = shuffled(rng, used_routes(plus))
    backhauls = [c for r in routes for c in r.visits if instance.customer(c).backhaul]
    busy = {r.vehicle for r in routes}
    for k in (k for k, _ in enumerate(instance.vehicles) if k not in busy):
        depot = instance.vehicles[k].depot
        for size in (1, 2):
            for picked in combinations(backhauls, size):
                yield with_route(without(plus, picked), Route(vehicle=k, depot=depot, visits=picked))
        break
    for route in routes:
        linehauls = [c for c in route.visits if not instance.customer(c).backhaul]
        if not linehauls or len(linehauls) == len(route.visits):
            continue
        backhauls = tuple(c for c in route.visits if c not in linehauls)
        plan = with_route(plus, route.model_copy(update={"visits": backhauls}))
        for customer in linehauls:
            moved = _linehaul_into_cheapest(instance, plan, customer, route.vehicle)
            if moved is None:
                break
            plan = moved
        else:
            yield plan


def _linehaul_into_cheapest(instance: Instance, plan: Solution, customer: int, source: int) -> Solution | None:
    """``customer`` inserted into another route of ``plan`` before its first backhaul, at the
    place that lengthens it least among those that keep the route within every rule."""
    options: list[tuple[float, Solution]] = []
    for route in used_routes(plan):
        if route.vehicle == source:
            continue
        kinds = [instance.customer(c).backhaul for c in route.visits]
        first_backhaul = kinds.index(True) if True in kinds else len(kinds)
        for position in range(first_backhaul + 1):
            visits = (*route.visits[:position], customer, *route.visits[position:])
            grown = route.model_copy(update={"visits": visits})
            if not route_families(instance, grown):
                longer = route_distance(instance, grown) - route_distance(instance, route)
                options.append((longer, with_route(plan, grown)))
    return min(options, key=lambda o: o[0])[1] if options else None


# ---- pickup and delivery -------------------------------------------------------------------------


def running_sums(instance: Instance, route: Route) -> list[float]:
    """The on-board load after each visit as a model that tracks load but not pairs computes it:
    +q at every pickup, -q at every delivery, whatever route the partner is on."""
    change: dict[int, float] = {}
    for pair in instance.pairs:
        change[pair.pickup], change[pair.delivery] = pair.quantity, -pair.quantity
    sums, load = [], 0.0
    for visit in route.visits:
        load += change.get(visit, 0.0)
        sums.append(load)
    return sums


def carried(instance: Instance, plan: Solution) -> bool:
    """Every route's running sums lie within [0, Q] (and end at 0): a model that keeps the on-board
    load but drops pairing or precedence accepts such a plan."""
    for route in used_routes(plan):
        sums = running_sums(instance, route)
        capacity = instance.vehicles[route.vehicle].capacity
        top = float("inf") if capacity is None else capacity
        if min(sums) < -LOAD_TOLERANCE or max(sums) > top + LOAD_TOLERANCE or abs(sums[-1]) > LOAD_TOLERANCE:
            return False
    return True


def precedence_carried(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """A delivery served before its own pickup on one route, after the pickup of another pair whose
    quantity covers it, so that the running on-board sum never drops below zero."""
    return first_verified(
        Attacker.PRECEDENCE_CARRIED,
        plus,
        (Candidate(instance, plan) for plan in _reversals(instance, plus, rng) if carried(instance, plan)),
        "no route carries two pickup-delivery pairs, one of them enough to cover the other",
    )


def _pair_at(instance: Instance, route: Route) -> list[PickupDelivery]:
    on = set(route.visits)
    return [p for p in instance.pairs if p.pickup in on and p.delivery in on]


def _reversals(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Solution]:
    """The delivery moved ahead of its pickup on its own route (every earlier place), then a block
    pickup(B), delivery(A), pickup(A), delivery(B) with B from the same or another route, at every
    place of A's route."""
    routes = shuffled(rng, used_routes(plus))
    owner = {c: r for r in routes for c in r.visits}
    for route in routes:
        for pair in shuffled(rng, _pair_at(instance, route)):
            rest = [v for v in route.visits if v != pair.delivery]
            for position in range(rest.index(pair.pickup) + 1):
                visits = (*rest[:position], pair.delivery, *rest[position:])
                yield with_route(plus, route.model_copy(update={"visits": visits}))
    for route in routes:
        for pair in shuffled(rng, _pair_at(instance, route)):
            covers = [
                b
                for b in instance.pairs
                if b != pair and b.quantity >= pair.quantity - LOAD_TOLERANCE
                and b.pickup in owner and owner[b.pickup] is owner.get(b.delivery)
            ]
            for other in shuffled(rng, covers):
                nodes = (pair.pickup, pair.delivery, other.pickup, other.delivery)
                plan = without(plus, nodes)
                base = plan.route_of(route.vehicle) or Route(vehicle=route.vehicle, depot=route.depot, visits=())
                block = (other.pickup, pair.delivery, pair.pickup, other.delivery)
                for position in range(len(base.visits) + 1):
                    visits = (*base.visits[:position], *block, *base.visits[position:])
                    yield with_route(plan, base.model_copy(update={"visits": visits}))


def pair_exchange(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Two routes exchange the deliveries of one or two pairs each, of equal total quantity: every
    pair involved rides with two vehicles, and each route's running on-board sum stays within
    [0, Q] and ends at zero."""
    if len(instance.vehicles) < 2:
        return AttackSkipped(attacker=Attacker.PAIR_EXCHANGE, reason="the fleet has a single vehicle")
    return first_verified(
        Attacker.PAIR_EXCHANGE,
        plus,
        (Candidate(instance, plan) for plan in _exchanges(instance, plus, rng) if carried(instance, plan)),
        "no two routes carry pairs of equal total quantity",
    )


def _exchanges(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Solution]:
    routes = shuffled(rng, used_routes(plus))
    for first, second in combinations(routes, 2):
        for mine in _pair_sets(instance, first):
            for theirs in _pair_sets(instance, second):
                if abs(sum(p.quantity for p in mine) - sum(p.quantity for p in theirs)) > LOAD_TOLERANCE:
                    continue
                for placed in (_in_place, _at_end):
                    yield with_route(
                        with_route(plus, placed(first, mine, theirs)), placed(second, theirs, mine)
                    )


def _pair_sets(instance: Instance, route: Route) -> list[tuple[PickupDelivery, ...]]:
    pairs = _pair_at(instance, route)
    return [*combinations(pairs, 1), *combinations(pairs, 2)]


def _in_place(route: Route, given: Sequence[PickupDelivery], taken: Sequence[PickupDelivery]) -> Route:
    """The route's deliveries of ``given`` replaced, at the first one's place, by ``taken``'s."""
    gone = {p.delivery for p in given}
    first = min(route.visits.index(d) for d in gone)
    kept = [v for i, v in enumerate(route.visits) if v not in gone or i == first]
    at = kept.index(route.visits[first])
    visits = (*kept[:at], *(p.delivery for p in taken), *kept[at + 1 :])
    return route.model_copy(update={"visits": visits})


def _at_end(route: Route, given: Sequence[PickupDelivery], taken: Sequence[PickupDelivery]) -> Route:
    """The route without ``given``'s deliveries, ``taken``'s at its end (after every pickup)."""
    gone = {p.delivery for p in given}
    visits = (*(v for v in route.visits if v not in gone), *(p.delivery for p in taken))
    return route.model_copy(update={"visits": visits})


# ---- fleet and depots ------------------------------------------------------------------------------


def _pinned(instance: Instance, plan: Solution) -> Solution:
    """Every closed route names its end depot, so INJ pins both of its depot arcs (split delivery:
    and the plan leaves the quantities to the model, as every split probe does)."""
    if instance.has(Module.SPLIT):
        plan = without_quantities(plan)
    if instance.has(Module.OPEN):
        return plan
    routes = tuple(r.model_copy(update={"end_depot": r.end}) for r in plan.routes)
    return Solution(routes=routes, cycles=plan.cycles)


def pieces(instance: Instance, route: Route) -> list[tuple[int, ...]]:
    """What a probe may take off ``route`` to make a route of its own, the route keeping a
    customer: a pickup-delivery pair (its arc is pinned), else a customer (closed routes, whose
    depot arcs are pinned) or two neighbouring customers (open routes)."""
    if instance.has(Module.PD):
        found = units_on(instance, route.visits)
    else:
        size = 2 if instance.has(Module.OPEN) else 1
        found = [route.visits[i : i + size] for i in range(len(route.visits) - size + 1)]
    return [piece for piece in found if len(piece) < len(route.visits)]


def _clean(instance: Instance, route: Route) -> bool:
    return not route_families(instance, route)


def _staffed(instance: Instance, plan: Solution, depot: int, rng: np.random.Generator) -> Solution | None:
    """``plan`` with every idle vehicle of ``depot`` given a piece of its own (``pieces``) taken
    off another route, the nearest to the depot first, each route still within every rule (None
    when some idle vehicle cannot be given one)."""
    for k in (k for k, v in enumerate(instance.vehicles) if v.depot == depot and plan.route_of(k) is None):
        options: list[tuple[float, Solution]] = []
        for donor in used_routes(plan):
            for piece in shuffled(rng, pieces(instance, donor)):
                alone = Route(vehicle=k, depot=depot, visits=piece)
                rest = without(plan, piece)
                if _clean(instance, alone) and _clean(instance, rest.route_of(donor.vehicle) or donor):
                    options.append((route_distance(instance, alone), with_route(rest, alone)))
        if not options:
            return None
        plan = min(options, key=lambda o: o[0])[1]
    return plan


def _fits_together(instance: Instance, routes: Sequence[Route]) -> bool:
    """Whether one vehicle could drive all ``routes`` under a model that counts its limits per
    vehicle: the loads were one route's before (so they fit); the distances must add up within
    the limit."""
    limit = instance.max_route_distance
    return limit is None or sum(route_distance(instance, r) for r in routes) <= limit + 1e-6


def extra_route(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """One route more than a depot has vehicles: its idle vehicles each take a piece off the other
    routes, then one vehicle drives a piece of its own route as a second route (TSP: the tour split
    into two tours through the start city). The vehicle with two routes could drive both within
    its limits, so a model that drops only the route count accepts the probe."""
    candidates: list[Candidate] = []
    for depot in shuffled(rng, sorted({r.depot for r in used_routes(plus)})):
        staffed = _staffed(instance, plus, depot, rng)
        if staffed is None:
            continue
        for route in shuffled(rng, [r for r in used_routes(staffed) if r.depot == depot]):
            for piece in shuffled(rng, pieces(instance, route)):
                rest = without(staffed, piece).route_of(route.vehicle)
                second = Route(vehicle=route.vehicle, depot=depot, visits=piece)
                if rest is None or not _fits_together(instance, (rest, second)):
                    continue
                others = tuple(r for r in without(staffed, piece).routes)
                plan = Solution(routes=tuple(sorted((*others, second), key=lambda r: r.vehicle)))
                candidates.append(Candidate(instance, _pinned(instance, plan)))
    nothing = "no depot's routes can be split into one more route than it has vehicles"
    return first_verified(Attacker.EXTRA_ROUTE, plus, candidates, nothing)


def foreign_depot_start(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """A vehicle's route moved to another depot (leaving and re-entering it), that depot's own
    vehicles all out: no relabelling of the fleet repairs it, and a model that lets any vehicle
    start from any depot accepts it."""
    if instance.num_depots < 2 or instance.has(Module.OPEN):
        reason = "the vehicles have a single depot to start from"
        return AttackSkipped(attacker=Attacker.FOREIGN_DEPOT_START, reason=reason)
    candidates: list[Candidate] = []
    for route in shuffled(rng, used_routes(plus)):
        for depot in (d for d in range(instance.num_depots) if d != route.depot):
            moved = route.model_copy(update={"depot": depot, "end_depot": depot})
            rest = without(plus, route.visits)
            staffed = rest if instance.spec.heterogeneous else _staffed(instance, rest, depot, rng)
            if staffed is None:
                continue
            candidates.append(Candidate(instance, _pinned(instance, with_route(staffed, moved))))
    return first_verified(
        Attacker.FOREIGN_DEPOT_START, plus, candidates, "no route can move to another depot whose vehicles are all out"
    )


SUBRULE_ATTACKERS = {
    Attacker.BACKHAUL_START: backhaul_start,
    Attacker.PRECEDENCE_CARRIED: precedence_carried,
    Attacker.PAIR_EXCHANGE: pair_exchange,
    Attacker.EXTRA_ROUTE: extra_route,
    Attacker.FOREIGN_DEPOT_START: foreign_depot_start,
}

__all__ = ["SUBRULE_ATTACKERS", "carried", "pieces", "running_sums"]

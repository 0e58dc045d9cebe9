"""Parameter attacks: the probe moves customers *and* the attacked copy of the instance tightens one
resource bound between what s+ uses (g) and what the probe uses (b), so that s+ stays feasible and
the probe does not (paper, Appendix B.4, "Parameter Attacks").

Customers are moved greedily until the probe uses ``WANTED_EXCESS`` more than s+ (the move that
gets there by the least, else the one that adds most) or no customer is left to move. Bounds other
than the attacked one are widened on the copy wherever the probe would otherwise also break them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain

import numpy as np

from vrpcoder.attacks.editing import (
    WANTED_EXCESS,
    Candidate,
    accommodate,
    attacked_value,
    first_verified,
    insert_unit,
    pick,
    pool_proof,
    preferred,
    shuffled,
    units_on,
    used_routes,
    with_capacity,
    with_compartment,
    with_route,
    without,
)
from vrpcoder.attacks.records import EPS, Attack, AttackSkipped, BoundKind, ParameterBound
from vrpcoder.checker import backhaul_loads, compartment_loads, return_time, route_distance, schedule
from vrpcoder.families import Family
from vrpcoder.instances import Instance, TimeWindow
from vrpcoder.relabelling import feasible_relabelling
from vrpcoder.relaxation import capacity_usage, rebuilt, round_down, round_up
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import Attacker, Module

WINDOW_HALF_WIDTH = 1.0
"""The time-window attack narrows each window of the attacked route to s+'s service start plus or
minus this much (never widening it): far tighter than any swap of two customers with service
times can stay within."""

_LOADS = frozenset({Family.CAPACITY, Family.COMPARTMENT})
"""Load families do not depend on where a customer sits in its route."""

_NO_OVERLOAD = "no move of customers between the routes of s+ lifts a route's load clear above what s+ uses"

Usage = Callable[[Instance, Route], float]


# ---- moving customers into a target route -----------------------------------------------------


def _pickups_first(instance: Instance, visits: Sequence[int]) -> tuple[int, ...]:
    """Every pickup of the route, then every delivery, each in their current order: precedence
    and pairing hold, and the peak on-board load is the total of the route's pairs."""
    pickups = {p.pickup for p in instance.pairs}
    return tuple(v for v in visits if v in pickups) + tuple(v for v in visits if v not in pickups)


def _appended(instance: Instance, route: Route, unit: Sequence[int]) -> Route:
    visits = (*route.visits, *unit)
    if instance.has(Module.PD):
        visits = _pickups_first(instance, visits)
    return route.model_copy(update={"visits": visits, "deliveries": None})


def _placed(instance: Instance, route: Route, unit: Sequence[int], tolerated: frozenset[Family]) -> Route:
    if instance.has(Module.PD):
        return _appended(instance, route, unit)
    return insert_unit(instance, route, unit, tolerated)


def _accumulated(
    instance: Instance,
    plus: Solution,
    target: Route,
    usage: Usage,
    goal: float,
    rng: np.random.Generator,
    tolerated: frozenset[Family],
) -> tuple[Solution, Route]:
    """Move units from the other routes into ``target`` while its usage is below ``goal``; each
    step takes the unit that reaches the goal by the least (see :func:`pick`)."""
    donors = shuffled(
        rng,
        [u for r in used_routes(plus) if r.vehicle != target.vehicle for u in units_on(instance, r.visits)],
    )
    route = _appended(instance, target, ())
    solution = plus
    while donors and usage(instance, route) < goal:
        best = pick(
            [usage(instance, _appended(instance, route, u)) for u in donors], usage(instance, route), goal
        )
        if best is None:
            break
        unit = donors.pop(best)
        solution = without(solution, unit)
        route = _placed(instance, route, unit, tolerated)
    return with_route(solution, route), route


def _goal(g: float, eps: float) -> float:
    return g * (1 + WANTED_EXCESS) + 2 * eps


# ---- capacity ---------------------------------------------------------------------------------


def capacity_overload(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Overload one route with customers taken from the others, then set the capacity between the
    heaviest s+ route (the target vehicle's own s+ load for vehicle-specific capacities) and the
    overloaded load. On a mixed fleet, targets whose probe no reassignment of routes to vehicles
    makes feasible go first (see ``hf_overload``)."""
    if instance.has(Module.BH):
        # Backhaul piles first: a model that checks only the deliveries against capacity accepts them.
        piles = chain(
            _move_overloads(instance, plus, rng, grow=_backhaul_load, within=_linehaul_load),
            _move_overloads(instance, plus, rng),
        )
        return first_verified(Attacker.CAPACITY_OVERLOAD, plus, piles, _NO_OVERLOAD)
    if not instance.spec.heterogeneous:
        return first_verified(Attacker.CAPACITY_OVERLOAD, plus, _move_overloads(instance, plus, rng), _NO_OVERLOAD)
    moves = list(_move_overloads(instance, plus, rng))
    return _relabel_proof_first(Attacker.CAPACITY_OVERLOAD, plus, (c for c in moves if _relabel_proof(c)), moves)


def _linehaul_load(instance: Instance, route: Route) -> float:
    return backhaul_loads(instance, route)[0]


def _backhaul_load(instance: Instance, route: Route) -> float:
    return backhaul_loads(instance, route)[1]


def _move_overloads(
    instance: Instance,
    plus: Solution,
    rng: np.random.Generator,
    *,
    grow: Usage = capacity_usage,
    within: Usage | None = None,
) -> Iterator[Candidate]:
    """Pile ``grow`` (by default the load the capacity rule compares) onto each route in turn;
    ``within`` is a load that must stay under the attacked capacity, so that the pile alone
    breaks it."""
    routes = used_routes(plus)
    if not routes:
        return
    per_vehicle = instance.spec.heterogeneous
    top = max(capacity_usage(instance, r) for r in routes)
    for target in shuffled(rng, routes):
        g = capacity_usage(instance, target) if per_vehicle else top
        minus, grown = _accumulated(instance, plus, target, grow, _goal(g, EPS), rng, _LOADS)
        b = grow(instance, grown)
        if b <= g + 2 * EPS:
            continue
        value, at_formula = attacked_value(g, b, EPS, instance.vehicles[target.vehicle].capacity)
        if value <= g or (within is not None and within(instance, grown) > value):
            continue
        vehicle = target.vehicle if per_vehicle else None
        copy = accommodate(with_capacity(instance, value, vehicle), minus, BoundKind.CAPACITY)
        if copy is not None:
            bound = ParameterBound(kind=BoundKind.CAPACITY, g=g, b=b, value=value, vehicle=vehicle)
            yield Candidate(copy, minus, bound, at_formula)


def hf_overload(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Prefer a capacity probe that no reassignment of its routes to the fleet makes feasible.

    A model whose routing variable has no vehicle index may put any truck on any route, so it can
    only be asked about such a relabel-proof probe (``vrpcoder.relabelling``). Tried first, in
    order: pile customers onto one route until no vehicle of the fleet could carry them; pile them
    until only the target's own vehicle could, and tighten its capacity below the pile; a move
    overload that happens to be relabel-proof. Only when none of these meets the label rule does
    the plain move overload follow: it breaks capacity on its own vehicle alone, which still tests
    models that index vehicles. The first group wins even over a plain move overload whose bound
    keeps the rule's value while its own had to be lowered (see :func:`first_verified`).
    """
    moves = list(_move_overloads(instance, plus, rng))
    proof = chain(
        _extreme_overloads(instance, plus, rng),
        _lone_carrier_overloads(instance, plus, rng),
        (c for c in moves if _relabel_proof(c)),
    )
    return _relabel_proof_first(Attacker.HF_OVERLOAD, plus, proof, moves)


def _relabel_proof_first(
    attacker: Attacker, plus: Solution, proof: Iterable[Candidate], rest: Iterable[Candidate]
) -> Attack | AttackSkipped:
    """The first verified relabel-proof candidate, else the first verified of the rest (which
    still tests models that index vehicles)."""
    found = first_verified(attacker, plus, proof, _NO_OVERLOAD)
    if isinstance(found, Attack):
        return found
    return first_verified(attacker, plus, rest, _NO_OVERLOAD)


def _relabel_proof(candidate: Candidate) -> bool:
    """No assignment of the probe's routes to distinct vehicles of the attacked copy is feasible."""
    return feasible_relabelling(candidate.instance, candidate.solution) is None


def _extreme_overloads(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Candidate]:
    largest = max(v.capacity or 0.0 for v in instance.vehicles)
    for target in shuffled(rng, used_routes(plus)):
        minus, grown = _accumulated(instance, plus, target, capacity_usage, _goal(largest, EPS), rng, _LOADS)
        b = capacity_usage(instance, grown)
        own = instance.vehicles[target.vehicle].capacity
        if own is None or b <= largest + 2 * EPS:
            continue
        copy = accommodate(instance, minus, BoundKind.CAPACITY)
        if copy is not None:
            g = capacity_usage(instance, target)
            bound = ParameterBound(kind=BoundKind.CAPACITY, g=g, b=b, value=own, vehicle=target.vehicle)
            yield Candidate(copy, minus, bound)


def _lone_carrier_overloads(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> Iterator[Candidate]:
    """Grow the route of a vehicle larger than every other one beyond what any other could carry
    (and beyond its own s+ load), then set that vehicle's capacity between its s+ load and the pile.

    On the attacked copy no vehicle carries the pile, so the probe is relabel-proof by
    construction; this reaches fleets whose whole demand is too small for the extreme overload but
    more than the second largest vehicle carries.
    """
    for target in used_routes(plus):
        own = instance.vehicles[target.vehicle].capacity
        rival = _largest_other(instance, target.vehicle)
        if own is None or own <= rival:
            continue
        g = capacity_usage(instance, target)
        floor = max(rival, g)
        minus, grown = _accumulated(instance, plus, target, capacity_usage, _goal(floor, EPS), rng, _LOADS)
        b = capacity_usage(instance, grown)
        if b <= floor + 2 * EPS:
            continue
        value, at_formula = attacked_value(g, b, EPS, own)
        if value <= g:
            continue
        copy = accommodate(with_capacity(instance, value, target.vehicle), minus, BoundKind.CAPACITY)
        if copy is not None:
            bound = ParameterBound(kind=BoundKind.CAPACITY, g=g, b=b, value=value, vehicle=target.vehicle)
            yield Candidate(copy, minus, bound, at_formula)


def _largest_other(instance: Instance, vehicle: int) -> float:
    """The largest capacity among the fleet's other vehicles (0 for a fleet of one)."""
    return max((v.capacity or 0.0 for k, v in enumerate(instance.vehicles) if k != vehicle), default=0.0)


# ---- compartments -----------------------------------------------------------------------------


def compartment_overload(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> Attack | AttackSkipped:
    """Concentrate one compartment's demand on a route and tighten only that compartment's
    capacity; the total capacity and the other compartments are widened if the probe needs it."""
    return first_verified(
        Attacker.COMPARTMENT_OVERLOAD,
        plus,
        _compartment_overloads(instance, plus, rng),
        "no move of customers between the routes of s+ lifts a compartment load clear above what s+ uses",
    )


def _compartment_overloads(
    instance: Instance, plus: Solution, rng: np.random.Generator
) -> Iterator[Candidate]:
    routes = used_routes(plus)
    width = len(instance.vehicles[0].compartment_capacity or ())
    per_vehicle = instance.spec.heterogeneous
    for compartment in shuffled(rng, list(range(width))):

        def usage(inst: Instance, route: Route, c: int = compartment) -> float:
            return compartment_loads(inst, route)[c]

        top = max((usage(instance, r) for r in routes), default=0.0)
        for target in shuffled(rng, routes):
            g = usage(instance, target) if per_vehicle else top
            minus, grown = _accumulated(instance, plus, target, usage, _goal(g, EPS), rng, _LOADS)
            b = usage(instance, grown)
            if b <= g + 2 * EPS:
                continue
            current = (instance.vehicles[target.vehicle].compartment_capacity or ())[compartment]
            value, at_formula = attacked_value(g, b, EPS, current)
            if value <= g:
                continue
            vehicle = target.vehicle if per_vehicle else None
            tightened = with_compartment(instance, compartment, value, vehicle)
            copy = accommodate(tightened, minus, BoundKind.COMPARTMENT_CAPACITY, compartment)
            if copy is not None:
                copy = pool_proof(copy, minus, compartment)
                bound = ParameterBound(
                    kind=BoundKind.COMPARTMENT_CAPACITY,
                    g=g,
                    b=b,
                    value=value,
                    vehicle=vehicle,
                    compartment=compartment,
                )
                yield Candidate(copy, minus, bound, at_formula)


# ---- distance ---------------------------------------------------------------------------------


def distance_overrun(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Lengthen a route beyond the longest route of s+ and put D_max in between.

    Customers are moved into the longest route first (then into the others); a plan with a single
    route is lengthened by swapping two of its customers instead.
    """
    return first_verified(
        Attacker.DISTANCE_OVERRUN,
        plus,
        _overruns(instance, plus, rng),
        "no route of s+ can be made longer than its longest route",
    )


def _overruns(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Candidate]:
    routes = used_routes(plus)
    if not routes:
        return
    g = max(route_distance(instance, r) for r in routes)
    ordered = sorted(shuffled(rng, routes), key=lambda r: -route_distance(instance, r))
    for target in ordered:
        minus, grown = _lengthened(instance, plus, target, _goal(g, EPS), rng)
        candidate = _distance_candidate(instance, minus, g, route_distance(instance, grown))
        if candidate is not None:
            yield candidate
    longest = ordered[0]
    n = len(longest.visits)
    swaps = shuffled(rng, [_swapped(longest, i, j) for i in range(n) for j in range(i + 1, n)])
    lengths = [route_distance(instance, r) for r in swaps]
    for index in preferred(lengths, _goal(g, EPS)):
        candidate = _distance_candidate(instance, with_route(plus, swaps[index]), g, lengths[index])
        if candidate is not None:
            yield candidate


def _lengthened(
    instance: Instance, plus: Solution, target: Route, goal: float, rng: np.random.Generator
) -> tuple[Solution, Route]:
    """Like :func:`_accumulated` for route length: each unit is judged at its shortest position
    (it is placed there too, among the positions that keep the route's other rules)."""
    donors = shuffled(
        rng,
        [u for r in used_routes(plus) if r.vehicle != target.vehicle for u in units_on(instance, r.visits)],
    )
    route, solution = target, plus
    tolerated = frozenset({Family.DISTANCE, *_LOADS})
    while donors and route_distance(instance, route) < goal:
        best = pick(
            [_shortest_with(instance, route, u) for u in donors], route_distance(instance, route), goal
        )
        if best is None:
            break
        unit = donors.pop(best)
        solution = without(solution, unit)
        route = _placed(instance, route, unit, tolerated)
    return with_route(solution, route), route


def _shortest_with(instance: Instance, route: Route, unit: Sequence[int]) -> float:
    if instance.has(Module.PD):
        return route_distance(instance, _appended(instance, route, unit))
    return min(
        route_distance(
            instance, route.model_copy(update={"visits": (*route.visits[:i], *unit, *route.visits[i:])})
        )
        for i in range(len(route.visits) + 1)
    )


def _swapped(route: Route, i: int, j: int) -> Route:
    visits = list(route.visits)
    visits[i], visits[j] = visits[j], visits[i]
    return route.model_copy(update={"visits": tuple(visits), "deliveries": None})


def _distance_candidate(instance: Instance, minus: Solution, g: float, b: float) -> Candidate | None:
    if b <= g + 2 * EPS or instance.max_route_distance is None:
        return None
    value, at_formula = attacked_value(g, b, EPS, instance.max_route_distance)
    if value <= g:
        return None
    copy = accommodate(rebuilt(instance, max_route_distance=value), minus, BoundKind.MAX_ROUTE_DISTANCE)
    if copy is None:
        return None
    bound = ParameterBound(kind=BoundKind.MAX_ROUTE_DISTANCE, g=g, b=b, value=value)
    return Candidate(copy, minus, bound, at_formula)


# ---- time windows -----------------------------------------------------------------------------


def time_window(instance: Instance, plus: Solution, rng: np.random.Generator) -> Attack | AttackSkipped:
    """Swap two neighbouring customers of a route and narrow that route's windows around the
    service starts s+ gives them, keeping the probe only if the swapped route then misses one.

    The swap keeps the route's customers, vehicle and load; a pickup is never swapped with its own
    delivery, so a missed window is not also a precedence violation. Narrowing never widens a
    window, and s+ keeps its exact schedule on the narrowed windows (each start already lies in
    its new window, and waiting until a later window start is what s+ did before).
    """
    return first_verified(
        Attacker.TIME_WINDOW,
        plus,
        _window_attacks(instance, plus, rng),
        "no route has two neighbouring customers that may be swapped",
    )


def _window_attacks(instance: Instance, plus: Solution, rng: np.random.Generator) -> Iterator[Candidate]:
    own_pair = {(p.pickup, p.delivery) for p in instance.pairs}
    for route in shuffled(rng, [r for r in used_routes(plus) if len(r.visits) >= 2]):
        narrowed = _narrowed(instance, route)
        for i in shuffled(rng, list(range(len(route.visits) - 1))):
            if (route.visits[i], route.visits[i + 1]) in own_pair:
                continue
            swapped = _swapped(route, i, i + 1)
            minus = with_route(plus, swapped)
            bound = _missed_window(narrowed, route, swapped)
            if bound is None:
                continue
            copy = accommodate(narrowed, minus, BoundKind.TIME_WINDOW)
            if copy is not None:
                yield Candidate(copy, minus, bound)


def _narrowed(instance: Instance, route: Route) -> Instance:
    starts = dict(zip(route.visits, schedule(instance, route), strict=True))
    customers = []
    for node, customer in zip(instance.customer_nodes, instance.customers, strict=True):
        window, start = customer.window, starts.get(node)
        if window is None or start is None:
            customers.append(customer)
            continue
        opens = max(window.start, round_down(start - WINDOW_HALF_WIDTH))
        closes = min(window.end, round_up(start + WINDOW_HALF_WIDTH))
        customers.append(customer.model_copy(update={"window": TimeWindow(start=opens, end=closes)}))
    return rebuilt(instance, customers=tuple(customers))


def _missed_window(instance: Instance, before: Route, after: Route) -> ParameterBound | None:
    """The first window the swapped route misses (a customer's, else the depot's closing)."""
    planned = dict(zip(before.visits, schedule(instance, before), strict=True))
    for visit, start in zip(after.visits, schedule(instance, after), strict=True):
        window = instance.customer(visit).window
        if window is not None and start > window.end + 1e-6:
            return ParameterBound(
                kind=BoundKind.TIME_WINDOW,
                g=planned[visit],
                b=start,
                value=window.end,
                vehicle=after.vehicle,
                customer=visit,
            )
    depot = instance.depots[after.depot].window
    if depot is None or instance.has(Module.OPEN):
        return None
    back = return_time(instance, after)
    if back > depot.end + 1e-6:
        return ParameterBound(
            kind=BoundKind.TIME_WINDOW,
            g=return_time(instance, before),
            b=back,
            value=depot.end,
            vehicle=after.vehicle,
        )
    return None

"""The checker's price of a route plan, term by term, and the terms that account for a gap.

Cost injection (``vrpcoder.verification``) compares a candidate's own objective on a pinned
feasible plan with ``vrpcoder.checker.check(instance, plan).cost``. A bare "123.4 != 118.2" tells
nobody what is wrong, so the price is itemised here the way ``docs/semantics.md`` defines it (per
route: its vehicle's rate times its distance; per used vehicle: its fixed cost; per customer: its
soft-window lateness times its penalty) together with what the objective deliberately leaves out
(the return leg of an open route, driven in the model as a free arc). The terms whose value equals
the gap are the likely culprits: a dropped penalty weight leaves a gap of the lateness, an open
route that pays its return a gap of the return legs. That is a pointer for a person, not a proof:
a rate that is off by some factor leaves a gap no single term matches, and then none is named.

Pure Python on the checker's own building blocks: the sandbox's supervisor can run it again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from vrpcoder_client.verdicts import PriceKind, PriceTerm

from vrpcoder.checker import check, is_open, route_distance, schedule
from vrpcoder.instances import Instance
from vrpcoder.solutions import Solution


def plan_price(instance: Instance, solution: Solution) -> float:
    """The checker's price of the plan (the one number cost injection compares with)."""
    return check(instance, solution).cost


def price_terms(instance: Instance, solution: Solution) -> tuple[PriceTerm, ...]:
    """The price of an evaluable plan (routes whose vehicles and nodes exist), term by term.

    The ``priced`` terms add up to ``plan_price`` (cycles included, at their vehicle's rate, as the
    checker prices them); an open route's return leg is listed with ``priced=False``."""
    terms: list[PriceTerm] = []
    routes = [r for r in solution.routes if r.visits]
    for route in routes:
        vehicle = instance.vehicles[route.vehicle]
        distance = route_distance(instance, route)
        terms.append(
            PriceTerm(
                kind=PriceKind.DISTANCE, vehicle=route.vehicle, value=vehicle.cost_per_distance * distance,
                detail=f"vehicle {route.vehicle}: {distance:.6g} driven at {vehicle.cost_per_distance:g} per unit",
            )
        )
    for k in sorted({r.vehicle for r in routes}):
        fixed = instance.vehicles[k].fixed_cost
        if fixed:
            terms.append(PriceTerm(kind=PriceKind.FIXED, vehicle=k, value=fixed, detail=f"vehicle {k} used"))
    for route in routes:
        terms += _lateness(instance, route.vehicle, route.visits, schedule(instance, route))
    for cycle in solution.cycles:
        rate = 1.0 if cycle.vehicle is None else instance.vehicles[cycle.vehicle].cost_per_distance
        length = sum(instance.distances[u][v] for u, v in cycle.arcs)
        terms.append(
            PriceTerm(
                kind=PriceKind.DISTANCE, vehicle=cycle.vehicle, value=rate * length,
                detail=f"cycle {list(cycle.visits)}: {length:.6g} driven at {rate:g} per unit",
            )
        )
    if is_open(instance):
        for route in routes:
            rate = instance.vehicles[route.vehicle].cost_per_distance
            leg = instance.distances[route.visits[-1]][route.depot]
            terms.append(
                PriceTerm(
                    kind=PriceKind.RETURN_LEG, vehicle=route.vehicle, value=rate * leg, priced=False,
                    detail=f"vehicle {route.vehicle}: {route.visits[-1]} -> {route.depot} not driven on an open route",
                )
            )
    return tuple(terms)


def _lateness(instance: Instance, vehicle: int, visits: Sequence[int], starts: Sequence[float]) -> list[PriceTerm]:
    out: list[PriceTerm] = []
    for visit, start in zip(visits, starts, strict=True):
        customer = instance.customer(visit)
        if customer.late_penalty is None or customer.window is None or start <= customer.window.end:
            continue
        late = start - customer.window.end
        out.append(
            PriceTerm(
                kind=PriceKind.LATENESS, vehicle=vehicle, customer=visit, value=customer.late_penalty * late,
                detail=(
                    f"customer {visit} served at {start:.6g}, {late:.6g} after its window closes, "
                    f"at {customer.late_penalty:g} per unit"
                ),
            )
        )
    return out


def terms_behind_gap(terms: Sequence[PriceTerm], gap: float, tolerance: float) -> tuple[PriceTerm, ...]:
    """The terms, or sums of one kind of term, whose value equals ``|gap|`` within ``tolerance``.

    Sums of a kind come first (all lateness, all fixed costs, all return legs), then single terms;
    a value already named is not named again."""
    wanted = abs(gap)
    if wanted <= tolerance:
        return ()
    found: list[PriceTerm] = []
    for term in (*_sums(terms), *terms):
        if abs(term.value - wanted) <= tolerance and not any(
            t.kind is term.kind and abs(t.value - term.value) <= tolerance for t in found
        ):
            found.append(term)
    return tuple(found)


def _sums(terms: Sequence[PriceTerm]) -> Iterable[PriceTerm]:
    for kind in PriceKind:
        group = [t for t in terms if t.kind is kind]
        if len(group) > 1:
            yield PriceTerm(
                kind=kind, value=sum(t.value for t in group), priced=group[0].priced,
                detail=f"all {len(group)} {kind.value} terms together",
            )

"""Which probes a model can judge when its routing variable has no vehicle index.

A 2-index ``x[i, j]`` says which arcs are driven, not by which vehicle. With a heterogeneous
fleet, a violating probe may break a rule only for the vehicles its routes happen to be on: a
route overloading a small truck is fine on a big one that the plan leaves idle. Injecting that
probe into a correct 2-index model fixes its arcs only, the model is free to put the big truck on
that route, and the honest answer is "feasible" -- against the probe's label. Such a probe cannot
be judged through a 2-index ``x``; it is reported as unjudgeable, not failed, and leaves the
reward's probe share (SPEC section 3: accept a 2-index variable where it can be matched reliably,
and say so in the verdict).

The test uses the pure-Python checker: the probe is unjudgeable exactly when some reassignment of
its routes to distinct vehicles of the fleet is feasible, each route driven from its new vehicle's
own depot (INJ pins customer-to-customer arcs only and leaves depot arcs free, so on several
depots a 2-index model may also move a route to another depot). Rules that tie routes together are the fleet's alone (one route per vehicle), so it is
a bipartite matching over the pairs (route, vehicle) on which the route on its own breaks nothing;
the matching's plan is then checked as a whole.
"""

from __future__ import annotations

from collections.abc import Sequence

from vrpcoder.checker import check
from vrpcoder.families import Family
from vrpcoder.instances import Instance
from vrpcoder.probes import Label, Probe
from vrpcoder.solutions import Route, Solution


def _driven_by(instance: Instance, route: Route, vehicle: int) -> Route:
    """The route's customers driven by ``vehicle``, from and back to that vehicle's depot."""
    return route.model_copy(update={"vehicle": vehicle, "depot": instance.vehicles[vehicle].depot})


def _movable(instance: Instance, route: Route, vehicle: int) -> bool:
    """A route that names its end depot has its depot arcs pinned by INJ, so it can only move to a
    vehicle of the depot it leaves."""
    return route.end_depot is None or instance.vehicles[vehicle].depot == route.depot


def _fits(instance: Instance, route: Route, vehicle: int) -> bool:
    """The route alone, driven by ``vehicle``, breaks nothing but coverage (the other routes'
    customers are missing from a plan of one route)."""
    alone = Solution(routes=(_driven_by(instance, route, vehicle),))
    return set(check(instance, alone).families) <= {Family.COVERAGE}


def distinct_assignment(options: Sequence[Sequence[int]], vehicles: int) -> list[int] | None:
    """A distinct vehicle for every route from its options (bipartite matching by augmenting
    paths), or None; the one matching both relabelling and the optimum check use."""
    driver: list[int | None] = [None] * vehicles

    def place(route: int, seen: set[int]) -> bool:
        for vehicle in options[route]:
            if vehicle in seen:
                continue
            seen.add(vehicle)
            holder = driver[vehicle]
            if holder is None or place(holder, seen):
                driver[vehicle] = route
                return True
        return False

    if not all(place(route, set()) for route in range(len(options))):
        return None
    assigned = [0] * len(options)
    for vehicle, route in enumerate(driver):
        if route is not None:
            assigned[route] = vehicle
    return assigned


def feasible_relabelling(instance: Instance, solution: Solution) -> Solution | None:
    """The same routes driven by other vehicles, feasible as a whole; None if there is none."""
    routes = [r for r in solution.routes if r.visits]
    count = len(instance.vehicles)
    options = [[k for k in range(count) if _movable(instance, route, k) and _fits(instance, route, k)] for route in routes]
    assigned = distinct_assignment(options, count)
    if assigned is None:
        return None
    moved = tuple(_driven_by(instance, route, k) for route, k in zip(routes, assigned, strict=True))
    relabelled = solution.model_copy(update={"routes": moved})
    return relabelled if check(instance, relabelled).feasible else None


def judgeable_by_arcs(instance: Instance, probe: Probe) -> bool:
    """Whether a model that sees arcs but not vehicles can tell this probe's label.

    Always for a feasible probe (its arcs are feasible, so a correct model accepts them) and on a
    fleet of identical vehicles per depot (a relabelling changes nothing); otherwise only when no
    feasible relabelling of the probe exists."""
    if probe.label is Label.FEASIBLE or not instance.spec.heterogeneous:
        return True
    return feasible_relabelling(instance, probe.solution) is None

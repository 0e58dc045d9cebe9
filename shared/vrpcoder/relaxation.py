"""One-way relaxation of an instance around its feasible probe s+ (paper, Appendix B.5).

A parameter attack needs room: it tightens one bound into the open interval between what s+ uses
and what the violating probe uses, and it may widen the other bounds of its copy so that the probe
breaks nothing else. Before any attack, the sample instance I* is therefore made slightly looser
around s+: every bounded resource is widened relative to what s+ uses, and nothing is ever
narrowed, so s+ stays feasible and a correct model of I* accepts every plan it accepted before.

The amounts are fixed constants, so the same (instance, s+) always gives the same I*:

* capacities (per vehicle for heterogeneous fleets, the common Q otherwise) become at least
  ``1 + CAPACITY_MARGIN`` times the largest load s+ puts on them; compartment capacities likewise,
  per compartment, and the total capacity of a compartmented vehicle is raised to at least the sum
  of its compartments so the total never binds before the compartments it is made of;
* the distance limit becomes at least ``1 + DISTANCE_MARGIN`` times the longest route of s+;
* every customer window (hard or soft) is stretched to contain ``WINDOW_SLACK`` time units on
  either side of the service start s+ gives it, clipped to ``[0, WINDOW_LIMIT]``, and each depot's
  horizon is stretched to cover every customer window and ``WINDOW_SLACK`` after its routes return.

Widened numbers are rounded outwards to two decimals, like every number the sampler stores.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from vrpcoder.checker import (
    backhaul_loads,
    check,
    compartment_loads,
    onboard_loads,
    return_time,
    route_distance,
    route_load,
    schedule,
)
from vrpcoder.families import Family
from vrpcoder.instances import Customer, Depot, Instance, TimeWindow, Vehicle
from vrpcoder.sampling.rules import ceil2
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import Module

CAPACITY_MARGIN = 0.10
DISTANCE_MARGIN = 0.10
WINDOW_SLACK = 10.0
WINDOW_LIMIT = 1500.0
SPLIT_PRECISION = 1e-4
"""Bisection precision of :func:`split_capacity_need` (far below any margin an attack uses)."""


# ---- two-decimal rounding away from the plan ---------------------------------------------------


def round_up(value: float) -> float:
    """Smallest two-decimal number not below ``value`` once binary noise is ignored (1.1 * 7 is
    7.700000000000001 in floating point and must widen to 7.7, not 7.71). Bounds rounded this way
    hold the plan within the checker's tolerance."""
    return ceil2(round(value, 9))


def round_down(value: float) -> float:
    return -round_up(-value)


# ---- what a plan uses --------------------------------------------------------------------------


def capacity_usage(instance: Instance, route: Route) -> float:
    """The one number the capacity rule compares with the route's vehicle capacity.

    VRPB bounds linehaul and backhaul loads separately, so its usage is the larger of the two;
    pickup and delivery bounds the on-board load, so its usage is the peak; otherwise the route
    load (the given quantities for split routes that carry them).
    """
    if instance.has(Module.BH):
        return max(backhaul_loads(instance, route))
    if instance.has(Module.PD):
        return max(onboard_loads(instance, route), default=0.0)
    return route_load(instance, route)


def split_capacity_need(instance: Instance, solution: Solution) -> float:
    """Smallest common capacity under which the checker accepts the plan's split quantities.

    Split plans without given quantities have no route loads of their own: the checker asks
    whether *some* split fits. Bisection over the common capacity with the checker as the oracle
    answers "how much capacity does this plan need" without a second implementation of that rule.
    Only meaningful for homogeneous split-delivery instances. When every route states its
    quantities the answer is simply the largest route load; otherwise it is rounded up to the
    bisection's precision, so the plan fits the returned capacity.
    """
    if not instance.has(Module.SPLIT):
        raise ValueError(f"{instance.variant} is not a split-delivery variant")
    routes = [r for r in solution.routes if r.visits]
    if routes and not solution.cycles and all(r.deliveries is not None for r in routes):
        return max(route_load(instance, r) for r in routes)
    low, high = 0.0, sum(c.demand for c in instance.customers) + 1.0
    if not _fits(instance, solution, high):
        raise ValueError(
            "the plan breaks its capacity whatever the capacity is (a route delivers above demand?)"
        )
    while high - low > SPLIT_PRECISION:
        middle = (low + high) / 2
        low, high = (low, middle) if _fits(instance, solution, middle) else (middle, high)
    return round(math.ceil(high / SPLIT_PRECISION) * SPLIT_PRECISION, 4)


def _fits(instance: Instance, solution: Solution, capacity: float) -> bool:
    fleet = tuple(v.model_copy(update={"capacity": capacity}) for v in instance.vehicles)
    trial = rebuilt(instance, vehicles=fleet)
    return Family.CAPACITY not in check(trial, solution).families


# ---- the relaxation ----------------------------------------------------------------------------


def relax(instance: Instance, plus: Solution) -> Instance:
    """I*: the instance with every bounded resource widened around the feasible plan ``plus``."""
    report = check(instance, plus)
    if not report.feasible:
        raise ValueError(
            f"s+ must be feasible on {instance.name!r} before relaxation: {report.violations[0].detail}"
        )
    routes = [r for r in plus.routes if r.visits]
    changes: dict[str, object] = {"vehicles": _vehicles(instance, routes)}
    if instance.max_route_distance is not None:
        longest = max((route_distance(instance, r) for r in routes), default=0.0)
        changes["max_route_distance"] = max(
            instance.max_route_distance, round_up((1 + DISTANCE_MARGIN) * longest)
        )
    if any(c.window is not None for c in instance.customers):
        customers = _customer_windows(instance, routes)
        changes["customers"] = customers
        changes["depots"] = _depot_windows(instance, routes, customers)
    return rebuilt(instance, **changes)


def rebuilt(instance: Instance, **changes: object) -> Instance:
    """A validated copy with some fields replaced (``model_copy`` would skip validation and carry
    cached derived values such as the distance matrix over)."""
    fields = {name: getattr(instance, name) for name in Instance.model_fields}
    return Instance.model_validate({**fields, **changes})


def _widened(current: float | None, used: float, margin: float) -> float | None:
    return None if current is None else max(current, round_up((1 + margin) * used))


def _vehicles(instance: Instance, routes: Sequence[Route]) -> tuple[Vehicle, ...]:
    """Widen per vehicle for heterogeneous fleets, by the fleet-wide maximum otherwise (the
    validator keeps homogeneous fleets identical)."""
    vehicles = instance.vehicles
    per_route = {r.vehicle: r for r in routes}
    if instance.has(Module.SPLIT) and routes:
        need = split_capacity_need(instance, Solution(routes=tuple(routes)))
        loads = {k: need for k in range(len(vehicles))}
    else:
        loads = {k: capacity_usage(instance, r) for k, r in per_route.items()}
    width = len(vehicles[0].compartment_capacity or ())
    parts = {k: compartment_loads(instance, r) for k, r in per_route.items()} if width else {}
    if not instance.spec.heterogeneous:
        top = max(loads.values(), default=0.0)
        loads = {k: top for k in range(len(vehicles))}
        if width:
            tops = tuple(max((p[c] for p in parts.values()), default=0.0) for c in range(width))
            parts = {k: tops for k in range(len(vehicles))}
    return tuple(
        _widened_vehicle(v, loads.get(k, 0.0), parts.get(k, (0.0,) * width)) for k, v in enumerate(vehicles)
    )


def _widened_vehicle(vehicle: Vehicle, load: float, parts: Sequence[float]) -> Vehicle:
    capacity = _widened(vehicle.capacity, load, CAPACITY_MARGIN)
    compartments = vehicle.compartment_capacity
    if compartments is not None:
        compartments = tuple(
            max(limit, round_up((1 + CAPACITY_MARGIN) * used))
            for limit, used in zip(compartments, parts, strict=True)
        )
        if capacity is not None:
            capacity = max(capacity, round_up(sum(compartments)))
    return vehicle.model_copy(update={"capacity": capacity, "compartment_capacity": compartments})


def _customer_windows(instance: Instance, routes: Iterable[Route]) -> tuple[Customer, ...]:
    """Stretch each visited customer's window around its service start in s+.

    Lowering window starts can only make the earliest schedule earlier, and raising ends only
    allows more, so s+ keeps every window (and its depot return) after the change.
    """
    starts = {v: t for r in routes for v, t in zip(r.visits, schedule(instance, r), strict=True)}
    out: list[Customer] = []
    for node, customer in zip(instance.customer_nodes, instance.customers, strict=True):
        window, start = customer.window, starts.get(node)
        if window is None or start is None:
            out.append(customer)
            continue
        opens = min(window.start, max(0.0, round_down(start - WINDOW_SLACK)))
        closes = max(window.end, min(WINDOW_LIMIT, round_up(start + WINDOW_SLACK)))
        out.append(customer.model_copy(update={"window": TimeWindow(start=opens, end=closes)}))
    return tuple(out)


def _depot_windows(
    instance: Instance, routes: Sequence[Route], customers: Sequence[Customer]
) -> tuple[Depot, ...]:
    latest_close = max((c.window.end for c in customers if c.window is not None), default=0.0)
    out: list[Depot] = []
    for index, depot in enumerate(instance.depots):
        window = depot.window
        if window is None:
            out.append(depot)
            continue
        returns = [return_time(instance, r) for r in routes if r.depot == index and r.visits]
        wanted = min(WINDOW_LIMIT, round_up(max(returns, default=0.0) + WINDOW_SLACK))
        closes = max(window.end, latest_close, wanted)
        out.append(depot.model_copy(update={"window": TimeWindow(start=window.start, end=closes)}))
    return tuple(out)

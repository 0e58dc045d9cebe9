"""The inline data block of a gold script: the instance written out as Python literals.

Scripts are read by people and by the rewriting LLM, so every constant has a plain name and a
comment, and only the data the variant uses appears. Distances are not precomputed for coordinate
conventions: the script carries the source of :func:`vrpcoder.distances.pair_distance`, so the
script and the checker evaluate the one shared definition.
"""

from __future__ import annotations

import inspect
import pprint

from vrpcoder.distances import DistanceKind, pair_distance
from vrpcoder.gold.features import ScriptFeatures
from vrpcoder.instances import Instance, TimeWindow


def _literal(value: object) -> str:
    return pprint.pformat(value, width=100, sort_dicts=False)


def _assign(name: str, value: object, comment: str) -> list[str]:
    return [f"# {comment}", f"{name} = {_literal(value)}"]


def _per_customer(instance: Instance, values: list[object]) -> dict[int, object]:
    return dict(zip(instance.customer_nodes, values, strict=True))


def _distance_lines(instance: Instance) -> list[str]:
    if instance.distance.kind is DistanceKind.EXPLICIT:
        return _assign(
            "DIST", instance.distances, "Travel distance (= travel time) between nodes, given explicitly."
        )
    source = inspect.getsource(pair_distance).rstrip()
    return [
        *_assign(
            "DISTANCE_KIND", instance.distance.kind.value, "How distances are measured between coordinates."
        ),
        "",
        "",
        source,
        "",
        "",
        "# Travel distance (= travel time) between nodes.",
        "DIST = [[0.0 if i == j else pair_distance(DISTANCE_KIND, COORDS[i], COORDS[j]) for j in range(N)] for i in range(N)]",
    ]


def _bounds(window: TimeWindow | None, what: str) -> tuple[float, float]:
    if window is None:
        raise ValueError(f"{what} has no time window, but the variant has time windows")
    return (float(window.start), float(window.end))


def _window_lines(instance: Instance, features: ScriptFeatures) -> list[str]:
    windows: dict[int, tuple[float, float]] = {}
    for node, depot in enumerate(instance.depots):
        windows[node] = _bounds(depot.window, f"depot {node}")
    for node in instance.customer_nodes:
        windows[node] = _bounds(instance.customer(node).window, f"customer {node}")
    lines = _assign(
        "WINDOW", windows, "Time window (earliest, latest service start) per node; depots: opening hours."
    )
    service = [float(c.service_time) for c in instance.customers]
    lines += _assign("SERVICE", _per_customer(instance, list(service)), "Service duration at each customer.")
    if features.soft_windows:
        penalties = [float(c.late_penalty or 0.0) for c in instance.customers]
        lines += _assign(
            "LATE_PENALTY",
            _per_customer(instance, list(penalties)),
            "Cost per time unit of starting service late.",
        )
    return lines


def data_lines(instance: Instance, features: ScriptFeatures) -> list[str]:
    """Top-level statements defining every constant the modules of this variant refer to."""
    vehicles = instance.vehicles
    lines: list[str] = []
    lines += _assign("NAME", instance.name, "Instance name.")
    lines += _assign("N", instance.num_nodes, "Number of nodes: depots first, then customers.")
    lines += _assign("K", len(vehicles), "Number of vehicles; each drives at most one route.")
    lines += _assign("DEPOTS", list(range(instance.num_depots)), "Depot nodes.")
    lines += _assign("CUSTOMERS", list(instance.customer_nodes), "Customer nodes.")
    lines += _assign(
        "COORDS", [(float(x), float(y)) for x, y in instance.coords], "Coordinates of every node."
    )
    lines += _assign("VEHICLE_DEPOT", [v.depot for v in vehicles], "Home depot of each vehicle.")
    if features.capacity:
        lines += _assign(
            "CAPACITY", [float(v.capacity or 0.0) for v in vehicles], "Load capacity of each vehicle."
        )
    if features.compartments:
        lines += _assign(
            "COMPARTMENT_CAPACITY",
            [tuple(float(c) for c in v.compartment_capacity or ()) for v in vehicles],
            "Capacity of each compartment of each vehicle.",
        )
    if features.fixed_costs:
        lines += _assign(
            "FIXED_COST", [float(v.fixed_cost) for v in vehicles], "Cost paid once per vehicle used."
        )
    lines += _assign(
        "COST_PER_DISTANCE",
        [float(v.cost_per_distance) for v in vehicles],
        "Cost per unit distance per vehicle.",
    )
    if features.needs_demand:
        demand = [float(c.demand) for c in instance.customers]
        lines += _assign("DEMAND", _per_customer(instance, list(demand)), "Demand of each customer.")
    if features.compartments:
        per_compartment = [tuple(float(d) for d in c.compartment_demand or ()) for c in instance.customers]
        lines += _assign(
            "COMPARTMENT_DEMAND", _per_customer(instance, list(per_compartment)), "Demand per compartment."
        )
    if features.backhaul:
        lines += _assign(
            "LINEHAUL",
            [n for n in instance.customer_nodes if not instance.customer(n).backhaul],
            "Linehaul customers (goods delivered from the depot).",
        )
        lines += _assign(
            "BACKHAUL",
            [n for n in instance.customer_nodes if instance.customer(n).backhaul],
            "Backhaul customers (goods picked up and brought back to the depot).",
        )
    if features.pickup_delivery:
        lines += _assign(
            "PAIRS",
            [(p.pickup, p.delivery, float(p.quantity)) for p in instance.pairs],
            "Requests (pickup node, delivery node, quantity): load at the pickup, unload at the delivery.",
        )
    if features.timed:
        lines += _window_lines(instance, features)
    if features.distance_limit:
        lines += _assign(
            "MAX_ROUTE_DISTANCE", float(instance.max_route_distance or 0.0), "Longest allowed route."
        )
    lines += _assign(
        "OPEN_ROUTES", features.open_routes, "Open routes end at their last customer (return leg free)."
    )
    lines += _distance_lines(instance)
    lines += [
        "# Distance a leg counts towards route length and travel cost (return legs are free on open routes).",
        "LEG = [[0.0 if OPEN_ROUTES and j in DEPOTS else DIST[i][j] for j in range(N)] for i in range(N)]",
        "",
        "",
        *_GROUPS.strip("\n").splitlines(),
    ]
    return lines


_GROUPS = """


def customer_groups():
    \"\"\"Groups of customers that routes tend to serve together, on which cuts are stated: each
    customer with its nearest neighbours, runs of customers in angular order around the depots,
    and all customers.\"\"\"
    centre = [sum(COORDS[d][axis] for d in DEPOTS) / len(DEPOTS) for axis in (0, 1)]
    by_angle = sorted(CUSTOMERS, key=lambda j: math.atan2(COORDS[j][1] - centre[1], COORDS[j][0] - centre[0]))
    groups = {frozenset(CUSTOMERS)}
    for size in range(2, len(CUSTOMERS)):
        for i in CUSTOMERS:
            groups.add(frozenset(sorted(CUSTOMERS, key=lambda j: DIST[i][j])[:size]))
        for first in range(len(by_angle)):
            groups.add(frozenset(by_angle[(first + t) % len(by_angle)] for t in range(size)))
    return sorted(groups, key=sorted)


GROUPS = customer_groups()
"""

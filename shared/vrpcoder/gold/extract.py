"""Read a route plan back out of a solved model's routing variables.

Only the protocol variables are read (``x[i,j,k]``, or ``x[i,j]`` for the two-index model of
identical vehicles, and, for split delivery, ``q[i,k]``), so the
same extraction serves gold scripts, their mutants and candidate scripts that follow the protocol.
Arcs not reachable from a vehicle's depot are reported as cycles rather than dropped, so a model
that lacks subtour elimination shows its cycles to the checker.
"""

from __future__ import annotations

import re
from collections import defaultdict

import gurobipy as gp

from vrpcoder.instances import Instance
from vrpcoder.solutions import Cycle, Route, Solution
from vrpcoder.variants import Module

ARC_THRESHOLD = 0.5
_INDEXED = re.compile(r"^(?P<name>[A-Za-z_]\w*)\[(?P<index>[^\]]*)\]$")


def _indexed_values(model: gp.Model, name: str) -> dict[tuple[int, ...], float]:
    """Solution values of variable family ``name`` keyed by integer index tuples."""
    out: dict[tuple[int, ...], float] = {}
    variables = model.getVars()
    values = model.getAttr("X", variables)
    for var, value in zip(variables, values, strict=True):
        found = _INDEXED.match(var.VarName)
        if found is None or found["name"] != name:
            continue
        try:
            out[tuple(int(part) for part in found["index"].split(","))] = float(value)
        except ValueError as exc:
            raise ValueError(f"variable {var.VarName!r} does not have integer indices") from exc
    return out


def _successors(arcs: dict[tuple[int, ...], float], instance: Instance) -> dict[int, dict[int, list[int]]]:
    """Per vehicle: node -> heads of the used arcs leaving it."""
    vehicles = len(instance.vehicles)
    out: dict[int, dict[int, list[int]]] = {k: defaultdict(list) for k in range(vehicles)}
    for index, value in arcs.items():
        if len(index) != 3:
            raise ValueError(f"x{list(index)} is not indexed x[i, j, k]")
        i, j, k = index
        if not (0 <= k < vehicles and 0 <= i < instance.num_nodes and 0 <= j < instance.num_nodes):
            raise ValueError(f"x[{i},{j},{k}] lies outside the instance's nodes and vehicles")
        if value > ARC_THRESHOLD:
            out[k][i].append(j)
    return out


def _walk(succ: dict[int, list[int]], start: int, stop: set[int]) -> list[int]:
    """Follow (and consume) used arcs from ``start`` until a node of ``stop`` or a dead end."""
    path = [start]
    node = start
    while succ.get(node):
        node = succ[node].pop(0)
        if node in stop:
            return path
        path.append(node)
    raise ValueError(f"the arcs leaving node {start} stop at node {node} instead of closing a route or cycle")


def _vehicle_plan(
    succ: dict[int, list[int]], vehicle: int, depot: int, num_depots: int
) -> tuple[list[Route], list[Cycle]]:
    routes: list[Route] = []
    while succ.get(depot):
        visits = _walk(succ, depot, set(range(num_depots)))[1:]
        routes.append(Route(vehicle=vehicle, depot=depot, visits=tuple(visits)))
    cycles: list[Cycle] = []
    for node in sorted(succ):
        while succ.get(node):
            visits = _walk(succ, node, {node})
            if any(v < num_depots for v in visits):
                raise ValueError(
                    f"vehicle {vehicle} drives through a depot outside a route from its own depot"
                )
            cycles.append(Cycle(vehicle=vehicle, visits=tuple(visits)))
    return routes, cycles


def _with_deliveries(route: Route, quantities: dict[tuple[int, ...], float]) -> Route:
    delivered = tuple(max(0.0, quantities.get((node, route.vehicle), 0.0)) for node in route.visits)
    return route.model_copy(update={"deliveries": delivered})


def extract_solution(model: gp.Model, instance: Instance) -> Solution:
    """The plan in the model's incumbent: one route per vehicle that leaves its depot, plus cycles.

    Raises ValueError when the model has no incumbent or its ``x`` arcs do not decompose into
    routes and cycles (which a gold model never produces).
    """
    if model.SolCount < 1:
        raise ValueError("the model has no solution to extract")
    arcs = _indexed_values(model, "x")
    if not arcs:
        raise ValueError("the model has no routing variable named 'x'")
    if all(len(index) == 2 for index in arcs):
        return _two_index_plan(arcs, instance)
    successors = _successors(arcs, instance)
    routes: list[Route] = []
    cycles: list[Cycle] = []
    for k, vehicle in enumerate(instance.vehicles):
        found_routes, found_cycles = _vehicle_plan(successors[k], k, vehicle.depot, instance.num_depots)
        routes += found_routes
        cycles += found_cycles
    if instance.has(Module.SPLIT):
        quantities = _indexed_values(model, "q")
        routes = [_with_deliveries(route, quantities) for route in routes]
    return Solution(routes=tuple(routes), cycles=tuple(cycles))


def _two_index_plan(arcs: dict[tuple[int, ...], float], instance: Instance) -> Solution:
    """Routes of a two-index ``x[i, j]`` (identical vehicles of a depot): each route leaves a depot
    and is given that depot's next vehicle, in the order the routes are found."""
    n = instance.num_nodes
    succ: dict[int, list[int]] = defaultdict(list)
    for (i, j), value in sorted(arcs.items()):
        if not (0 <= i < n and 0 <= j < n):
            raise ValueError(f"x[{i},{j}] lies outside the instance's nodes")
        if value > ARC_THRESHOLD:
            succ[i].append(j)
    fleets: dict[int, list[int]] = defaultdict(list)
    for k, vehicle in enumerate(instance.vehicles):
        fleets[vehicle.depot].append(k)
    depots = set(range(instance.num_depots))
    routes: list[Route] = []
    for depot in range(instance.num_depots):
        while succ.get(depot):
            path = [depot]
            node = depot
            while True:
                if not succ.get(node):
                    raise ValueError(f"the arcs leaving depot {depot} stop at node {node}")
                node = succ[node].pop(0)
                if node in depots:
                    break
                path.append(node)
            if node != depot:
                raise ValueError(f"a route leaves depot {depot} and ends at depot {node}")
            if not fleets[depot]:
                raise ValueError(f"depot {depot} sends out more routes than it has vehicles")
            routes.append(Route(vehicle=fleets[depot].pop(0), depot=depot, visits=tuple(path[1:])))
    cycles: list[Cycle] = []
    for node in sorted(succ):
        while succ.get(node):
            visits = _walk(succ, node, {node})
            if any(v in depots for v in visits):
                raise ValueError("a depot lies on a cycle outside every route")
            cycles.append(Cycle(vehicle=None, visits=tuple(visits)))
    return Solution(routes=tuple(routes), cycles=tuple(cycles))

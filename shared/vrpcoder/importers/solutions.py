"""Published solutions next to library files: reference routes and the published optimum of a whole file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import vrplib

from vrpcoder.checker import route_distance
from vrpcoder.instances import Instance
from vrpcoder.solutions import Route, Solution
from vrpcoder.importers.records import InstanceFormat
from vrpcoder.importers.text import number, numeric_lines, read_text, take


_COMPANIONS = {
    InstanceFormat.TSPLIB: ".opt.tour",
    InstanceFormat.CVRPLIB: ".sol",
    InstanceFormat.SOLOMON: ".sol",
    InstanceFormat.CORDEAU: ".res",
}
"""Suffix of the file that publishes a solution of the whole instance, where the library has one."""


def read_reference_solution(path: str | Path, instance: Instance) -> Solution:
    """A published solution file (``.opt.tour``, CVRPLIB/Solomon ``.sol``, Cordeau ``.res``) as routes
    of ``instance`` (the whole imported file; a sub-instance lacks the nodes such files name)."""
    path = Path(path)
    text = read_text(path)
    if path.name.endswith(".tour"):
        solution = _tour_solution(text, path.name)
    elif path.suffix == ".res":
        solution = _cordeau_solution(text, path.name, instance)
    elif path.suffix == ".sol":
        routes = _vrplib_solution(path).routes
        solution = Solution(routes=tuple(Route(vehicle=k, depot=0, visits=r) for k, r in enumerate(routes)))
    else:
        raise ValueError(f"{path.name}: unknown solution format (expected .opt.tour, .sol or .res)")
    strays = sorted({v for r in solution.routes for v in r.visits if v not in instance.customer_nodes})
    if strays:
        raise ValueError(f"{path.name}: names node(s) {strays[:5]} that are not customers of {instance.name}")
    return solution


def published_optimum(path: Path, fmt: InstanceFormat, instance: Instance) -> float | None:
    """The cost the library publishes next to the whole instance; for a TSPLIB ``.opt.tour`` (which
    gives the tour, not its length) the tour's length under the file's own convention."""
    suffix = _COMPANIONS.get(fmt)
    if suffix is None:
        return None
    companion = path.with_name(path.name.split(".")[0] + suffix)
    if not companion.is_file():
        return None
    if fmt is InstanceFormat.TSPLIB:
        tour = read_reference_solution(companion, instance)
        return sum(route_distance(instance, r) for r in tour.routes)
    if fmt is InstanceFormat.CORDEAU:
        lines = numeric_lines(read_text(companion), companion.name)
        return take(lines, 0, 1, companion.name, "the total cost").values[0]
    cost = _vrplib_solution(companion).cost
    if cost is None:
        raise ValueError(f"{companion.name}: no 'Cost' line")
    return cost


@dataclass(frozen=True, slots=True)
class _VrplibSolution:
    routes: tuple[tuple[int, ...], ...]
    cost: float | None


def _vrplib_solution(path: Path) -> _VrplibSolution:
    try:
        data = vrplib.read_solution(path)
    except (RuntimeError, ValueError, IndexError) as exc:
        raise ValueError(f"{path.name}: not a readable VRPLIB solution ({exc})") from None
    cost = data.get("cost")
    routes = tuple(tuple(int(v) for v in route) for route in data["routes"])
    return _VrplibSolution(routes, float(cost) if isinstance(cost, int | float) else None)


def _tour_solution(text: str, source: str) -> Solution:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip().upper().startswith("TOUR_SECTION")), None)
    if start is None:
        raise ValueError(f"{source}: no TOUR_SECTION")
    nodes: list[int] = []
    for lineno in range(start + 1, len(lines)):
        for token in lines[lineno].split():
            if token.upper() == "EOF" or token == "-1":
                return _tour_route(nodes, source)
            nodes.append(int(number(token, source, lineno + 1)))
    return _tour_route(nodes, source)


def _tour_route(nodes: list[int], source: str) -> Solution:
    """TSPLIB numbers nodes from 1 and node 1 is our depot; the tour is rotated to start there."""
    if sorted(nodes) != list(range(1, len(nodes) + 1)):
        raise ValueError(f"{source}: the tour is not a permutation of 1..{len(nodes)}")
    at = nodes.index(1)
    rotated = nodes[at:] + nodes[:at]
    return Solution(routes=(Route(vehicle=0, depot=0, visits=tuple(v - 1 for v in rotated[1:])),))


def _cordeau_solution(text: str, source: str, instance: Instance) -> Solution:
    """``.res``: the total cost, then one line per route ``depot vehicle length load depot c1 c2 ...``
    with depots and vehicles numbered from 1 and customers numbered 1..n."""
    lines = numeric_lines(text, source)
    by_depot: dict[int, list[int]] = {}
    for k, vehicle in enumerate(instance.vehicles):
        by_depot.setdefault(vehicle.depot, []).append(k)
    routes: list[Route] = []
    for line in lines[1:]:
        if len(line.values) < 6:
            raise ValueError(
                f"{source}, line {line.number}: a route needs depot, vehicle, length, load and customers"
            )
        depot, index = int(line.values[0]) - 1, int(line.values[1]) - 1
        fleet = by_depot.get(depot, [])
        if not 0 <= index < len(fleet):
            raise ValueError(f"{source}, line {line.number}: depot {depot + 1} has no vehicle {index + 1}")
        visits = tuple(instance.num_depots - 1 + int(c) for c in line.values[5:])
        routes.append(Route(vehicle=fleet[index], depot=depot, visits=visits))
    return Solution(routes=tuple(routes))

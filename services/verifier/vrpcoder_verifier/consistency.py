"""Whether a sample a caller sends can be verified at all: its parts must fit its own instance.

``Sample``'s own validation checks each part alone (the instance against its variant's modules, a
route's deliveries against its visits); nothing checked that the parts fit together. A sample cut
to 2 customers whose probes still visited 8 was accepted, and every candidate then lost its probes
to ``index_mismatch`` (the gold script scored 0.7): a broken sample scores correct code as wrong.
So the API refuses such a sample with 422 and the path of each misfit, before anything is stored.

What is checked: the sample's variant is its instance's; every probe names vehicles, depots and
nodes the instance has (probes may break any rule, but only with the instance's own nodes), a
violating probe names the family it breaks and a feasible one names none; the node-id map, when
given, maps exactly the instance's nodes, each to an id of its own; the reference is finite.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from vrpcoder.instances import Instance
from vrpcoder.probes import Label, Probe
from vrpcoder.samples import Sample
from vrpcoder.solutions import Route
from vrpcoder.variants import get_variant

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Misfit:
    """One part of a sample that does not fit the rest: where it is, what is wrong, the value."""

    path: Path
    message: str
    value: object


def sample_misfits(sample: Sample) -> list[Misfit]:
    """Every misfit of ``sample`` (empty when it can be verified)."""
    instance = sample.instance
    found: list[Misfit] = []
    try:
        variant = get_variant(sample.variant).name
    except (KeyError, ValueError):
        found.append(Misfit(("variant",), f"unknown variant {sample.variant!r}", sample.variant))
    else:
        if variant != instance.variant:
            found.append(Misfit(("variant",), f"the sample is {variant} but its instance is {instance.variant}", sample.variant))
    if not math.isfinite(sample.reference_objective):
        found.append(Misfit(("reference_objective",), "the reference objective must be finite", sample.reference_objective))
    for index, probe in enumerate(sample.probes):
        found.extend(_probe_misfits(instance, probe, ("probes", index)))
    if sample.node_id_map is not None:
        found.extend(_map_misfits(instance, sample.node_id_map))
    return found


def _probe_misfits(instance: Instance, probe: Probe, at: Path) -> Iterator[Misfit]:
    if probe.label is Label.INFEASIBLE and probe.family is None:
        yield Misfit((*at, "family"), "a violating probe must name the family it breaks", None)
    if probe.label is Label.FEASIBLE and probe.family is not None:
        yield Misfit((*at, "family"), "a feasible probe breaks no family", probe.family.value)
    for index, route in enumerate(probe.solution.routes):
        yield from _route_misfits(instance, route, (*at, "solution", "routes", index))
    for index, cycle in enumerate(probe.solution.cycles):
        where = (*at, "solution", "cycles", index)
        if cycle.vehicle is not None and not 0 <= cycle.vehicle < len(instance.vehicles):
            yield Misfit((*where, "vehicle"), _no_vehicle(instance, cycle.vehicle), cycle.vehicle)
        yield from _node_misfits(instance, cycle.visits, (*where, "visits"))


def _route_misfits(instance: Instance, route: Route, at: Path) -> Iterator[Misfit]:
    if not route.vehicle < len(instance.vehicles):
        yield Misfit((*at, "vehicle"), _no_vehicle(instance, route.vehicle), route.vehicle)
    for name, depot in (("depot", route.depot), ("end_depot", route.end_depot)):
        if depot is not None and not depot < instance.num_depots:
            yield Misfit((*at, name), f"depot {depot} does not exist (the instance has {instance.num_depots})", depot)
    yield from _node_misfits(instance, route.visits, (*at, "visits"))


def _node_misfits(instance: Instance, visits: tuple[int, ...], at: Path) -> Iterator[Misfit]:
    for index, node in enumerate(visits):
        if not 0 <= node < instance.num_nodes:
            yield Misfit((*at, index), f"node {node} does not exist (the instance's nodes are 0..{instance.num_nodes - 1})", node)


def _no_vehicle(instance: Instance, vehicle: int) -> str:
    return f"vehicle {vehicle} does not exist (the instance's fleet has {len(instance.vehicles)})"


def _map_misfits(instance: Instance, node_id_map: dict[str, str]) -> Iterator[Misfit]:
    nodes = {str(node) for node in range(instance.num_nodes)}
    for key in sorted(set(node_id_map) - nodes):
        yield Misfit(("node_id_map", key), f"node {key} does not exist (the instance's nodes are 0..{instance.num_nodes - 1})", key)
    missing = sorted(nodes - set(node_id_map), key=int)
    if missing:
        yield Misfit(("node_id_map",), f"the map names no id for node(s) {', '.join(missing)}", None)
    seen: dict[str, str] = {}
    for key, value in node_id_map.items():
        if value in seen:
            yield Misfit(("node_id_map", key), f"id {value!r} is given to nodes {seen[value]} and {key}", value)
        seen.setdefault(value, key)

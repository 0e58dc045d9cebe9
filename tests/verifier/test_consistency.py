"""A sample's parts must fit its own instance before the service stores it (``consistency``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from vrpcoder.samples import Sample
from vrpcoder_verifier.consistency import sample_misfits

from tests.verifier.support import tiny_samples

Edit = Callable[[dict[str, Any]], None]


def _cut_to_two_customers(data: dict[str, Any]) -> None:
    data["instance"]["customers"] = data["instance"]["customers"][:2]


def _first_route(data: dict[str, Any]) -> dict[str, Any]:
    return next(p for p in data["probes"] if p["solution"]["routes"])["solution"]["routes"][0]


def _set(path: str, value: object) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        route = _first_route(data)
        route[path] = value

    return edit


def _visit(node: int) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        _first_route(data)["visits"][0] = node

    return edit


def _family(value: str | None, label: str) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        next(p for p in data["probes"] if p["label"] == label)["family"] = value

    return edit


def _node_map(mapping: dict[str, str]) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        data["node_id_map"] = mapping

    return edit


def _variant(name: str) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        data["variant"] = name

    return edit


CASES: list[tuple[str, Edit, tuple[str | int, ...]]] = [
    ("probes-of-a-larger-instance", _cut_to_two_customers, ("probes",)),
    ("node-past-the-instance", _visit(99), ("probes",)),
    ("negative-node", _visit(-1), ("probes",)),
    ("vehicle-past-the-fleet", _set("vehicle", 42), ("probes",)),
    ("depot-past-the-depots", _set("depot", 3), ("probes",)),
    ("violating-probe-without-family", _family(None, "infeasible"), ("probes",)),
    ("feasible-probe-with-family", _family("capacity", "feasible"), ("probes",)),
    ("node-map-of-another-size", _node_map({"0": "D", "1": "A"}), ("node_id_map",)),
    ("node-map-with-a-shared-id", _node_map({str(i): "same" for i in range(6)}), ("node_id_map",)),
    ("variant-of-another-instance", _variant("TSP"), ("variant",)),
]


@pytest.mark.parametrize(("name", "edit", "where"), CASES, ids=[c[0] for c in CASES])
def test_a_part_that_does_not_fit_the_instance_is_named_by_its_path(
    name: str, edit: Edit, where: tuple[str | int, ...], cvrp: Sample
) -> None:
    data = cvrp.model_dump(mode="json")
    edit(data)
    misfits = sample_misfits(Sample.model_validate(data))
    assert misfits, name
    assert all(m.path[: len(where)] == where for m in misfits), misfits


@pytest.mark.parametrize("variant", ["CVRP", "TSP", "VRPHTW", "PDPTW", "SDVRP", "MDVRP", "HFVRP", "VRPB"])
def test_built_samples_fit(variant: str) -> None:
    assert all(sample_misfits(sample) == [] for sample in tiny_samples(variant))


def test_a_node_map_over_every_node_fits(cvrp: Sample) -> None:
    renamed = cvrp.model_copy(update={"node_id_map": {str(i): f"N{i}" for i in range(cvrp.instance.num_nodes)}})
    assert sample_misfits(renamed) == []

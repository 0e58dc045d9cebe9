"""Instance records: JSON round-trip and a table of inconsistent data that must be refused."""

from __future__ import annotations

from typing import Any

import pytest

from vrpcoder.distances import DistanceKind
from vrpcoder.instances import (
    Customer,
    Depot,
    DistanceSpec,
    Instance,
    PickupDelivery,
    TimeWindow,
    Vehicle,
)

DEPOT = Depot(x=50, y=50)


def cvrp(**overrides: Any) -> Instance:
    data: dict[str, Any] = {
        "name": "tiny-cvrp",
        "variant": "CVRP",
        "depots": (DEPOT,),
        "customers": (Customer(x=53, y=54, demand=2), Customer(x=47, y=46, demand=3)),
        "vehicles": (Vehicle(capacity=4), Vehicle(capacity=4)),
    }
    data.update(overrides)
    return Instance(**data)


def test_json_round_trip_is_lossless() -> None:
    inst = cvrp()
    assert Instance.model_validate_json(inst.model_dump_json()) == inst


def test_node_numbering_puts_depots_first() -> None:
    inst = cvrp()
    assert inst.num_nodes == 3
    assert list(inst.customer_nodes) == [1, 2]
    assert inst.customer(2).demand == 3
    assert inst.distances[0][1] == pytest.approx(5.0)
    with pytest.raises(ValueError, match="not a customer"):
        inst.customer(0)


def test_variant_name_is_canonicalised() -> None:
    assert cvrp(variant="cvrp").variant == "CVRP"


def test_records_are_immutable() -> None:
    inst = cvrp()
    with pytest.raises(Exception):
        inst.name = "other"  # type: ignore[misc]


TW = TimeWindow(start=0, end=100)

INVALID: list[tuple[str, dict[str, Any], str]] = [
    ("unknown variant", {"variant": "XYZ"}, "unknown variant"),
    ("no customers", {"customers": ()}, "at least 1"),
    ("negative demand", {"customers": ({"x": 1, "y": 1, "demand": -1},)}, "greater than or equal"),
    ("vehicle without capacity", {"vehicles": (Vehicle(),)}, "needs a capacity"),
    ("vehicle at missing depot", {"vehicles": (Vehicle(capacity=4, depot=3),)}, "does not exist"),
    ("two depots, single-depot variant", {"depots": (DEPOT, DEPOT)}, "exactly one depot"),
    ("mixed fleet in homogeneous variant", {"vehicles": (Vehicle(capacity=4), Vehicle(capacity=5))}, "identical"),
    ("windows without time module", {"depots": (Depot(x=50, y=50, window=TW),)}, "without time windows"),
    ("distance limit without Dist", {"max_route_distance": 10.0}, "distance-limited"),
    ("pairs without PD", {"pairs": (PickupDelivery(pickup=1, delivery=2, quantity=1),)}, "without them"),
    ("backhaul label without BH", {"customers": (Customer(x=1, y=1, demand=1, backhaul=True),)}, "backhaul"),
    ("service time without windows", {"customers": (Customer(x=1, y=1, demand=1, service_time=3),)}, "service"),
    ("explicit without matrix", {"distance": DistanceSpec(kind=DistanceKind.EXPLICIT)}, "matrix"),
    ("matrix without explicit", {"distance": DistanceSpec(matrix=((0.0,),))}, "explicit convention"),
    ("window ends before start", {"depots": ({"x": 1, "y": 1, "window": {"start": 5, "end": 1}},)}, "before"),
]


@pytest.mark.parametrize(("case", "overrides", "message"), INVALID, ids=[c[0] for c in INVALID])
def test_inconsistent_instances_are_refused(case: str, overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cvrp(**overrides)


def test_tsp_must_have_one_uncapacitated_vehicle_and_no_demand() -> None:
    with pytest.raises(ValueError, match="TSP has exactly one vehicle"):
        Instance(
            name="t", variant="TSP", depots=(DEPOT,),
            customers=(Customer(x=1, y=1),), vehicles=(Vehicle(), Vehicle()),
        )


def test_pd_pairs_must_cover_every_customer() -> None:
    customers = tuple(Customer(x=i, y=i) for i in range(1, 5))
    with pytest.raises(ValueError, match="cover every customer"):
        Instance(
            name="pd", variant="PDP", depots=(DEPOT,), customers=customers,
            vehicles=(Vehicle(capacity=5),), pairs=(PickupDelivery(pickup=1, delivery=2, quantity=2),),
        )


def test_mc_demand_equals_sum_of_compartments() -> None:
    with pytest.raises(ValueError, match="sum of its compartment"):
        Instance(
            name="mc", variant="MCVRP", depots=(DEPOT,),
            customers=(Customer(x=1, y=1, demand=5, compartment_demand=(1, 2)),),
            vehicles=(Vehicle(capacity=10, compartment_capacity=(5, 5)),),
        )

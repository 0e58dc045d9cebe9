"""The Goetschalckx & Jacobs-Blecha VRPB layout (linehaul and backhaul customers)."""

from __future__ import annotations

from pathlib import Path

from vrpcoder.distances import DistanceKind
from vrpcoder.instances import Customer, Depot
from vrpcoder.importers.records import InstanceFormat, LibraryFile
from vrpcoder.importers.text import expect_end, numeric_lines, positive_count, take


def read_vrpb(text: str, source: str) -> LibraryFile:
    """``n``; ``1``; vehicles; ``x y 0 Q`` for the depot; n lines ``x y delivery pickup ...``.
    A customer with a delivery is linehaul, one with a pickup is backhaul, never both."""
    lines = numeric_lines(text, source)
    n = positive_count(take(lines, 0, 1, source, "the number of customers").values[0], source, lines[0].number, "n")
    depots_line = take(lines, 1, 1, source, "the number of depots")
    if depots_line.values[0] != 1:
        raise ValueError(
            f"{source}, line {depots_line.number}: VRPB files have one depot, found {depots_line.values[0]:g}"
        )
    fleet_line = take(lines, 2, 1, source, "the number of vehicles")
    fleet = positive_count(fleet_line.values[0], source, fleet_line.number, "the number of vehicles")
    depot_line = take(lines, 3, 4, source, "the depot (x, y, 0, capacity)")
    capacity = depot_line.values[3]
    if capacity <= 0:
        raise ValueError(f"{source}, line {depot_line.number}: capacity must be positive, got {capacity:g}")
    customers: list[Customer] = []
    for c in range(n):
        line = take(lines, 4 + c, 4, source, f"customer {c + 1}", exact=False)
        x, y, delivery, pickup = line.values[:4]
        if delivery < 0 or pickup < 0 or (delivery > 0 and pickup > 0):
            raise ValueError(
                f"{source}, line {line.number}: a customer either receives or sends goods "
                f"(delivery {delivery:g}, pick-up {pickup:g})"
            )
        customers.append(Customer(x=x, y=y, demand=max(delivery, pickup), backhaul=pickup > 0))
    expect_end(lines, 4 + n, source)
    return LibraryFile(
        name=Path(source).name.split(".")[0],
        source=source,
        fmt=InstanceFormat.VRPB,
        variant="VRPB",
        depots=(Depot(x=depot_line.values[0], y=depot_line.values[1]),),
        customers=tuple(customers),
        capacity=(capacity,),
        fleet=(fleet,),
        distance=DistanceKind.EUCLIDEAN,
    )

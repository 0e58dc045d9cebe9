"""SDVRPLIB's split-delivery layout."""

from __future__ import annotations

from pathlib import Path

from vrpcoder.distances import DistanceKind
from vrpcoder.instances import Customer, Depot
from vrpcoder.importers.records import InstanceFormat, LibraryFile
from vrpcoder.importers.text import numeric_lines, positive_count, take


def read_sdvrplib(text: str, source: str) -> LibraryFile:
    """``n Q``, then n demands, then the depot's and the n customers' coordinates (any line breaks)."""
    lines = numeric_lines(text, source)
    head = take(lines, 0, 2, source, "the header (customers, capacity)")
    n = positive_count(head.values[0], source, head.number, "the number of customers")
    capacity = head.values[1]
    if capacity <= 0:
        raise ValueError(f"{source}, line {head.number}: capacity must be positive, got {capacity:g}")
    tokens = [(value, line.number) for line in lines[1:] for value in line.values]
    needed = n + 2 * (n + 1)
    if len(tokens) != needed:
        last = tokens[-1][1] if tokens else head.number
        raise ValueError(
            f"{source}, line {last}: expected {n} demands and {n + 1} coordinate pairs ({needed} numbers), "
            f"found {len(tokens)}"
        )
    demands = [value for value, _ in tokens[:n]]
    xy = [value for value, _ in tokens[n:]]
    bad = next(((v, line) for v, line in tokens[:n] if v < 0), None)
    if bad is not None:
        raise ValueError(f"{source}, line {bad[1]}: demand {bad[0]:g} is negative")
    customers = tuple(Customer(x=xy[2 * i], y=xy[2 * i + 1], demand=demands[i - 1]) for i in range(1, n + 1))
    return LibraryFile(
        name=Path(source).name.split(".")[0],
        source=source,
        fmt=InstanceFormat.SDVRPLIB,
        variant="SDVRP",
        depots=(Depot(x=xy[0], y=xy[1]),),
        customers=customers,
        capacity=(capacity,),
        fleet=None,
        distance=DistanceKind.EUC_2D,
    )

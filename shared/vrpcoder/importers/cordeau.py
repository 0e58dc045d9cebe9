"""Cordeau's multi-depot (MDVRP) layout."""

from __future__ import annotations

from pathlib import Path

from vrpcoder.distances import DistanceKind
from vrpcoder.instances import Customer, Depot
from vrpcoder.importers.records import InstanceFormat, LibraryFile
from vrpcoder.importers.text import expect_end, expect_id, numeric_lines, positive_count, take


def read_cordeau(text: str, source: str) -> LibraryFile:
    """Cordeau's MDVRP layout: ``[type] m n t``; t lines ``D Q``; n customer lines
    ``i x y d q ...``; t depot lines ``i x y ...``. Service durations only matter under a route
    duration limit, which no multi-depot variant models, so a non-zero D is refused and service
    durations are dropped."""
    lines = numeric_lines(text, source)
    head = lines[0]
    if len(head.values) == 4 and head.values[0] != 2:
        raise ValueError(f"{source}, line {head.number}: problem type {head.values[0]:g} is not MDVRP (2)")
    m, n, t = (
        positive_count(v, source, head.number, what)
        for v, what in zip(head.values[-3:], ("m", "n", "t"), strict=True)
    )
    capacities: list[float] = []
    for d in range(t):
        line = take(lines, 1 + d, 2, source, f"the limits of depot {d + 1}")
        duration, capacity = line.values
        if duration != 0:
            raise ValueError(
                f"{source}, line {line.number}: maximum route duration {duration:g} is not supported "
                "(no multi-depot variant models a duration limit)"
            )
        if capacity <= 0:
            raise ValueError(
                f"{source}, line {line.number}: vehicle capacity must be positive, got {capacity:g}"
            )
        capacities.append(capacity)
    customers: list[Customer] = []
    for c in range(n):
        line = take(lines, 1 + t + c, 5, source, f"customer {c + 1}", exact=False)
        expect_id(line, c + 1, source)
        customers.append(Customer(x=line.values[1], y=line.values[2], demand=line.values[4]))
    depots: list[Depot] = []
    for d in range(t):
        line = take(lines, 1 + t + n + d, 3, source, f"depot {d + 1}", exact=False)
        expect_id(line, n + d + 1, source)
        depots.append(Depot(x=line.values[1], y=line.values[2]))
    expect_end(lines, 1 + t + n + t, source)
    return LibraryFile(
        name=Path(source).name.split(".")[0],
        source=source,
        fmt=InstanceFormat.CORDEAU,
        variant="MDVRP" if t > 1 else "CVRP",
        depots=tuple(depots),
        customers=tuple(customers),
        capacity=tuple(capacities),
        fleet=(m,) * t,
        distance=DistanceKind.EUCLIDEAN,
    )

"""Solomon's VRPTW files, read by ``vrplib`` (``instance_format="solomon"``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from vrplib.parse import parse_solomon

from vrpcoder.distances import DistanceKind
from vrpcoder.instances import Customer, Depot, TimeWindow
from vrpcoder.importers.records import InstanceFormat, LibraryFile


def read_solomon(text: str, source: str) -> LibraryFile:
    try:
        data = parse_solomon(text, compute_edge_weights=False)
        rows = [line.split() for line in text.splitlines() if line.strip()][6:]
        ids = np.array([float(row[0]) for row in rows])
    except (RuntimeError, ValueError, IndexError) as exc:
        raise ValueError(f"{source}: not a readable Solomon file ({exc})") from None
    coords, demand = np.asarray(data["node_coord"]), np.asarray(data["demand"])
    windows, service = np.asarray(data["time_window"]), np.asarray(data["service_time"])
    if not np.array_equal(ids, np.arange(len(ids))) or (windows < 0).any() or (demand < 0).any():
        raise ValueError(f"{source}: customer rows must be numbered 0, 1, 2, ... with non-negative data")
    depot = Depot(x=float(coords[0][0]), y=float(coords[0][1]), window=_window(windows[0], source, 0))
    customers = tuple(
        Customer(
            x=float(coords[i][0]),
            y=float(coords[i][1]),
            demand=float(demand[i]),
            service_time=float(service[i]),
            window=_window(windows[i], source, i),
        )
        for i in range(1, len(coords))
    )
    return LibraryFile(
        name=str(data["name"]),
        source=source,
        fmt=InstanceFormat.SOLOMON,
        variant="VRPHTW",
        depots=(depot,),
        customers=customers,
        capacity=(float(data["capacity"]),),
        fleet=(int(data["vehicles"]),),
        distance=DistanceKind.EUCLIDEAN_TRUNC1,
    )


def _window(pair: Sequence[float], source: str, node: int) -> TimeWindow:
    start, end = float(pair[0]), float(pair[1])
    if end < start:
        raise ValueError(f"{source}: customer {node} has due date {end} before its ready time {start}")
    return TimeWindow(start=start, end=end)

"""TSPLIB and CVRPLIB files, read by ``vrplib``; explicit matrices are laid out here, because vrplib
lacks most triangular layouts."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
from vrplib.parse import parse_vrplib

from vrpcoder.distances import DistanceKind
from vrpcoder.instances import Customer, Depot
from vrpcoder.importers.records import InstanceFormat, LibraryFile
from vrpcoder.importers.text import number


_EDGE_WEIGHT_KINDS = {
    "EUC_2D": DistanceKind.EUC_2D,
    "CEIL_2D": DistanceKind.CEIL_2D,
    "ATT": DistanceKind.ATT,
    "GEO": DistanceKind.GEO,
    "EXPLICIT": DistanceKind.EXPLICIT,
}


def read_tsplib(text: str, source: str) -> LibraryFile:
    body, weights = _split_edge_weights(text, source)
    try:
        data = parse_vrplib(body, compute_edge_weights=False)
    except (RuntimeError, ValueError, IndexError, KeyError) as exc:
        raise ValueError(f"{source}: not a readable TSPLIB/CVRPLIB file ({exc})") from None
    dimension = _int_spec(data, "dimension", source)
    weight_type = str(data.get("edge_weight_type", "")).upper()
    if weight_type not in _EDGE_WEIGHT_KINDS:
        raise ValueError(f"{source}: EDGE_WEIGHT_TYPE {weight_type or '(missing)'} is not supported")
    kind = _EDGE_WEIGHT_KINDS[weight_type]
    coords = _coordinates(data, dimension, kind, source)
    matrix: list[list[float]] | None = None
    if kind is DistanceKind.EXPLICIT:
        if weights is None:
            raise ValueError(f"{source}: EDGE_WEIGHT_TYPE EXPLICIT without an EDGE_WEIGHT_SECTION")
        layout = str(data.get("edge_weight_format", "")).upper()
        matrix = explicit_matrix(layout, weights, dimension, source)

    is_tsp = str(data.get("type", "")).upper() == "TSP"
    capacity: float | None
    fleet: tuple[int, ...] | None
    if is_tsp:
        depot_node, demands, capacity, fleet = 0, [0.0] * dimension, None, (1,)
    else:
        depot_node, demands, capacity = _cvrp_fields(data, dimension, source)
        fleet = _cvrp_fleet(data, source)
    order = [depot_node] + [i for i in range(dimension) if i != depot_node]
    depot = Depot(x=coords[depot_node][0], y=coords[depot_node][1])
    customers = tuple(Customer(x=coords[i][0], y=coords[i][1], demand=demands[i]) for i in order[1:])
    return LibraryFile(
        name=Path(source).name.split(".")[0],
        source=source,
        fmt=InstanceFormat.TSPLIB if is_tsp else InstanceFormat.CVRPLIB,
        variant="TSP" if is_tsp else "CVRP",
        depots=(depot,),
        customers=customers,
        capacity=(capacity,),
        fleet=fleet,
        distance=kind,
        matrix=None if matrix is None else tuple(tuple(matrix[i][j] for j in order) for i in order),
        customer_ids=tuple(i + 1 for i in order[1:]),
    )


def _split_edge_weights(text: str, source: str) -> tuple[str, list[float] | None]:
    """Take the EDGE_WEIGHT_SECTION out of the text (we lay the matrix out ourselves) and return
    the remaining text and the section's numbers in file order."""
    lines = text.splitlines()
    start = next(
        (i for i, line in enumerate(lines) if line.strip().upper().startswith("EDGE_WEIGHT_SECTION")), None
    )
    if start is None:
        return text, None
    end = start + 1
    while end < len(lines) and "_SECTION" not in lines[end].upper() and lines[end].strip().upper() != "EOF":
        end += 1
    values: list[float] = []
    for lineno in range(start + 1, end):
        for token in lines[lineno].split():
            values.append(number(token, source, lineno + 1))
    return "\n".join(lines[:start] + lines[end:]), values


def explicit_matrix(
    layout: str, values: Sequence[float], n: int, source: str = "matrix"
) -> list[list[float]]:
    """The full n x n matrix from a TSPLIB EDGE_WEIGHT_FORMAT layout (symmetric unless FULL_MATRIX)."""
    cells = list(_layout_cells(layout, n, source))
    if len(values) != len(cells):
        raise ValueError(
            f"{source}: {layout} for dimension {n} needs {len(cells)} edge weights, found {len(values)}"
        )
    matrix = [[0.0] * n for _ in range(n)]
    for (i, j), value in zip(cells, values, strict=True):
        matrix[i][j] = value
        if layout != "FULL_MATRIX":
            matrix[j][i] = value
    return matrix


def _layout_cells(layout: str, n: int, source: str) -> Iterator[tuple[int, int]]:
    rows: dict[str, Iterator[tuple[int, int]]] = {
        "FULL_MATRIX": ((i, j) for i in range(n) for j in range(n)),
        "UPPER_ROW": ((i, j) for i in range(n) for j in range(i + 1, n)),
        "LOWER_ROW": ((i, j) for i in range(n) for j in range(i)),
        "UPPER_DIAG_ROW": ((i, j) for i in range(n) for j in range(i, n)),
        "LOWER_DIAG_ROW": ((i, j) for i in range(n) for j in range(i + 1)),
        "UPPER_COL": ((i, j) for j in range(n) for i in range(j)),
        "LOWER_COL": ((i, j) for j in range(n) for i in range(j + 1, n)),
        "UPPER_DIAG_COL": ((i, j) for j in range(n) for i in range(j + 1)),
        "LOWER_DIAG_COL": ((i, j) for j in range(n) for i in range(j, n)),
    }
    if layout not in rows:
        raise ValueError(f"{source}: EDGE_WEIGHT_FORMAT {layout or '(missing)'} is not supported")
    return rows[layout]


def _coordinates(
    data: dict[str, object], n: int, kind: DistanceKind, source: str
) -> list[tuple[float, float]]:
    for key in ("node_coord", "display_data"):
        value = data.get(key)
        if value is not None:
            array = np.asarray(value, dtype=float)
            if array.shape != (n, 2):
                raise ValueError(
                    f"{source}: {key.upper()}_SECTION has shape {array.shape}, expected ({n}, 2)"
                )
            return [(float(x), float(y)) for x, y in array]
    if kind is not DistanceKind.EXPLICIT:
        raise ValueError(f"{source}: EDGE_WEIGHT_TYPE {kind.value} needs a NODE_COORD_SECTION")
    return [(0.0, 0.0)] * n


def _int_spec(data: dict[str, object], key: str, source: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or value < 2:
        raise ValueError(f"{source}: {key.upper()} must be an integer of at least 2, got {value!r}")
    return value


def _cvrp_fields(data: dict[str, object], n: int, source: str) -> tuple[int, list[float], float]:
    capacity = data.get("capacity")
    if not isinstance(capacity, int | float) or capacity <= 0:
        raise ValueError(f"{source}: CAPACITY must be a positive number, got {capacity!r}")
    demand = data.get("demand")
    if demand is None or np.asarray(demand).shape != (n,):
        raise ValueError(f"{source}: DEMAND_SECTION must give one demand per node ({n})")
    depots = np.asarray(data.get("depot", np.array([0])), dtype=int).ravel()
    if len(depots) != 1 or not 0 <= depots[0] < n:
        raise ValueError(f"{source}: DEPOT_SECTION must name exactly one depot node, got {list(depots + 1)}")
    return int(depots[0]), [float(d) for d in np.asarray(demand, dtype=float)], float(capacity)


def _cvrp_fleet(data: dict[str, object], source: str) -> tuple[int, ...] | None:
    """The fleet the library intends: the ``-kN`` of the name, else a VEHICLES field."""
    match = re.search(r"-k(\d+)", f"{data.get('name', '')} {source}")
    if match:
        return (int(match.group(1)),)
    vehicles = data.get("vehicles")
    if isinstance(vehicles, int) and vehicles > 0:
        return (vehicles,)
    return None

"""Import real library instances (TSPLIB, CVRPLIB, Solomon, Cordeau, SDVRPLIB, VRPB) as ``Instance``.

Benchmark 3 of the paper cuts small sub-instances out of public library files. Each library
measures distance its own way, and a published optimum is only reproducible under that exact
convention, so the importer records it in ``instance.distance``:

=========  ===========================================================  =====================
format     read by                                                      distance convention
=========  ===========================================================  =====================
TSPLIB     ``vrplib`` (explicit matrices parsed here: vrplib lacks most  EUC_2D, CEIL_2D, ATT,
           triangular layouts and GEO)                                  GEO, or explicit
CVRPLIB    ``vrplib``                                                   EUC_2D (rounded)
Solomon    ``vrplib`` (``instance_format="solomon"``)                   Euclidean, unrounded
Cordeau    a parser here (MDVRP files)                                  Euclidean, unrounded
SDVRPLIB   a parser here                                                EUC_2D (rounded)
VRPB       a parser here (Goetschalckx & Jacobs-Blecha layout)          Euclidean, unrounded
=========  ===========================================================  =====================

Conventions chosen where the library leaves room:

* Solomon: published VRPTW optima (C101: 827.3) were computed with distances truncated to one
  decimal, which no convention in ``vrpcoder.distances`` expresses; we keep exact Euclidean
  distances (the choice of most modern exact and heuristic codes), so our optimum of a full
  Solomon instance is slightly larger than the published one (C101: 828.94).
* SDVRPLIB: the files scale the original coordinates by 100 so that distances rounded to the
  nearest integer keep two decimals of precision, the convention of the DIMACS split-delivery
  challenge that distributes them; we record ``euc_2d``.
* VRPB: the exact methods that published the Goetschalckx & Jacobs-Blecha optima use real-valued
  Euclidean distances; the coordinates are large (tens of thousands), so rounding would barely
  matter anyway.
* TSPLIB files with only an explicit matrix and no display coordinates get (0, 0) for every node:
  their coordinates are meaningless and only the matrix counts.

Sub-instances (``customers=K``) keep every depot and the first K customers in file order; their
``provenance.published_optimum`` is None because the library's optimum is for the whole file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import numpy as np
import vrplib
from pydantic import ValidationError
from vrplib.parse import parse_solomon, parse_vrplib

from vrpcoder.checker import route_distance
from vrpcoder.distances import DistanceKind
from vrpcoder.instances import Customer, Depot, DistanceSpec, Instance, Provenance, TimeWindow, Vehicle
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import CapacityKind, get_variant


class InstanceFormat(StrEnum):
    TSPLIB = "tsplib"
    CVRPLIB = "cvrplib"
    SOLOMON = "solomon"
    CORDEAU = "cordeau"
    SDVRPLIB = "sdvrplib"
    VRPB = "vrpb"


_EDGE_WEIGHT_KINDS = {
    "EUC_2D": DistanceKind.EUC_2D,
    "CEIL_2D": DistanceKind.CEIL_2D,
    "ATT": DistanceKind.ATT,
    "GEO": DistanceKind.GEO,
    "EXPLICIT": DistanceKind.EXPLICIT,
}

_COMPANIONS = {
    InstanceFormat.TSPLIB: ".opt.tour",
    InstanceFormat.CVRPLIB: ".sol",
    InstanceFormat.SOLOMON: ".sol",
    InstanceFormat.CORDEAU: ".res",
}
"""Suffix of the file that publishes a solution of the whole instance, where the library has one."""


@dataclass(frozen=True, slots=True)
class LibraryFile:
    """A whole library file in internal node order (depots first), before any cut.

    ``fleet`` is the number of vehicles per depot the file (or its name) gives, or None when the
    fleet has to be derived from the demand.
    """

    name: str
    source: str
    fmt: InstanceFormat
    variant: str
    depots: tuple[Depot, ...]
    customers: tuple[Customer, ...]
    capacity: tuple[float | None, ...]
    fleet: tuple[int, ...] | None
    distance: DistanceKind
    matrix: tuple[tuple[float, ...], ...] | None = None


# ---- the public entry points -----------------------------------------------------------------


def import_instance(
    path: str | Path,
    *,
    customers: int | None = None,
    variant: str | None = None,
    vehicles: int | None = None,
) -> Instance:
    """Read a library file and return the instance (or its first ``customers`` customers).

    ``variant`` replaces the inferred variant when the file's data satisfy it (the instance
    validators decide; e.g. a CVRPLIB file may become OVRP or SDVRP, a Solomon file cannot become
    CVRP because it carries time windows). ``vehicles`` fixes the fleet: the total for
    single-depot files, the number per depot for multi-depot files. Without it the fleet is the
    file's (CVRPLIB: the ``-kN`` of the name, else its VEHICLES field, else the fewest vehicles that
    can carry the demand), capped at the number of kept customers, because a vehicle beyond one per
    customer can never be used.
    """
    path = Path(path)
    text = _read_text(path)
    fmt = detect_format(text, path)
    try:
        library = parse_library_file(text, fmt, source=path.name)
        n_total = len(library.customers)
        keep = n_total if customers is None else customers
        if not 1 <= keep <= n_total:
            raise ValueError(f"{path.name}: customers must be between 1 and {n_total}, got {customers}")
        instance = build_instance(library, keep, variant=variant, vehicles=vehicles)
        if keep == n_total and instance.variant == library.variant and vehicles is None:
            optimum = _published_optimum(path, fmt, instance)
            provenance = instance.provenance.model_copy(update={"published_optimum": optimum})
            instance = instance.model_copy(update={"provenance": provenance})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"{path.name}: {first['msg']}") from None
    return instance


def detect_format(text: str, path: Path) -> InstanceFormat:
    """Tell the library from the content; ``.tsp`` / ``.vrp`` files must really be TSPLIB / CVRPLIB."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{path.name}: the file is empty")
    fmt = _format_from_content(lines, path.name)
    expected = {".tsp": InstanceFormat.TSPLIB, ".vrp": InstanceFormat.CVRPLIB}.get(path.suffix.lower())
    if expected is not None and fmt is not expected:
        raise ValueError(
            f"{path.name}: the extension says {expected.value}, but the content reads as {fmt.value}"
        )
    return fmt


def parse_library_file(text: str, fmt: InstanceFormat, *, source: str) -> LibraryFile:
    parsers = {
        InstanceFormat.TSPLIB: _parse_vrplib_text,
        InstanceFormat.CVRPLIB: _parse_vrplib_text,
        InstanceFormat.SOLOMON: _parse_solomon,
        InstanceFormat.CORDEAU: _parse_cordeau,
        InstanceFormat.SDVRPLIB: _parse_sdvrplib,
        InstanceFormat.VRPB: _parse_vrpb,
    }
    return parsers[fmt](text, source)


def build_instance(library: LibraryFile, keep: int, *, variant: str | None, vehicles: int | None) -> Instance:
    """Cut the first ``keep`` customers and assemble a validated ``Instance``."""
    n_total = len(library.customers)
    kept = library.customers[:keep]
    size = len(library.depots) + keep
    matrix = None if library.matrix is None else tuple(row[:size] for row in library.matrix[:size])
    name = library.name if keep == n_total else f"{library.name}-first{keep}"
    target = library.variant if variant is None else get_variant(variant).name
    fleet = _fleet(library, kept, vehicles, target)
    try:
        return Instance(
            name=name,
            variant=target,
            depots=library.depots,
            customers=kept,
            vehicles=fleet,
            distance=DistanceSpec(kind=library.distance, matrix=matrix),
            provenance=Provenance(source=library.source),
        )
    except ValidationError as exc:
        if variant is None:
            raise
        reason = exc.errors()[0]["msg"]
        raise ValueError(
            f"{library.source}: variant {target} does not fit this {library.fmt.value} file ({reason})"
        ) from None


def read_reference_solution(path: str | Path, instance: Instance) -> Solution:
    """A published solution file (``.opt.tour``, CVRPLIB/Solomon ``.sol``, Cordeau ``.res``) as routes
    of ``instance`` (the whole imported file; a sub-instance lacks the nodes such files name)."""
    path = Path(path)
    text = _read_text(path)
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


# ---- format detection -------------------------------------------------------------------------

_SPEC_LINE = re.compile(r"^[A-Za-z_]+\s*:")


def _format_from_content(lines: Sequence[str], source: str) -> InstanceFormat:
    if len(lines) > 1 and lines[1].upper().startswith("VEHICLE"):
        return InstanceFormat.SOLOMON
    if _SPEC_LINE.match(lines[0]):
        kind = next((_spec_value(line) for line in lines if line.upper().startswith("TYPE")), None)
        if kind == "TSP":
            return InstanceFormat.TSPLIB
        if kind == "CVRP":
            return InstanceFormat.CVRPLIB
        raise ValueError(f"{source}: TSPLIB-style file of TYPE {kind!r}; only TSP and CVRP are supported")
    head = lines[0].split()
    if all(_is_number(token) for token in head):
        by_width = {
            1: InstanceFormat.VRPB,
            2: InstanceFormat.SDVRPLIB,
            3: InstanceFormat.CORDEAU,
            4: InstanceFormat.CORDEAU,
        }
        if len(head) in by_width:
            return by_width[len(head)]
    raise ValueError(f"{source}: cannot tell the instance format from line 1 ({lines[0][:60]!r})")


def _spec_value(line: str) -> str:
    return line.split(":", 1)[1].strip().upper()


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


# ---- TSPLIB / CVRPLIB -------------------------------------------------------------------------


def _parse_vrplib_text(text: str, source: str) -> LibraryFile:
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
            values.append(_number(token, source, lineno + 1))
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


# ---- Solomon ----------------------------------------------------------------------------------


def _parse_solomon(text: str, source: str) -> LibraryFile:
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
        distance=DistanceKind.EUCLIDEAN,
    )


def _window(pair: Sequence[float], source: str, node: int) -> TimeWindow:
    start, end = float(pair[0]), float(pair[1])
    if end < start:
        raise ValueError(f"{source}: customer {node} has due date {end} before its ready time {start}")
    return TimeWindow(start=start, end=end)


# ---- line-oriented numeric formats (Cordeau, SDVRPLIB, VRPB) ----------------------------------


@dataclass(frozen=True, slots=True)
class _Line:
    number: int
    values: tuple[float, ...]


def _numeric_lines(text: str, source: str) -> list[_Line]:
    return [
        _Line(i, tuple(_number(token, source, i) for token in line.split()))
        for i, line in enumerate(text.splitlines(), start=1)
        if line.strip()
    ]


def _number(token: str, source: str, lineno: int) -> float:
    try:
        return float(token)
    except ValueError:
        raise ValueError(f"{source}, line {lineno}: {token!r} is not a number") from None


def _take(lines: list[_Line], index: int, width: int, source: str, what: str, *, exact: bool = True) -> _Line:
    if index >= len(lines):
        raise ValueError(f"{source}: the file ends before {what}")
    line = lines[index]
    if len(line.values) < width or (exact and len(line.values) != width):
        wanted = f"{width}" if exact else f"at least {width}"
        raise ValueError(
            f"{source}, line {line.number}: {what} needs {wanted} numbers, found {len(line.values)}"
        )
    return line


def _count(value: float, source: str, lineno: int, what: str) -> int:
    if value != int(value) or value < 1:
        raise ValueError(f"{source}, line {lineno}: {what} must be a positive integer, got {value:g}")
    return int(value)


def _parse_cordeau(text: str, source: str) -> LibraryFile:
    """Cordeau's MDVRP layout: ``[type] m n t``; t lines ``D Q``; n customer lines
    ``i x y d q ...``; t depot lines ``i x y ...``. Service durations only matter under a route
    duration limit, which no multi-depot variant models, so a non-zero D is refused and service
    durations are dropped."""
    lines = _numeric_lines(text, source)
    head = lines[0]
    if len(head.values) == 4 and head.values[0] != 2:
        raise ValueError(f"{source}, line {head.number}: problem type {head.values[0]:g} is not MDVRP (2)")
    m, n, t = (
        _count(v, source, head.number, what)
        for v, what in zip(head.values[-3:], ("m", "n", "t"), strict=True)
    )
    capacities: list[float] = []
    for d in range(t):
        line = _take(lines, 1 + d, 2, source, f"the limits of depot {d + 1}")
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
        line = _take(lines, 1 + t + c, 5, source, f"customer {c + 1}", exact=False)
        _expect_id(line, c + 1, source)
        customers.append(Customer(x=line.values[1], y=line.values[2], demand=line.values[4]))
    depots: list[Depot] = []
    for d in range(t):
        line = _take(lines, 1 + t + n + d, 3, source, f"depot {d + 1}", exact=False)
        _expect_id(line, n + d + 1, source)
        depots.append(Depot(x=line.values[1], y=line.values[2]))
    _expect_end(lines, 1 + t + n + t, source)
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


def _expect_id(line: _Line, expected: int, source: str) -> None:
    if line.values[0] != expected:
        raise ValueError(
            f"{source}, line {line.number}: expected entry number {expected}, found {line.values[0]:g}"
        )


def _expect_end(lines: Sequence[_Line], used: int, source: str) -> None:
    if len(lines) > used:
        raise ValueError(f"{source}, line {lines[used].number}: unexpected data after the last entry")


def _parse_sdvrplib(text: str, source: str) -> LibraryFile:
    """``n Q``, then n demands, then the depot's and the n customers' coordinates (any line breaks)."""
    lines = _numeric_lines(text, source)
    head = _take(lines, 0, 2, source, "the header (customers, capacity)")
    n = _count(head.values[0], source, head.number, "the number of customers")
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


def _parse_vrpb(text: str, source: str) -> LibraryFile:
    """``n``; ``1``; vehicles; ``x y 0 Q`` for the depot; n lines ``x y delivery pickup ...``.
    A customer with a delivery is linehaul, one with a pickup is backhaul, never both."""
    lines = _numeric_lines(text, source)
    n = _count(_take(lines, 0, 1, source, "the number of customers").values[0], source, lines[0].number, "n")
    depots_line = _take(lines, 1, 1, source, "the number of depots")
    if depots_line.values[0] != 1:
        raise ValueError(
            f"{source}, line {depots_line.number}: VRPB files have one depot, found {depots_line.values[0]:g}"
        )
    fleet_line = _take(lines, 2, 1, source, "the number of vehicles")
    fleet = _count(fleet_line.values[0], source, fleet_line.number, "the number of vehicles")
    depot_line = _take(lines, 3, 4, source, "the depot (x, y, 0, capacity)")
    capacity = depot_line.values[3]
    if capacity <= 0:
        raise ValueError(f"{source}, line {depot_line.number}: capacity must be positive, got {capacity:g}")
    customers: list[Customer] = []
    for c in range(n):
        line = _take(lines, 4 + c, 4, source, f"customer {c + 1}", exact=False)
        x, y, delivery, pickup = line.values[:4]
        if delivery < 0 or pickup < 0 or (delivery > 0 and pickup > 0):
            raise ValueError(
                f"{source}, line {line.number}: a customer either receives or sends goods "
                f"(delivery {delivery:g}, pick-up {pickup:g})"
            )
        customers.append(Customer(x=x, y=y, demand=max(delivery, pickup), backhaul=pickup > 0))
    _expect_end(lines, 4 + n, source)
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


# ---- fleet, companions ------------------------------------------------------------------------


def _fleet(
    library: LibraryFile, kept: Sequence[Customer], vehicles: int | None, variant: str
) -> tuple[Vehicle, ...]:
    spec = get_variant(variant)
    if spec.is_tsp:
        if vehicles not in (None, 1):
            raise ValueError(f"{library.name}: a TSP has exactly one vehicle, not {vehicles}")
        return (Vehicle(depot=0),)
    if vehicles is not None and vehicles < 1:
        raise ValueError(f"{library.name}: vehicles must be at least 1, got {vehicles}")
    out: list[Vehicle] = []
    for depot, capacity in enumerate(library.capacity):
        if vehicles is not None:
            count = vehicles
        elif library.fleet is not None:
            count = min(library.fleet[depot], len(kept))
        else:
            count = _fewest_vehicles(kept, capacity)
        limit = None if spec.capacity is CapacityKind.NONE else capacity
        out.extend(Vehicle(depot=depot, capacity=limit) for _ in range(count))
    return tuple(out)


def _fewest_vehicles(kept: Sequence[Customer], capacity: float | None) -> int:
    """Enough vehicles to carry the demand in full loads: the fleet split delivery always needs,
    and the lower bound CVRPLIB uses when a file names no fleet."""
    if capacity is None:
        return 1
    return max(1, min(len(kept), math.ceil(sum(c.demand for c in kept) / capacity - 1e-9)))


def _published_optimum(path: Path, fmt: InstanceFormat, instance: Instance) -> float | None:
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
        lines = _numeric_lines(_read_text(companion), companion.name)
        return _take(lines, 0, 1, companion.name, "the total cost").values[0]
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
            nodes.append(int(_number(token, source, lineno + 1)))
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
    lines = _numeric_lines(text, source)
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


def _read_text(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file") from None

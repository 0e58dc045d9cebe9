"""Import real library instances (TSPLIB, CVRPLIB, Solomon, Cordeau, SDVRPLIB, VRPB) as ``Instance``.

Benchmark 3 of the paper cuts small sub-instances out of public library files. Each library
measures distance its own way, and a published optimum is only reproducible under that exact
convention, so the importer records it in ``instance.distance``:

=========  ===========================================================  =====================
format     read by                                                      default distance
=========  ===========================================================  =====================
TSPLIB     ``vrplib`` (explicit matrices parsed here: vrplib lacks most  EUC_2D, CEIL_2D, ATT,
           triangular layouts and GEO)                                  GEO, or explicit
CVRPLIB    ``vrplib``                                                   EUC_2D (rounded)
Solomon    ``vrplib`` (``instance_format="solomon"``)                   Euclidean truncated
                                                                        to one decimal
Cordeau    a parser here (MDVRP files)                                  Euclidean, unrounded
SDVRPLIB   a parser here                                                EUC_2D (rounded)
VRPB       a parser here (Goetschalckx & Jacobs-Blecha layout)          Euclidean, unrounded
=========  ===========================================================  =====================

Every choice below is an option (``distance=``, ``vehicles=``, ``customers=``), and
:func:`import_library` returns a :class:`Convention` for each, with its reason, which
``vrpcoder instance import`` prints:

* Solomon distance (``euclidean`` / ``euclidean_trunc1`` / ``euc_2d``): the default is the one
  under which the published optima were proven: the exact-methods literature (Kohl, Desrosiers,
  Madsen, Solomon & Soumis 1999; Kallehauge, Larsen & Madsen 2006; the SINTEF TOP table of
  optima) truncates every distance to one decimal, and the C101 solution file priced that way
  gives exactly its published 827.3 (828.94 with exact distances).
* SDVRPLIB: the files scale the original coordinates by 100 so that distances rounded to the
  nearest integer keep two decimals of precision; we record ``euc_2d``. The problem has an
  unlimited fleet, so the fleet is one that cannot bind (:func:`non_binding_fleet`), not the
  ``ceil(D / Q)`` vehicles that carry the demand (those bind: SDVRP optima often use more).
* CVRPLIB: the fleet is the ``-kN`` of the name, else the VEHICLES field; a file with neither
  (eil22, eil23) gets a fleet that cannot bind, and the note says which.
* VRPB: the exact methods that published the Goetschalckx & Jacobs-Blecha optima use real-valued
  Euclidean distances; the coordinates are large (tens of thousands), so rounding would barely
  matter anyway. In that literature (Goetschalckx & Jacobs-Blecha 1989; Toth & Vigo 1997;
  Mingozzi, Giorgi & Baldacci 1999) no route serves backhaul customers only, so a sub-instance
  whose kept customers are all backhauls (A1's first five) has no plan and is refused, as is one
  whose backhauls need more routes than it has linehaul customers.
* TSPLIB files with only an explicit matrix and no display coordinates get (0, 0) for every node:
  their coordinates are meaningless and only the matrix counts.

Sub-instances keep every depot and either the first K customers in file order (``customers=K``)
or the customers the file numbers as listed (``customers=[3, 17, 42]``); their
``provenance.published_optimum`` is None because the library's optimum is for the whole file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path

import numpy as np
import vrplib
from pydantic import ValidationError
from vrplib.parse import parse_solomon, parse_vrplib

from vrpcoder.checker import route_distance
from vrpcoder.distances import DistanceKind, distance_matrix
from vrpcoder.instances import Customer, Depot, DistanceSpec, Instance, Provenance, TimeWindow, Vehicle
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import CapacityKind, Module, get_variant


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
    customer_ids: tuple[int, ...] = ()
    """How the file numbers each customer (same order as ``customers``); empty means 1..n."""

    def file_ids(self) -> tuple[int, ...]:
        return self.customer_ids or tuple(range(1, len(self.customers) + 1))


@dataclass(frozen=True, slots=True)
class Convention:
    """One choice the importer made where the library leaves room, and why (printed by
    ``vrpcoder instance import``, so nobody has to read this module to know what was assumed)."""

    topic: str
    choice: str
    reason: str


@dataclass(frozen=True, slots=True)
class ImportResult:
    instance: Instance
    conventions: tuple[Convention, ...]
    warnings: tuple[str, ...] = ()


CustomerSelection = int | Sequence[int] | None
"""``None``: every customer; an int K: the first K customers in file order; a sequence: the
customers with these ids, as the file numbers them (Solomon 1..100, CVRPLIB/TSPLIB node numbers
other than the depot's, Cordeau/SDVRPLIB/VRPB 1..n)."""


# ---- the public entry points -----------------------------------------------------------------


def import_instance(
    path: str | Path,
    *,
    customers: CustomerSelection = None,
    variant: str | None = None,
    vehicles: int | None = None,
    distance: DistanceKind | str | None = None,
) -> Instance:
    """Read a library file and return the instance (or a sub-instance of some of its customers);
    :func:`import_library` also says which conventions were applied."""
    return import_library(path, customers=customers, variant=variant, vehicles=vehicles, distance=distance).instance


def import_library(
    path: str | Path,
    *,
    customers: CustomerSelection = None,
    variant: str | None = None,
    vehicles: int | None = None,
    distance: DistanceKind | str | None = None,
) -> ImportResult:
    """Read a library file and return the instance with the conventions applied to it.

    ``variant`` replaces the inferred variant when the file's data satisfy it (the instance
    validators decide; e.g. a CVRPLIB file may become OVRP or SDVRP, a Solomon file cannot become
    CVRP because it carries time windows). ``vehicles`` fixes the fleet: the total for
    single-depot files, the number per depot for multi-depot files. Without it the fleet is the
    file's (see :func:`_fleet`). ``distance`` replaces the file's default distance convention
    (coordinate files only; see the module docstring for each library's default and its source).
    """
    path = Path(path)
    text = _read_text(path)
    fmt = detect_format(text, path)
    try:
        library = parse_library_file(text, fmt, source=path.name)
        chosen = select_customers(library, customers)
        default_distance = library.distance
        library, distance_note = _with_distance(library, distance)
        instance, fleet_note, warnings = _assemble(library, chosen, variant=variant, vehicles=vehicles)
        _refuse_vrpb_without_plan(library, instance, chosen)
        whole = len(chosen) == len(library.customers) and list(chosen) == list(range(len(chosen)))
        as_published = instance.variant == library.variant and vehicles is None and library.distance == default_distance
        if whole and as_published:
            optimum = _published_optimum(path, fmt, instance)
            provenance = instance.provenance.model_copy(update={"published_optimum": optimum})
            instance = instance.model_copy(update={"provenance": provenance})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ValueError(f"{path.name}: {first['msg'].removeprefix('Value error, ')}") from None
    ids = library.file_ids()
    kept = Convention(
        "customers",
        f"all {len(chosen)}" if whole else ", ".join(str(ids[i]) for i in chosen),
        "the whole file" if whole else "file ids of the kept customers (depots are always kept)",
    )
    return ImportResult(instance, (distance_note, fleet_note, kept), warnings)


def parse_customer_selection(text: str | None) -> CustomerSelection:
    """The command line's ``--customers``: ``12`` keeps the first 12, ``3,17,42`` those ids."""
    if text is None:
        return None
    parts = [part.strip() for part in text.replace(" ", ",").split(",") if part.strip()]
    if not parts or not all(part.isdigit() for part in parts):
        raise ValueError(f"--customers takes a count (12) or a list of customer ids (3,17,42), not {text!r}")
    if len(parts) == 1 and "," not in text:
        return int(parts[0])
    return [int(part) for part in parts]


def select_customers(library: LibraryFile, customers: CustomerSelection) -> tuple[int, ...]:
    """Positions (0-based, file order) of the kept customers."""
    n_total = len(library.customers)
    if customers is None:
        return tuple(range(n_total))
    if isinstance(customers, int):
        if not 1 <= customers <= n_total:
            raise ValueError(f"{library.source}: customers must be between 1 and {n_total}, got {customers}")
        return tuple(range(customers))
    ids = library.file_ids()
    position = {file_id: at for at, file_id in enumerate(ids)}
    wanted = list(customers)
    if not wanted:
        raise ValueError(f"{library.source}: the list of customers is empty")
    unknown = [c for c in wanted if c not in position]
    if unknown:
        raise ValueError(
            f"{library.source}: no customer(s) {unknown[:5]} in this file (its customer ids run from "
            f"{min(ids)} to {max(ids)})"
        )
    repeated = sorted({c for c in wanted if wanted.count(c) > 1})
    if repeated:
        raise ValueError(f"{library.source}: customer(s) {repeated} listed more than once")
    return tuple(sorted(position[c] for c in wanted))


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
    return _assemble(library, tuple(range(keep)), variant=variant, vehicles=vehicles)[0]


def _sub_name(library: LibraryFile, chosen: Sequence[int]) -> str:
    n_total = len(library.customers)
    if list(chosen) == list(range(len(chosen))):
        return library.name if len(chosen) == n_total else f"{library.name}-first{len(chosen)}"
    ids = library.file_ids()
    return f"{library.name}-c" + "-".join(str(ids[i]) for i in chosen)


def _assemble(
    library: LibraryFile, chosen: Sequence[int], *, variant: str | None, vehicles: int | None
) -> tuple[Instance, Convention, tuple[str, ...]]:
    """Keep the depots and the ``chosen`` customers (positions in file order) and assemble a
    validated ``Instance``, with the note that says which fleet it got and any warning about it."""
    kept = tuple(library.customers[i] for i in chosen)
    nodes = [*range(len(library.depots)), *(len(library.depots) + i for i in chosen)]
    matrix = None if library.matrix is None else tuple(tuple(library.matrix[i][j] for j in nodes) for i in nodes)
    name = _sub_name(library, chosen)
    target = library.variant if variant is None else get_variant(variant).name
    points = [(d.x, d.y) for d in library.depots] + [(c.x, c.y) for c in kept]
    measured = distance_matrix(library.distance, points, matrix)
    fleet, note, warnings = _fleet(library, kept, vehicles, target, measured)
    try:
        instance = Instance(
            name=name,
            variant=target,
            depots=library.depots,
            customers=kept,
            vehicles=fleet,
            distance=DistanceSpec(kind=library.distance, matrix=matrix),
            provenance=Provenance(source=library.source),
        )
        return instance, note, warnings
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
        distance=DistanceKind.EUCLIDEAN_TRUNC1,
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
    library: LibraryFile,
    kept: Sequence[Customer],
    vehicles: int | None,
    variant: str,
    matrix: Sequence[Sequence[float]],
) -> tuple[tuple[Vehicle, ...], Convention, tuple[str, ...]]:
    """The fleet of a (sub-)instance and the note that says where it came from.

    Order of precedence: ``--vehicles``; the file's own fleet (CVRPLIB ``-kN`` or VEHICLES, the
    Solomon header, Cordeau's m per depot, the VRPB vehicle line), capped at the number of kept
    customers because a vehicle beyond one per customer is never used (split delivery excepted);
    for files that name no fleet (CVRPLIB without either, SDVRPLIB), a fleet that cannot bind
    (:func:`non_binding_fleet`), since the library's problem has an unlimited fleet. ``matrix`` is
    the kept nodes' distance matrix (depots first).
    """
    spec = get_variant(variant)
    if spec.is_tsp:
        if vehicles not in (None, 1):
            raise ValueError(f"{library.name}: a TSP has exactly one vehicle, not {vehicles}")
        return (Vehicle(depot=0),), Convention("fleet", "1 vehicle", "a TSP has one vehicle"), ()
    if vehicles is not None and vehicles < 1:
        raise ValueError(f"{library.name}: vehicles must be at least 1, got {vehicles}")
    out: list[Vehicle] = []
    reasons: list[str] = []
    warnings: list[str] = []
    for depot, capacity in enumerate(library.capacity):
        limit = None if spec.capacity is CapacityKind.NONE else capacity
        if vehicles is not None:
            count, reason = vehicles, "as given (--vehicles)"
        elif library.fleet is not None:
            count = library.fleet[depot] if spec.has(Module.SPLIT) else min(library.fleet[depot], len(kept))
            capped = "" if count == library.fleet[depot] else f", capped at the {len(kept)} kept customers"
            reason = f"the file's fleet of {library.fleet[depot]}{capped}"
        else:
            count, reason, proven = non_binding_fleet(
                kept,
                limit,
                split=spec.has(Module.SPLIT),
                mergeable=spec.modules <= MERGEABLE_MODULES,
                matrix=matrix,
                depot=depot,
                num_depots=len(library.depots),
            )
            if not proven:
                warnings.append(f"the fleet of {count} may bind: {reason}")
        out.extend(Vehicle(depot=depot, capacity=limit) for _ in range(count))
        reasons.append(reason)
    per_depot = "" if len(library.depots) == 1 else " per depot"
    counts = sorted({sum(1 for v in out if v.depot == d) for d in range(len(library.depots))})
    choice = f"{'/'.join(map(str, counts))} vehicle(s){per_depot}"
    room = sum(v.capacity for v in out if v.capacity is not None)
    demand = sum(c.demand for c in kept)
    if spec.capacity is CapacityKind.HOMOGENEOUS and not spec.has(Module.PD) and demand > room + 1e-9:
        warnings.append(f"the fleet carries {room:g} in all, less than the kept demand {demand:g}: no plan exists")
    return tuple(out), Convention("fleet", choice, reasons[0]), tuple(warnings)


MERGEABLE_MODULES = frozenset({Module.MD, Module.SPLIT})
"""Variants whose only rules beyond capacity are these keep a plan feasible when two routes of one
depot are driven as one (windows, distance limits, open routes, backhauls ... do not)."""


def non_binding_fleet(
    kept: Sequence[Customer],
    capacity: float | None,
    *,
    split: bool,
    mergeable: bool,
    matrix: Sequence[Sequence[float]],
    depot: int = 0,
    num_depots: int = 1,
) -> tuple[int, str, bool]:
    """A fleet no optimal plan needs more of, for libraries whose problem has an unlimited fleet.

    Why ``ceil(2 D / Q) - 1`` suffices (D the kept demand, Q the capacity): when going from one
    customer straight to another never costs more than going through the depot
    (``d[a][b] <= d[a][0] + d[0][b]``, checked on ``matrix`` in internal node order), two routes
    whose loads fit one vehicle together can be driven as one (the second appended to the first; a
    customer met twice is served once, which the shortcut also pays for) at no extra cost, so some
    optimal plan has no such pair; then any two routes of a depot carry more than Q together, so
    all but the lightest carry more than Q / 2, and ``D > Q + (R - 2) * Q / 2 = R * Q / 2`` gives
    ``R <= ceil(2 D / Q) - 1`` (at most ``2 * ceil(D / Q) - 1``). Without split delivery no plan
    has more routes than customers either. The fewest vehicles that carry the demand,
    ``ceil(D / Q)``, can bind: SDVRP optima often use more routes than that. Where the argument
    does not apply (rules other than capacity, or the depot shortcut fails), a non-split fleet
    gets one vehicle per customer and a split fleet keeps the bound with a reason saying it is
    not proven there. Returns (vehicles, reason, proven).
    """
    n = len(kept)
    if capacity is None:
        return 1, "the variant has no capacity: one vehicle", True
    demand = sum(c.demand for c in kept)
    full_loads = max(1, math.ceil(demand / capacity - 1e-9))
    bound = max(1, math.ceil(2 * demand / capacity - 1e-9) - 1)
    customers = range(num_depots, len(matrix))
    shortcut = all(
        matrix[a][b] <= matrix[a][depot] + matrix[depot][b] + 1e-9 for a in customers for b in customers if a != b
    )
    proven = mergeable and shortcut
    why_not = (
        "rules other than capacity apply"
        if not mergeable
        else "some customer-to-customer leg costs more than going through the depot"
    )
    if not split:
        if not proven:
            return n, f"the file names no fleet (unlimited); one vehicle per customer ({why_not})", True
        count = min(n, bound)
        return count, (
            f"the file names no fleet (unlimited in the library's problem); min(customers, ceil(2D/Q)-1) = "
            f"{count} cannot bind (two routes that fit one vehicle merge at no extra cost; ceil(D/Q) = "
            f"{full_loads} could)"
        ), True
    reason = (
        f"unlimited in the library's problem; ceil(2D/Q)-1 = {bound} cannot bind (two routes that fit one "
        f"vehicle merge at no extra cost), where ceil(D/Q) = {full_loads} could"
    )
    if not proven:
        reason += f"; not proven here ({why_not})"
    return bound, reason, proven


_DEFAULT_DISTANCE_REASON = {
    InstanceFormat.TSPLIB: "the file's EDGE_WEIGHT_TYPE, under TSPLIB's definition (Reinelt 1995)",
    InstanceFormat.CVRPLIB: "the file's EDGE_WEIGHT_TYPE: Euclidean rounded to the nearest integer, as CVRPLIB's "
    "published optima are computed",
    InstanceFormat.SOLOMON: "Euclidean truncated to one decimal, the convention under which the exact methods "
    "proved the published optima (Kohl et al. 1999; Kallehauge, Larsen & Madsen 2006; SINTEF TOP's table: "
    "C101 = 827.3)",
    InstanceFormat.CORDEAU: "exact Euclidean, as Cordeau, Gendreau & Laporte (1997) report costs (p01.res: 576.87)",
    InstanceFormat.SDVRPLIB: "Euclidean rounded to the nearest integer on coordinates the files scale by 100, "
    "as SDVRPLIB distributes them (SD1: optimum 22828 = 228.28 x 100, Chen, Golden & Wasil 2007)",
    InstanceFormat.VRPB: "exact Euclidean, as the exact methods on the Goetschalckx & Jacobs-Blecha instances "
    "report costs (Toth & Vigo 1997)",
}

COORDINATE_CONVENTIONS = frozenset(
    {DistanceKind.EUCLIDEAN, DistanceKind.EUCLIDEAN_TRUNC1, DistanceKind.EUC_2D, DistanceKind.CEIL_2D}
)
"""Conventions that read coordinates as points of the plane; a file measured by one of them may be
re-measured by another (``--distance``). GEO, ATT and explicit matrices are the file's own."""


def _with_distance(library: LibraryFile, distance: DistanceKind | str | None) -> tuple[LibraryFile, Convention]:
    default = library.distance
    if distance is None:
        return library, Convention("distance", default.value, _DEFAULT_DISTANCE_REASON[library.fmt])
    try:
        wanted = DistanceKind(distance)
    except ValueError:
        options = ", ".join(sorted(k.value for k in COORDINATE_CONVENTIONS))
        raise ValueError(f"{library.source}: unknown distance convention {distance!r} (one of {options})") from None
    if wanted == default:
        return library, Convention("distance", default.value, "as asked (--distance), the library's default")
    if default not in COORDINATE_CONVENTIONS or wanted not in COORDINATE_CONVENTIONS:
        raise ValueError(
            f"{library.source}: the file is measured as {default.value}; it cannot be re-measured as {wanted.value} "
            f"(only planar coordinates switch between {', '.join(sorted(k.value for k in COORDINATE_CONVENTIONS))})"
        )
    note = Convention("distance", wanted.value, f"as asked (--distance); the library's default is {default.value}")
    return replace(library, distance=wanted), note


def _refuse_vrpb_without_plan(library: LibraryFile, instance: Instance, chosen: Sequence[int]) -> None:
    """Refuse VRPB sub-instances no plan can serve under the literature's rule that every route
    serves at least one linehaul customer (docs/semantics.md, backhaul)."""
    if not instance.has(Module.BH):
        return
    linehaul = [c for c in instance.customers if not c.backhaul]
    backhaul = [c for c in instance.customers if c.backhaul]
    ids = library.file_ids()
    if backhaul and not linehaul:
        first_linehaul = next((ids[i] for i, c in enumerate(library.customers) if not c.backhaul), None)
        hint = "" if first_linehaul is None else f" (e.g. add customer {first_linehaul})"
        raise ValueError(
            f"{library.source}: the kept customers {[ids[i] for i in chosen][:8]} are all backhauls; every VRPB "
            f"route serves at least one linehaul customer, so no plan exists: keep a linehaul customer{hint}"
        )
    capacity = min(v.capacity or math.inf for v in instance.vehicles)
    routes = min(len(linehaul), len(instance.vehicles))
    if backhaul and sum(c.demand for c in backhaul) > routes * capacity + 1e-9:
        raise ValueError(
            f"{library.source}: the kept backhauls need more routes than the {routes} that can serve a linehaul "
            "customer (every VRPB route serves at least one), so no plan exists"
        )


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

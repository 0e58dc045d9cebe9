"""The entry points: read a library file, cut the kept customers, apply the conventions, return an ``Instance``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from vrpcoder.distances import DistanceKind, distance_matrix
from vrpcoder.instances import DistanceSpec, Instance, Provenance
from vrpcoder.variants import get_variant
from vrpcoder.importers.conventions import fleet_for, refuse_vrpb_without_plan, with_distance
from vrpcoder.importers.cordeau import read_cordeau
from vrpcoder.importers.detection import detect_format
from vrpcoder.importers.records import Convention, CustomerSelection, ImportResult, InstanceFormat, LibraryFile
from vrpcoder.importers.sdvrplib import read_sdvrplib
from vrpcoder.importers.solomon import read_solomon
from vrpcoder.importers.solutions import published_optimum
from vrpcoder.importers.text import read_text
from vrpcoder.importers.tsplib import read_tsplib
from vrpcoder.importers.vrpb import read_vrpb


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
    file's (see :func:`fleet_for`). ``distance`` replaces the file's default distance convention
    (coordinate files only; see the module docstring for each library's default and its source).
    """
    path = Path(path)
    text = read_text(path)
    fmt = detect_format(text, path)
    try:
        library = parse_library_file(text, fmt, source=path.name)
        chosen = select_customers(library, customers)
        default_distance = library.distance
        library, distance_note = with_distance(library, distance)
        instance, fleet_note, warnings = _assemble(library, chosen, variant=variant, vehicles=vehicles)
        refuse_vrpb_without_plan(library, instance, chosen)
        whole = len(chosen) == len(library.customers) and list(chosen) == list(range(len(chosen)))
        as_published = instance.variant == library.variant and vehicles is None and library.distance == default_distance
        if whole and as_published:
            optimum = published_optimum(path, fmt, instance)
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


def parse_library_file(text: str, fmt: InstanceFormat, *, source: str) -> LibraryFile:
    parsers = {
        InstanceFormat.TSPLIB: read_tsplib,
        InstanceFormat.CVRPLIB: read_tsplib,
        InstanceFormat.SOLOMON: read_solomon,
        InstanceFormat.CORDEAU: read_cordeau,
        InstanceFormat.SDVRPLIB: read_sdvrplib,
        InstanceFormat.VRPB: read_vrpb,
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
    fleet, note, warnings = fleet_for(library, kept, vehicles, target, measured)
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

"""The choices a library leaves open, made once: the fleet of a (sub-)instance, the distance
convention, and which VRPB cuts admit no plan. Each choice comes back as a ``Convention`` with its reason."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from vrpcoder.distances import DistanceKind
from vrpcoder.instances import Customer, Instance, Vehicle
from vrpcoder.variants import CapacityKind, Module, get_variant
from vrpcoder.importers.records import Convention, InstanceFormat, LibraryFile


def fleet_for(
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


def with_distance(library: LibraryFile, distance: DistanceKind | str | None) -> tuple[LibraryFile, Convention]:
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


def refuse_vrpb_without_plan(library: LibraryFile, instance: Instance, chosen: Sequence[int]) -> None:
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

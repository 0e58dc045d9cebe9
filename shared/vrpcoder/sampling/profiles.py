"""The 15 sampling profiles as data, their boundary grids, and which profiles fit which variant.

A profile only fixes scale and geometry (customer count, fleet size, layout, base demand range);
the variant rules in :mod:`vrpcoder.sampling.rules` fill in everything else. Boundary profiles
(13-15) are families of arrangements, so they carry named subfamilies and, for 14 and 15, grids of
instance-level tuples whose resource values are used as they are ("locked").

Applicability is decided here from the variant registry's module flags only, so that a profile
that makes no sense for a variant (a capacity boundary without a capacity, a time boundary without
windows) is refused with one clear message instead of being quietly replaced.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from vrpcoder.variants import CapacityKind, Module, Variant, get_variant


class Layout(StrEnum):
    """How customer coordinates are placed (see :mod:`vrpcoder.sampling.spatial`)."""

    UNIFORM = "uniform"
    CLUSTERED = "clustered"
    RADIAL = "radial"
    ELONGATED = "elongated"
    SPLIT = "split"
    HEXAGON = "hexagon"
    POLYGON = "polygon"
    COLLINEAR = "collinear"
    LOCAL_CLUSTER = "local-cluster"


class Subfamily(StrEnum):
    """A named arrangement inside a boundary profile; recorded in the instance's provenance."""

    HEXAGON = "hexagon"
    POLYGON = "polygon"
    COLLINEAR = "collinear"
    LOCAL_CLUSTER = "local-cluster"
    SMALL_GRID = "small-grid"
    EXTENDED_GRID = "extended-grid"
    TIME_WINDOW = "time_window"
    PD_TIME_WINDOW = "pd_time_window"
    COMPARTMENT = "compartment"


@dataclass(frozen=True, slots=True)
class Profile:
    """One row of the profile table.

    ``n`` and ``k`` are inclusive ranges (a single value for regular profiles); pickup-and-delivery
    variants adjust the customer count with :func:`pd_customer_counts`. ``demand`` is the base
    scalar demand range, ``None`` where each grid tuple brings its own.
    """

    number: int
    name: str
    n: tuple[int, int]
    k: tuple[int, int]
    spatial: tuple[Layout, ...]
    demand: tuple[float, float] | None
    locked: bool = False
    subfamilies: tuple[Subfamily, ...] = ()

    @property
    def regular(self) -> bool:
        return not self.subfamilies


@dataclass(frozen=True, slots=True)
class CapacityCell:
    """Profile 14 tuple (n, k, Q, d): the average route demand n * mean(d) / k sits just below Q."""

    n: int
    k: int
    capacity: float
    demand: tuple[float, float]


@dataclass(frozen=True, slots=True)
class TimeCell:
    """Profile 15 time-window tuple (n, k, Q, H)."""

    n: int
    k: int
    capacity: float
    horizon: float


@dataclass(frozen=True, slots=True)
class CompartmentCell:
    """Profile 15 compartment tuple (n, k, Q, C)."""

    n: int
    k: int
    capacity: float
    compartments: int


GEOMETRY_DEMAND: tuple[float, float] = (1.0, 8.0)
"""Profile 13 leaves demand to the subfamily; one modest range keeps a single vehicle (k = 1)
within every capacity envelope (8 customers x 8 <= 64 <= the largest vehicle type)."""

TIME_WINDOW_DEMAND: tuple[float, float] = (1.0, 4.0)

SMALL_CAPACITY_GRID: tuple[CapacityCell, ...] = (
    CapacityCell(5, 2, 12, (3, 6)),
    CapacityCell(6, 2, 14, (3, 7)),
    CapacityCell(6, 3, 12, (2, 5)),
    CapacityCell(8, 3, 16, (2, 6)),
    CapacityCell(6, 3, 8, (3, 4)),
    CapacityCell(8, 4, 8, (3, 4)),
    CapacityCell(6, 2, 12, (3, 5)),
    CapacityCell(8, 3, 12, (3, 5)),
)

EXTENDED_CAPACITY_GRID: tuple[CapacityCell, ...] = (
    CapacityCell(10, 3, 24, (3, 10)),
    CapacityCell(12, 4, 20, (2, 10)),
    CapacityCell(9, 3, 30, (4, 14)),
    CapacityCell(12, 4, 32, (4, 16)),
    CapacityCell(10, 4, 36, (6, 20)),
    CapacityCell(7, 2, 48, (5, 20)),
    CapacityCell(11, 4, 24, (2, 14)),
    CapacityCell(12, 3, 60, (8, 20)),
)
"""Heavier and larger routes than the small grid; every Q lies in the [8, 100] envelope and the
load ratio n * mean(d) / (k * Q) stays between 0.85 and 0.95."""

SPLIT_CAPACITY_GRID: tuple[CapacityCell, ...] = (
    CapacityCell(8, 2, 45, (4, 16)),
    CapacityCell(10, 3, 36, (3, 17)),
    CapacityCell(12, 4, 34, (2, 18)),
    CapacityCell(6, 2, 48, (8, 20)),
    CapacityCell(12, 3, 60, (6, 20)),
    CapacityCell(10, 2, 85, (10, 20)),
    CapacityCell(9, 3, 40, (5, 20)),
    CapacityCell(11, 4, 30, (2, 18)),
)
"""SDVRP's extended grid: Q in its own [30, 85] envelope and demands inside [2, 20]."""

TIME_GRID: tuple[TimeCell, ...] = (
    TimeCell(8, 3, 60, 240),
    TimeCell(10, 3, 70, 260),
    TimeCell(10, 4, 60, 260),
    TimeCell(12, 4, 80, 300),
)

COMPARTMENT_GRID: tuple[CompartmentCell, ...] = (
    CompartmentCell(8, 3, 24, 2),
    CompartmentCell(10, 3, 26, 2),
    CompartmentCell(10, 4, 24, 2),
    CompartmentCell(12, 4, 28, 2),
)

PD_TIME_WINDOW_COUNTS: tuple[int, ...] = (4, 6, 8, 10, 12)

HEXAGON_CAPACITY = 100.0
"""Hexagon instances keep capacity out of the way so probes test connectivity, not loads."""


def _regular(number: int, name: str, n: int, k: int, layout: Layout, demand: tuple[float, float]) -> Profile:
    return Profile(number, name, (n, n), (k, k), (layout,), demand)


PROFILES: dict[int, Profile] = {
    p.number: p
    for p in (
        _regular(1, "Tiny uniform", 5, 2, Layout.UNIFORM, (2, 10)),
        _regular(2, "Tiny clustered", 6, 2, Layout.CLUSTERED, (1, 10)),
        _regular(3, "Small radial", 7, 2, Layout.RADIAL, (2, 8)),
        _regular(4, "Small elongated", 7, 3, Layout.ELONGATED, (1, 10)),
        _regular(5, "Medium uniform", 8, 3, Layout.UNIFORM, (1, 10)),
        _regular(6, "Medium clustered", 9, 3, Layout.CLUSTERED, (2, 12)),
        _regular(7, "Medium split", 10, 3, Layout.SPLIT, (1, 8)),
        _regular(8, "Medium light", 8, 3, Layout.UNIFORM, (0.5, 3)),
        _regular(9, "Medium heavy", 9, 4, Layout.UNIFORM, (5, 15)),
        _regular(10, "Large uniform", 12, 4, Layout.UNIFORM, (1, 8)),
        _regular(11, "Large clustered", 12, 4, Layout.CLUSTERED, (2, 10)),
        _regular(12, "Large mixed", 12, 4, Layout.ELONGATED, (1, 12)),
        Profile(
            13,
            "Geometry boundary",
            (4, 8),
            (1, 4),
            (Layout.HEXAGON, Layout.POLYGON, Layout.COLLINEAR, Layout.LOCAL_CLUSTER),
            GEOMETRY_DEMAND,
            subfamilies=(Subfamily.HEXAGON, Subfamily.POLYGON, Subfamily.COLLINEAR, Subfamily.LOCAL_CLUSTER),
        ),
        Profile(
            14,
            "Capacity boundary",
            (5, 12),
            (2, 4),
            (Layout.UNIFORM, Layout.SPLIT),
            None,
            locked=True,
            subfamilies=(Subfamily.SMALL_GRID, Subfamily.EXTENDED_GRID),
        ),
        Profile(
            15,
            "Time / multi-resource boundary",
            (4, 12),
            (1, 4),
            (Layout.RADIAL, Layout.SPLIT),
            None,
            locked=True,
            subfamilies=(Subfamily.TIME_WINDOW, Subfamily.PD_TIME_WINDOW, Subfamily.COMPARTMENT),
        ),
    )
}


def pd_customer_counts(spec: Variant, candidates: tuple[int, ...]) -> tuple[int, ...]:
    """Customer counts a variant may use when its profile offers ``candidates``.

    Pickup-and-delivery customers come in pairs, so PD variants keep only the even candidates and,
    where a profile offers none (a fixed odd n), round each down to the next even number
    (5 -> 4, 7 -> 6, 9 -> 8). Every other variant takes the candidates unchanged.
    """
    if not spec.has(Module.PD):
        return candidates
    evens = tuple(c for c in candidates if c % 2 == 0)
    return evens or tuple(sorted({c - c % 2 for c in candidates}))


def geometry_subfamilies(spec: Variant) -> tuple[Subfamily, ...]:
    """Profile 13 arrangements for a variant: the hexagon's single depot cannot host two depots."""
    out = PROFILES[13].subfamilies
    return tuple(s for s in out if not (s is Subfamily.HEXAGON and spec.has(Module.MD)))


def capacity_cells(spec: Variant) -> tuple[tuple[Subfamily, CapacityCell], ...]:
    """Profile 14 tuples for a variant (empty when the profile does not apply).

    Only one homogeneous capacity can be locked, and compartments would split it further, so the
    profile needs capacity kind Q and no MC module. SDVRP has its own capacity envelope and uses
    its own extended grid.
    """
    if spec.capacity is not CapacityKind.HOMOGENEOUS or spec.has(Module.MC):
        return ()
    if spec.has(Module.SPLIT):
        return tuple((Subfamily.EXTENDED_GRID, c) for c in SPLIT_CAPACITY_GRID)
    small = tuple((Subfamily.SMALL_GRID, c) for c in SMALL_CAPACITY_GRID)
    return small + tuple((Subfamily.EXTENDED_GRID, c) for c in EXTENDED_CAPACITY_GRID)


def resource_subfamilies(spec: Variant) -> tuple[Subfamily, ...]:
    """Profile 15 arrangements for a variant (empty when the profile does not apply)."""
    timed = spec.has(Module.HTW) or spec.has(Module.STW)
    out: list[Subfamily] = []
    if timed and not spec.has(Module.PD):
        out.append(Subfamily.TIME_WINDOW)
    if timed and spec.has(Module.PD):
        out.append(Subfamily.PD_TIME_WINDOW)
    if spec.has(Module.MC):
        out.append(Subfamily.COMPARTMENT)
    return tuple(out)


def applicable_profiles(variant: str) -> tuple[int, ...]:
    """Profile numbers that can be sampled for ``variant`` (unknown names raise ``ValueError``)."""
    spec = get_variant(variant)
    out = list(range(1, 14))
    if capacity_cells(spec):
        out.append(14)
    if resource_subfamilies(spec):
        out.append(15)
    return tuple(out)

"""Records of an import: the library formats, a whole file before any cut, the conventions applied, and the result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from vrpcoder.distances import DistanceKind
from vrpcoder.instances import Customer, Depot, Instance


class InstanceFormat(StrEnum):
    TSPLIB = "tsplib"
    CVRPLIB = "cvrplib"
    SOLOMON = "solomon"
    CORDEAU = "cordeau"
    SDVRPLIB = "sdvrplib"
    VRPB = "vrpb"


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

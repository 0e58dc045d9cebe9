"""Typed, immutable routing instances for all 21 variants.

Node numbering is the internal one every script, probe and solution uses: depots first
(``0 .. num_depots-1``), then customers in list order. A field that belongs to a module is set
exactly when the instance's variant enables that module; the validators reject anything else with
a ``ValueError`` that names the field, so a malformed instance never reaches a solver.
"""

from __future__ import annotations

from functools import cached_property
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vrpcoder.distances import DistanceKind, distance_matrix
from vrpcoder.variants import CapacityKind, Module, Variant, get_variant


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TimeWindow(_Record):
    """Earliest and latest service start."""

    start: float
    end: float

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end < self.start:
            raise ValueError(f"time window ends ({self.end}) before it starts ({self.start})")
        return self


class Depot(_Record):
    x: float
    y: float
    window: TimeWindow | None = None
    """Depot opening horizon [0, H] for time-window variants."""


class Customer(_Record):
    x: float
    y: float
    demand: float = Field(default=0.0, ge=0.0)
    """Scalar demand: delivery quantity; the backhaul (pickup) quantity for backhaul customers;
    the total over compartments for MC; zero for TSP and pickup-and-delivery nodes."""
    compartment_demand: tuple[float, ...] | None = None
    service_time: float = Field(default=0.0, ge=0.0)
    window: TimeWindow | None = None
    late_penalty: float | None = Field(default=None, ge=0.0)
    """Soft windows: objective cost per time unit that service starts after ``window.end``."""
    backhaul: bool = False
    """VRPB: True for a backhaul (pickup) customer, False for a linehaul (delivery) customer."""


class PickupDelivery(_Record):
    """A request: load ``quantity`` at node ``pickup`` and unload it at node ``delivery``."""

    pickup: int
    delivery: int
    quantity: float = Field(gt=0.0)


class Vehicle(_Record):
    depot: int = 0
    capacity: float | None = Field(default=None, gt=0.0)
    """None when the variant has no effective capacity limit."""
    compartment_capacity: tuple[float, ...] | None = None
    fixed_cost: float = Field(default=0.0, ge=0.0)
    cost_per_distance: float = Field(default=1.0, gt=0.0)
    type_name: str | None = None


class DistanceSpec(_Record):
    kind: DistanceKind = DistanceKind.EUCLIDEAN
    matrix: tuple[tuple[float, ...], ...] | None = None
    """Only for ``kind == explicit``: the full N x N matrix over internal nodes."""


class Provenance(_Record):
    """Where an instance came from, so any instance can be regenerated or traced to its file."""

    source: str = "sampled"
    """``sampled`` or the path / name of the imported library file."""
    profile: int | None = None
    seed: int | None = None
    subfamily: str | None = None
    published_optimum: float | None = None


class Instance(_Record):
    name: str
    variant: str
    depots: tuple[Depot, ...] = Field(min_length=1)
    customers: tuple[Customer, ...] = Field(min_length=1)
    vehicles: tuple[Vehicle, ...] = Field(min_length=1)
    pairs: tuple[PickupDelivery, ...] = ()
    max_route_distance: float | None = Field(default=None, gt=0.0)
    distance: DistanceSpec = DistanceSpec()
    provenance: Provenance = Provenance()

    @field_validator("variant")
    @classmethod
    def _canonical_variant(cls, value: str) -> str:
        return get_variant(value).name

    # ---- derived views -------------------------------------------------------------------
    @property
    def spec(self) -> Variant:
        return get_variant(self.variant)

    def has(self, module: Module) -> bool:
        return module in self.spec.modules

    @property
    def num_depots(self) -> int:
        return len(self.depots)

    @property
    def num_nodes(self) -> int:
        return len(self.depots) + len(self.customers)

    @property
    def customer_nodes(self) -> range:
        return range(len(self.depots), self.num_nodes)

    @property
    def coords(self) -> list[tuple[float, float]]:
        return [(d.x, d.y) for d in self.depots] + [(c.x, c.y) for c in self.customers]

    def customer(self, node: int) -> Customer:
        if node < self.num_depots or node >= self.num_nodes:
            raise ValueError(f"node {node} is not a customer (customers are {self.customer_nodes})")
        return self.customers[node - self.num_depots]

    @cached_property
    def distances(self) -> list[list[float]]:
        """N x N travel distances under the instance's convention (cached; instances are frozen)."""
        explicit = self.distance.matrix
        return distance_matrix(self.distance.kind, self.coords, explicit)

    @property
    def horizon(self) -> float | None:
        window = self.depots[0].window
        return None if window is None else window.end

    # ---- validation ---------------------------------------------------------------------
    @model_validator(mode="after")
    def _consistent_with_variant(self) -> Self:
        spec = get_variant(self.variant)
        problems = list(_problems(self, spec))
        if problems:
            raise ValueError(f"invalid {spec.name} instance {self.name!r}: " + "; ".join(problems))
        return self


def _problems(inst: Instance, spec: Variant) -> list[str]:
    """Every inconsistency between the instance's data and its variant's modules."""
    out: list[str] = []
    n_dep, n_nodes = len(inst.depots), len(inst.depots) + len(inst.customers)
    customers = inst.customers

    if spec.has(Module.MD) and n_dep < 2:
        out.append("multi-depot variants need at least two depots")
    if not spec.has(Module.MD) and n_dep != 1:
        out.append("single-depot variants need exactly one depot")
    for k, veh in enumerate(inst.vehicles):
        if not 0 <= veh.depot < n_dep:
            out.append(f"vehicle {k} is assigned to depot {veh.depot}, which does not exist")
    if spec.is_tsp and len(inst.vehicles) != 1:
        out.append("TSP has exactly one vehicle")

    has_cap = spec.capacity is not CapacityKind.NONE
    caps = {veh.capacity for veh in inst.vehicles}
    if has_cap and None in caps:
        out.append("every vehicle needs a capacity")
    if not has_cap and caps != {None}:
        out.append("this variant has no capacity limit; vehicles must not carry one")

    if spec.has(Module.MC):
        widths = {len(c.compartment_demand or ()) for c in customers}
        widths |= {len(v.compartment_capacity or ()) for v in inst.vehicles}
        if len(widths) != 1 or 0 in widths:
            out.append("every customer and vehicle needs compartment data of the same length")
        elif any(abs(sum(c.compartment_demand or ()) - c.demand) > 1e-9 for c in customers):
            out.append("a customer's demand must equal the sum of its compartment demands")
    elif any(c.compartment_demand is not None for c in customers) or any(
        v.compartment_capacity is not None for v in inst.vehicles
    ):
        out.append("compartment data given for a variant without compartments")

    timed = spec.has(Module.HTW) or spec.has(Module.STW)
    if timed:
        if any(c.window is None for c in customers) or any(d.window is None for d in inst.depots):
            out.append("time-window variants need a window at every customer and depot")
    elif any(c.window is not None for c in customers) or any(d.window is not None for d in inst.depots):
        out.append("time windows given for a variant without time windows")
    if any(c.service_time > 0 for c in customers) and not timed:
        out.append("service times only apply to time-window variants")
    soft = spec.has(Module.STW)
    if soft and any(c.late_penalty is None for c in customers):
        out.append("soft-window variants need a late_penalty at every customer")
    if not soft and any(c.late_penalty is not None for c in customers):
        out.append("late penalties only apply to soft-window variants")

    if spec.has(Module.DIST) != (inst.max_route_distance is not None):
        out.append("max_route_distance is set exactly for distance-limited variants")

    if spec.has(Module.PD):
        if any(c.demand != 0 for c in customers):
            out.append("pickup-and-delivery nodes carry their load in pairs, scalar demand must be 0")
        seen: list[int] = [node for p in inst.pairs for node in (p.pickup, p.delivery)]
        if sorted(seen) != list(range(n_dep, n_nodes)):
            out.append("pairs must cover every customer node exactly once")
    elif inst.pairs:
        out.append("pickup-delivery pairs given for a variant without them")

    if not spec.has(Module.BH) and any(c.backhaul for c in customers):
        out.append("backhaul labels only apply to backhaul variants")
    if spec.is_tsp and any(c.demand != 0 for c in customers):
        out.append("TSP customers have zero demand")

    if not spec.heterogeneous and len(inst.vehicles) > 1:
        first = inst.vehicles[0]
        same = ("capacity", "compartment_capacity", "fixed_cost", "cost_per_distance")
        if any(getattr(v, f) != getattr(first, f) for v in inst.vehicles for f in same):
            out.append("homogeneous-fleet variants need identical vehicles")

    if inst.distance.kind is DistanceKind.EXPLICIT:
        matrix = inst.distance.matrix
        if matrix is None or len(matrix) != n_nodes or any(len(row) != n_nodes for row in matrix):
            out.append(f"explicit distances need an {n_nodes} x {n_nodes} matrix")
    elif inst.distance.matrix is not None:
        out.append("a distance matrix is only allowed with the explicit convention")
    return out

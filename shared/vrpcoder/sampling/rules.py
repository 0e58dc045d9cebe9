"""Variant-specific parameter rules: envelopes, the draws that fill a profile's skeleton, and the
bounds sized from the reference plan.

Every number an instance stores has two decimals. Draws are rounded as they are made, and bounds
derived from the plan are rounded *towards* feasibility (capacities and distance limits up, window
starts down, window ends up), so the stored numbers are the ones the plan was checked against.
Quantities that are compared for feasibility are handled in integer cents.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from vrpcoder.instances import PickupDelivery, TimeWindow
from vrpcoder.variants import Module, Variant

CAPACITY_ENVELOPE = (8.0, 100.0)
SPLIT_CAPACITY_ENVELOPE = (30.0, 85.0)
SPLIT_DEMAND = (2.0, 20.0)
COMPARTMENTS = 2
COMPARTMENT_DEMAND = (0.0, 6.0)
COMPARTMENT_ENVELOPE = (5.0, 55.0)
COMPARTMENT_PERTURBATION = 0.1
"""Each compartment gets half the vehicle capacity times (1 +/- at most this)."""
COMPARTMENT_FILL = 1.2
"""Under a fixed capacity, per-compartment demand is capped at FILL * (fleet capacity of one
compartment) / n, which keeps the expected fill near 60 % so a packing nearly always exists."""
PAIR_QUANTITY = (1.0, 8.0)
CAPACITY_SLACK = (1.15, 1.6)
SPLIT_CAPACITY_SLACK = (1.0, 1.12)
"""Split delivery gets less slack so that a fair share of reference plans really split a
customer (with the ordinary slack the unsplit sweep almost always fits)."""
DISTANCE_ENVELOPE = (60.0, 1000.0)
DISTANCE_SLACK = (1.1, 1.4)
HORIZON = 500.0
SERVICE_TIME = (2.0, 8.0)
WINDOW_WIDTH = (30.0, 120.0)
WINDOW_START_CAP = 250.0
WINDOW_START_FACTOR = (0.5, 2.5)
"""A window's nominal start is this multiple of the customer's distance to its nearest depot."""
LATE_PENALTY = (0.5, 2.0)
BACKHAUL_SHARE = (0.3, 0.5)


# ---- two-decimal numbers ---------------------------------------------------------------------


def to_cents(value: float) -> int:
    return round(value * 100)


def round2(value: float) -> float:
    return round(float(value), 2)


def ceil2(value: float) -> float:
    """Smallest two-decimal number that is not below ``value``."""
    out = math.ceil(round(value * 100, 6)) / 100
    return out if out >= value else round2(out + 0.01)


def floor2(value: float) -> float:
    """Two-decimal floor of the number ``value`` stands for: 1.2 * 72 / 16 gives 5.4, not 5.39.

    Only used for range caps, where a binary rounding error of 1e-15 is harmless; bounds that must
    hold exactly are rounded with :func:`ceil2` or in integer cents.
    """
    return math.floor(round(value * 100, 6)) / 100


def uniform2(rng: np.random.Generator, bounds: tuple[float, float]) -> float:
    return round2(rng.uniform(bounds[0], bounds[1]))


# ---- envelopes and horizons ------------------------------------------------------------------


def capacity_envelope(spec: Variant) -> tuple[float, float]:
    return SPLIT_CAPACITY_ENVELOPE if spec.has(Module.SPLIT) else CAPACITY_ENVELOPE


def timed(spec: Variant) -> bool:
    return spec.has(Module.HTW) or spec.has(Module.STW)


def pd_horizon(pairs: int) -> float:
    """Pickup-and-delivery chains are long (one vehicle may serve every pair), so the horizon
    grows with the number of pairs."""
    return float(max(1200, 120 * pairs + 600))


def default_horizon(spec: Variant, customers: int) -> float | None:
    if not timed(spec):
        return None
    return pd_horizon(customers // 2) if spec.has(Module.PD) else HORIZON


def pair_quantity_range(demand: tuple[float, float]) -> tuple[float, float]:
    """A grid's demand range squeezed into the pickup-delivery quantity envelope."""
    lo, hi = PAIR_QUANTITY
    return (min(max(demand[0], lo), hi), min(max(demand[1], lo), hi))


def split_demand_range(fleet: int, customers: int, capacity: float | None) -> tuple[float, float]:
    """SDVRP demand range, capped so the whole demand fits the fleet at the largest capacity."""
    most = capacity if capacity is not None else SPLIT_CAPACITY_ENVELOPE[1]
    return (SPLIT_DEMAND[0], min(SPLIT_DEMAND[1], floor2(fleet * most / customers)))


def compartment_demand_range(customers: int, fleet_capacity: float | None) -> tuple[float, float]:
    """Per-compartment demand range; capped when the fleet's capacity is fixed in advance."""
    if fleet_capacity is None:
        return COMPARTMENT_DEMAND
    cap = floor2(COMPARTMENT_FILL * fleet_capacity / COMPARTMENTS / customers)
    return (COMPARTMENT_DEMAND[0], min(COMPARTMENT_DEMAND[1], cap))


# ---- customer draws --------------------------------------------------------------------------


def draw_demands(rng: np.random.Generator, n: int, bounds: tuple[float, float]) -> tuple[float, ...]:
    return tuple(uniform2(rng, bounds) for _ in range(n))


def draw_compartment_demands(
    rng: np.random.Generator, n: int, bounds: tuple[float, float]
) -> tuple[tuple[float, ...], ...]:
    """Per-compartment demands; a customer whose amounts all round to zero is drawn again,
    because a customer without demand would not be a multi-compartment customer."""
    out = []
    for _ in range(n):
        amounts = tuple(uniform2(rng, bounds) for _ in range(COMPARTMENTS))
        while sum(amounts) <= 0:
            amounts = tuple(uniform2(rng, bounds) for _ in range(COMPARTMENTS))
        out.append(amounts)
    return tuple(out)


def draw_pairs(
    rng: np.random.Generator, n: int, first_node: int, bounds: tuple[float, float]
) -> tuple[PickupDelivery, ...]:
    """Random perfect pairing of the customer nodes; the first of each drawn pair picks up."""
    if n % 2:
        raise ValueError(f"pickup-and-delivery needs an even number of customers, got {n}")
    order = rng.permutation(n)
    pairs = [
        PickupDelivery(
            pickup=first_node + int(order[2 * i]),
            delivery=first_node + int(order[2 * i + 1]),
            quantity=uniform2(rng, bounds),
        )
        for i in range(n // 2)
    ]
    return tuple(sorted(pairs, key=lambda p: p.pickup))


def draw_backhaul(rng: np.random.Generator, n: int) -> tuple[bool, ...]:
    """Backhaul labels with a per-instance share; both kinds appear whenever n >= 2, and a lone
    customer is a linehaul (no route serves backhauls only, so one needs a linehaul)."""
    share = rng.uniform(*BACKHAUL_SHARE)
    labels = [bool(x) for x in rng.uniform(0.0, 1.0, size=n) < share]
    if n >= 2 and len(set(labels)) == 1:
        flip = int(rng.integers(0, n))
        labels[flip] = not labels[flip]
    if n == 1:
        labels = [False]
    return tuple(labels)


def draw_service_times(rng: np.random.Generator, n: int) -> tuple[float, ...]:
    return tuple(uniform2(rng, SERVICE_TIME) for _ in range(n))


def draw_late_penalties(rng: np.random.Generator, n: int) -> tuple[float, ...]:
    return tuple(uniform2(rng, LATE_PENALTY) for _ in range(n))


# ---- bounds sized from the plan --------------------------------------------------------------


def homogeneous_capacity(
    rng: np.random.Generator,
    need: int,
    per_vehicle: float,
    envelope: tuple[float, float],
    slack: tuple[float, float] = CAPACITY_SLACK,
) -> float | None:
    """Q = max(heaviest route, average load per vehicle x slack), kept in the envelope.

    ``need`` is the heaviest route usage in cents; None when it does not fit the envelope.
    """
    lo, hi = envelope
    wanted = max(need / 100, per_vehicle * rng.uniform(*slack))
    capacity = min(hi, max(lo, ceil2(wanted)))
    return capacity if to_cents(capacity) >= need else None


def split_compartments(rng: np.random.Generator, total: int, needs: Sequence[int]) -> tuple[int, ...] | None:
    """Compartment capacities in cents: half the vehicle capacity each, mildly perturbed, raised
    to what the plan loads into each compartment. None when one leaves the envelope."""
    lo, hi = (to_cents(b) for b in COMPARTMENT_ENVELOPE)
    delta = rng.uniform(-COMPARTMENT_PERTURBATION, COMPARTMENT_PERTURBATION)
    first = max(round(total / 2 * (1 + delta)), needs[0], lo)
    second = max(total - first, needs[1], lo)
    out = (first, second)
    return out if max(out) <= hi else None


def distance_limit(rng: np.random.Generator, longest: float) -> float | None:
    """D_max from the plan's longest route with slack, inside the envelope (None if impossible)."""
    lo, hi = DISTANCE_ENVELOPE
    limit = min(hi, max(lo, ceil2(longest * rng.uniform(*DISTANCE_SLACK))))
    return limit if limit >= longest else None


# ---- heterogeneous fleets --------------------------------------------------------------------


class VehicleSize(StrEnum):
    SMALL = "small"
    MEDIUM = "medium"
    LARGE = "large"


FLEET_MIX: dict[int, tuple[VehicleSize, ...]] = {
    1: (VehicleSize.LARGE,),
    2: (VehicleSize.MEDIUM, VehicleSize.LARGE),
    3: (VehicleSize.SMALL, VehicleSize.MEDIUM, VehicleSize.LARGE),
    4: (VehicleSize.SMALL, VehicleSize.MEDIUM, VehicleSize.LARGE, VehicleSize.LARGE),
}
"""Vehicle sizes by fleet size, smallest first: every size appears from three vehicles on, and
extra vehicles are large so that fixed-capacity fleets have room."""

TYPE_CAPACITY_ENVELOPE = (10.0, 65.0)
TYPE_CAPACITY_BAND: dict[VehicleSize, tuple[float, float]] = {
    VehicleSize.SMALL: (10.0, 25.0),
    VehicleSize.MEDIUM: (25.0, 45.0),
    VehicleSize.LARGE: (45.0, 65.0),
}
FIXED_COST_BAND: dict[VehicleSize, tuple[float, float]] = {
    VehicleSize.SMALL: (20.0, 35.0),
    VehicleSize.MEDIUM: (35.0, 50.0),
    VehicleSize.LARGE: (50.0, 70.0),
}
COST_PER_DISTANCE_BAND: dict[VehicleSize, tuple[float, float]] = {
    VehicleSize.SMALL: (0.8, 0.93),
    VehicleSize.MEDIUM: (0.93, 1.07),
    VehicleSize.LARGE: (1.07, 1.2),
}
COMPARTMENT_TYPE_CAPACITY: dict[VehicleSize, float] = {
    VehicleSize.SMALL: 15.0,
    VehicleSize.MEDIUM: 30.0,
    VehicleSize.LARGE: 50.0,
}


@dataclass(frozen=True, slots=True)
class VehicleType:
    size: VehicleSize
    capacity: float
    compartments: tuple[float, ...] | None
    fixed_cost: float
    cost_per_distance: float


def fleet_mix(fleet: int) -> tuple[VehicleSize, ...]:
    if fleet not in FLEET_MIX:
        raise ValueError(f"heterogeneous fleets have 1 to {max(FLEET_MIX)} vehicles, got {fleet}")
    return FLEET_MIX[fleet]


def fixed_compartment_fleet_capacity(fleet: int) -> float:
    return sum(COMPARTMENT_TYPE_CAPACITY[s] for s in fleet_mix(fleet))


def _costs(rng: np.random.Generator, size: VehicleSize) -> tuple[float, float]:
    return uniform2(rng, FIXED_COST_BAND[size]), uniform2(rng, COST_PER_DISTANCE_BAND[size])


def sized_types(
    rng: np.random.Generator, needs: Mapping[VehicleSize, int]
) -> dict[VehicleSize, VehicleType] | None:
    """Types whose capacities are drawn from their size band and raised to the plan's needs.

    ``needs`` is the heaviest planned load (cents) per size in the fleet. Capacities are made
    non-decreasing from small to large; None when the large one would leave [10, 65].
    """
    out: dict[VehicleSize, VehicleType] = {}
    floor = TYPE_CAPACITY_ENVELOPE[0]
    for size in VehicleSize:
        if size not in needs:
            continue
        capacity = max(uniform2(rng, TYPE_CAPACITY_BAND[size]), ceil2(needs[size] / 100), floor)
        if capacity > TYPE_CAPACITY_ENVELOPE[1]:
            return None
        fixed, rate = _costs(rng, size)
        out[size] = VehicleType(size, capacity, None, fixed, rate)
        floor = capacity
    return out


def compartment_types(
    rng: np.random.Generator, sizes: Sequence[VehicleSize]
) -> dict[VehicleSize, VehicleType]:
    """Multi-compartment heterogeneous types: fixed totals, each split into two compartments."""
    out: dict[VehicleSize, VehicleType] = {}
    for size in VehicleSize:
        if size not in sizes:
            continue
        total = to_cents(COMPARTMENT_TYPE_CAPACITY[size])
        split = split_compartments(rng, total, (0, 0))
        if split is None:
            raise ValueError(f"type {size} cannot be split into compartments within {COMPARTMENT_ENVELOPE}")
        fixed, rate = _costs(rng, size)
        out[size] = VehicleType(size, sum(split) / 100, tuple(c / 100 for c in split), fixed, rate)
    return out


# ---- time windows ----------------------------------------------------------------------------


def _window_cents(
    rng: np.random.Generator, reach: float, planned: float | None, earliest: float | None
) -> tuple[int, int]:
    """(start, width) in cents for one customer.

    Soft windows (``planned`` None) only follow the generation rule. Hard windows must contain
    the plan's service start: the start is pulled into [planned - width + 0.01, planned], and if
    the plan serves the customer after the usual latest start of 250 the window is widened (up to
    the largest width) to start as early as the plan allows. ``earliest`` is the pickup-delivery
    lower bound for a delivery window's start.
    """
    width = to_cents(rng.uniform(*WINDOW_WIDTH))
    start = to_cents(reach * rng.uniform(*WINDOW_START_FACTOR))
    cap = to_cents(WINDOW_START_CAP)
    low_earliest = 0 if earliest is None else math.ceil(round(earliest * 100, 6))
    if planned is None:
        return max(min(start, cap), low_earliest), width
    when = planned * 100
    high = math.floor(when)
    low = min(max(0, math.ceil(when - width + 1), low_earliest), high)
    start = min(max(start, low), high)
    if start > cap:
        widest = to_cents(WINDOW_WIDTH[1])
        low = min(max(0, math.ceil(when - widest + 1), low_earliest), high)
        start = max(low, min(cap, high))
        width = max(width, math.ceil(when + 1 - start))
    return start, width


def draw_windows(
    rng: np.random.Generator,
    nodes: Sequence[int],
    reach: Mapping[int, float],
    planned: Mapping[int, float] | None,
    service: Mapping[int, float],
    pairs: Sequence[PickupDelivery],
    distances: Sequence[Sequence[float]],
) -> dict[int, TimeWindow]:
    """Windows for all customers: pickups and ordinary customers first, then deliveries, whose
    start must be at least the pickup's start + its service + half the pickup-delivery distance."""
    pickup_of = {p.delivery: p.pickup for p in pairs}
    ordered = [n for n in nodes if n not in pickup_of] + [p.delivery for p in pairs]
    out: dict[int, TimeWindow] = {}
    for node in ordered:
        earliest = None
        if node in pickup_of:
            pickup = pickup_of[node]
            earliest = out[pickup].start + service[pickup] + distances[pickup][node] / 2
        start, width = _window_cents(rng, reach[node], None if planned is None else planned[node], earliest)
        out[node] = TimeWindow(start=start / 100, end=(start + width) / 100)
    return out

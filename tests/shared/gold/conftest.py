"""Small real instances of every variant for the gold-script tests.

The project's sampler is written elsewhere; these tests must not depend on it, so this module
carries its own seeded generator. It follows the paper's parameter envelopes loosely (coordinates
in [5, 95]^2, depot at (50, 50), two depots at (25, 50) and (75, 50), three vehicle types, two
compartments, horizon 500) and leaves generous slack so every generated instance is feasible.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from vrpcoder.instances import Customer, Depot, Instance, PickupDelivery, TimeWindow, Vehicle
from vrpcoder.variants import CapacityKind, Module, get_variant

InstanceFactory = Callable[..., Instance]

HORIZON = 500.0
PD_HORIZON = 1200.0


def _coords(rng: random.Random, n: int) -> list[tuple[float, float]]:
    return [(round(rng.uniform(5, 95), 1), round(rng.uniform(5, 95), 1)) for _ in range(n)]


def _depots(variant: str) -> list[tuple[float, float]]:
    return [(25.0, 50.0), (75.0, 50.0)] if get_variant(variant).has(Module.MD) else [(50.0, 50.0)]


def _nearest_depot_distance(point: tuple[float, float], depots: list[tuple[float, float]]) -> float:
    return min(math.dist(point, d) for d in depots)


def _vehicles(variant: str, k: int, rng: random.Random, need: float, customers: int) -> list[Vehicle]:
    """``k`` vehicles that can jointly carry ``need`` with room to spare."""
    spec = get_variant(variant)
    depots = len(_depots(variant))
    homes = [idx % depots for idx in range(k)]
    if spec.capacity is CapacityKind.NONE:
        return [Vehicle(depot=h) for h in homes]
    if spec.heterogeneous:
        types = [(0.8, 25.0, 0.9), (1.2, 40.0, 1.0), (1.6, 60.0, 1.15)]
        base = need / k
        return [
            Vehicle(
                depot=h,
                capacity=round(max(base * types[idx % 3][0] * 1.4, 1.0), 1),
                fixed_cost=types[idx % 3][1],
                cost_per_distance=types[idx % 3][2],
                type_name=f"type{idx % 3}",
            )
            for idx, h in enumerate(homes)
        ]
    capacity = round(max(need / k * 1.3, need / max(customers, 1) * 2.0), 1)
    return [Vehicle(depot=h, capacity=capacity) for h in homes]


def _with_compartments(
    vehicles: list[Vehicle], compartments: list[tuple[float, float] | None], k: int
) -> list[Vehicle]:
    """Split each vehicle's room over the two compartments in proportion to their total demand."""
    totals = [sum(c[idx] for c in compartments if c is not None) for idx in (0, 1)]
    mean = sum(v.capacity or 0.0 for v in vehicles) / len(vehicles)
    out = []
    for v in vehicles:
        share = (v.capacity or mean) / mean
        rooms = tuple(round(max(total / k * 1.3 * share, 6.0), 1) for total in totals)
        out.append(v.model_copy(update={"compartment_capacity": rooms, "capacity": sum(rooms)}))
    return out


def _windows(
    rng: random.Random, points: list[tuple[float, float]], depots: list[tuple[float, float]]
) -> list[TimeWindow]:
    out = []
    for p in points:
        d0 = _nearest_depot_distance(p, depots)
        start = round(d0 + rng.uniform(0, 160), 1)
        out.append(TimeWindow(start=start, end=round(start + rng.uniform(40, 120), 1)))
    return out


def make_instance(variant: str, n: int, k: int, seed: int = 0) -> Instance:
    """A random feasible-by-construction instance of ``variant`` with ``n`` customers and ``k`` vehicles."""
    spec = get_variant(variant)
    rng = random.Random(f"{variant}-{n}-{k}-{seed}")
    if spec.is_tsp:
        k = 1
    if spec.has(Module.PD) and n % 2:
        raise ValueError("pickup-and-delivery instances need an even number of customers")
    depot_xy = _depots(variant)
    points = _coords(rng, n)
    timed = spec.has(Module.HTW) or spec.has(Module.STW)
    pd_horizon = spec.has(Module.PD) and timed
    horizon = PD_HORIZON if pd_horizon else HORIZON
    depots = [
        Depot(x=x, y=y, window=TimeWindow(start=0, end=horizon) if timed else None) for x, y in depot_xy
    ]

    demand = [0.0] * n
    compartments: list[tuple[float, float] | None] = [None] * n
    if spec.has(Module.SPLIT):
        demand = [float(rng.randint(2, 20)) for _ in range(n)]
    elif spec.has(Module.MC):
        compartments = [(float(rng.randint(0, 6)), float(rng.randint(1, 6))) for _ in range(n)]
        demand = [a + b for a, b in compartments]  # type: ignore[misc]
    elif spec.capacity is not CapacityKind.NONE and not spec.has(Module.PD):
        demand = [float(rng.randint(1, 10)) for _ in range(n)]

    pairs: list[PickupDelivery] = []
    if spec.has(Module.PD):
        nodes = list(range(len(depots), len(depots) + n))
        rng.shuffle(nodes)
        pairs = [
            PickupDelivery(pickup=nodes[2 * r], delivery=nodes[2 * r + 1], quantity=float(rng.randint(1, 8)))
            for r in range(n // 2)
        ]

    windows: list[TimeWindow | None] = [None] * n
    if timed:
        windows = list(_windows(rng, points, depot_xy))
        if spec.has(Module.PD):
            offset = len(depots)
            for pair in pairs:
                p, d = pair.pickup - offset, pair.delivery - offset
                pw = windows[p]
                assert pw is not None
                earliest = pw.start + 8 + 0.5 * math.dist(points[p], points[d])
                start = round(earliest + rng.uniform(0, 100), 1)
                windows[d] = TimeWindow(start=start, end=round(start + rng.uniform(80, 200), 1))

    backhaul = [False] * n
    if spec.has(Module.BH):
        backhaul = [rng.random() < 0.4 for _ in range(n)]

    customers = []
    for idx, (x, y) in enumerate(points):
        fields: dict[str, Any] = {"x": x, "y": y, "demand": demand[idx], "backhaul": backhaul[idx]}
        if compartments[idx] is not None:
            fields["compartment_demand"] = compartments[idx]
        if timed:
            fields["window"] = windows[idx]
            fields["service_time"] = round(rng.uniform(2, 8), 1)
        if spec.has(Module.STW):
            fields["late_penalty"] = round(rng.uniform(0.5, 2.0), 2)
        customers.append(Customer(**fields))

    if spec.has(Module.PD):
        need = sum(p.quantity for p in pairs) / 2
    elif spec.has(Module.BH):
        need = max(
            sum(d for d, b in zip(demand, backhaul, strict=True) if b == side) for side in (False, True)
        )
    else:
        need = sum(demand)
    vehicles = _vehicles(variant, k, rng, max(need, 1.0), n)
    if spec.has(Module.PD) and spec.capacity is not CapacityKind.NONE:
        biggest = max(p.quantity for p in pairs)
        vehicles = [v.model_copy(update={"capacity": max(v.capacity or 0.0, 2 * biggest)}) for v in vehicles]
    if spec.has(Module.MC):
        vehicles = _with_compartments(vehicles, compartments, k)

    max_route = None
    if spec.has(Module.DIST):
        far = max(_nearest_depot_distance(p, depot_xy) for p in points)
        max_route = round(max(2.2 * far, 400.0 / k), 1)

    return Instance(
        name=f"{variant.lower()}-n{n}-k{k}-s{seed}",
        variant=variant,
        depots=tuple(depots),
        customers=tuple(customers),
        vehicles=tuple(vehicles),
        pairs=tuple(pairs),
        max_route_distance=max_route,
    )


def tiny_size(variant: str) -> tuple[int, int]:
    """(customers, vehicles) of the tiny instance of ``variant``: small enough for brute force."""
    spec = get_variant(variant)
    if spec.is_tsp:
        return 5, 1
    if spec.has(Module.PD):
        return 4, 2
    if spec.has(Module.MD):
        return 5, 3
    return 5, 2


def tiny(variant: str, seed: int = 0) -> Instance:
    n, k = tiny_size(variant)
    return make_instance(variant, n, k, seed)


@pytest.fixture(scope="session")
def instance_factory() -> InstanceFactory:
    return make_instance


@pytest.fixture(scope="session")
def tiny_instance() -> Callable[..., Instance]:
    return tiny

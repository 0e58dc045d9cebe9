"""Customer coordinates for every layout of the profile table.

Each layout is a pure function of the random generator and the customer count. All points are
clipped to the square [5, 95]^2 and rounded to two decimals here, before anything downstream
measures a distance, so that the stored coordinates are exactly the ones the plan was built on.
The geometric layouts (profile 13) choose their free parameters so that no point needs clipping,
because clipping would bend a regular shape.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from vrpcoder.sampling.profiles import Layout

Point = tuple[float, float]

LOW, HIGH = 5.0, 95.0
"""Customer coordinates live in [LOW, HIGH]^2."""
MAIN_DEPOT: Point = (50.0, 50.0)
TWO_DEPOTS: tuple[Point, Point] = ((25.0, 50.0), (75.0, 50.0))

_SHAPE_TRIES = 50


def depot_points(multi_depot: bool) -> tuple[Point, ...]:
    return TWO_DEPOTS if multi_depot else (MAIN_DEPOT,)


def _finish(x: float, y: float) -> Point:
    return (round(min(max(float(x), LOW), HIGH), 2), round(min(max(float(y), LOW), HIGH), 2))


def _inside(points: list[tuple[float, float]]) -> bool:
    return all(LOW <= x <= HIGH and LOW <= y <= HIGH for x, y in points)


def uniform(rng: np.random.Generator, n: int) -> tuple[Point, ...]:
    xy = rng.uniform(LOW, HIGH, size=(n, 2))
    return tuple(_finish(x, y) for x, y in xy)


def clustered(rng: np.random.Generator, n: int) -> tuple[Point, ...]:
    """Two or three compact groups around random centres."""
    centres = rng.uniform(20.0, 80.0, size=(int(rng.integers(2, 4)), 2))
    spread = rng.uniform(3.0, 7.0)
    owner = rng.integers(0, len(centres), size=n)
    offsets = rng.normal(0.0, spread, size=(n, 2))
    return tuple(_finish(*(centres[o] + d)) for o, d in zip(owner, offsets, strict=True))


def radial(rng: np.random.Generator, n: int) -> tuple[Point, ...]:
    """Angles and radii drawn around the main depot."""
    angles = rng.uniform(0.0, 2 * math.pi, size=n)
    radii = rng.uniform(8.0, 45.0, size=n)
    return tuple(
        _finish(MAIN_DEPOT[0] + r * math.cos(a), MAIN_DEPOT[1] + r * math.sin(a))
        for a, r in zip(angles, radii, strict=True)
    )


def elongated(rng: np.random.Generator, n: int) -> tuple[Point, ...]:
    """A narrow corridor through the middle of the square along a random direction."""
    theta = rng.uniform(0.0, math.pi)
    cx, cy = rng.uniform(40.0, 60.0, size=2)
    along = rng.uniform(-40.0, 40.0, size=n)
    across = rng.uniform(-4.0, 4.0, size=n)
    ux, uy = math.cos(theta), math.sin(theta)
    return tuple(
        _finish(cx + a * ux - b * uy, cy + a * uy + b * ux) for a, b in zip(along, across, strict=True)
    )


def split(rng: np.random.Generator, n: int) -> tuple[Point, ...]:
    """Two separated groups on opposite sides of the main depot."""
    theta = rng.uniform(0.0, math.pi)
    gap = rng.uniform(22.0, 32.0)
    spread = rng.uniform(4.0, 7.0)
    ux, uy = math.cos(theta), math.sin(theta)
    offsets = rng.normal(0.0, spread, size=(n, 2))
    points = []
    for i, (dx, dy) in enumerate(offsets):
        side = 1.0 if i % 2 == 0 else -1.0
        points.append(_finish(MAIN_DEPOT[0] + side * gap * ux + dx, MAIN_DEPOT[1] + side * gap * uy + dy))
    return tuple(points)


def hexagon(rng: np.random.Generator, n: int) -> tuple[Point, ...]:
    """Six customers on a regular hexagon one of whose edges has its midpoint at the main depot.

    The hexagon's centre lies one apothem away from the depot in a random direction; directions
    that would push a corner out of the square are redrawn (a bounded number of times, then the
    diagonal direction, which always fits for radii up to 25).
    """
    if n != 6:
        raise ValueError(f"a hexagon has 6 customers, not {n}")
    radius = rng.uniform(15.0, 25.0)
    apothem = radius * math.sqrt(3.0) / 2.0
    for attempt in range(_SHAPE_TRIES + 1):
        psi = rng.uniform(0.0, 2 * math.pi) if attempt < _SHAPE_TRIES else math.pi / 4
        cx, cy = MAIN_DEPOT[0] + apothem * math.cos(psi), MAIN_DEPOT[1] + apothem * math.sin(psi)
        first = psi + math.pi + math.pi / 6
        corners = [
            (cx + radius * math.cos(first + i * math.pi / 3), cy + radius * math.sin(first + i * math.pi / 3))
            for i in range(6)
        ]
        if _inside(corners):
            break
    return tuple(_finish(x, y) for x, y in corners)


def polygon(rng: np.random.Generator, n: int) -> tuple[Point, ...]:
    """A regular n-gon with centre in [45, 55]^2, radius in [25, 40] and a random rotation."""
    cx, cy = rng.uniform(45.0, 55.0, size=2)
    radius = rng.uniform(25.0, 40.0)
    rotation = rng.uniform(0.0, 2 * math.pi)
    step = 2 * math.pi / n
    return tuple(
        _finish(cx + radius * math.cos(rotation + i * step), cy + radius * math.sin(rotation + i * step))
        for i in range(n)
    )


def collinear(rng: np.random.Generator, n: int) -> tuple[Point, ...]:
    """Equally spaced customers on a randomly rotated segment placed wholly inside the square."""
    spacing = rng.uniform(3.0, 8.0)
    theta = rng.uniform(0.0, math.pi)
    half = spacing * (n - 1) / 2.0
    mx, my = rng.uniform(LOW + half, HIGH - half, size=2)
    ux, uy = math.cos(theta), math.sin(theta)
    return tuple(_finish(mx + (i * spacing - half) * ux, my + (i * spacing - half) * uy) for i in range(n))


def local_cluster(rng: np.random.Generator, n: int) -> tuple[Point, ...]:
    """Customers uniformly inside a disc of radius [1, 3] around a centre in [20, 80]^2."""
    cx, cy = rng.uniform(20.0, 80.0, size=2)
    radius = rng.uniform(1.0, 3.0)
    angles = rng.uniform(0.0, 2 * math.pi, size=n)
    radii = radius * np.sqrt(rng.uniform(0.0, 1.0, size=n))
    return tuple(
        _finish(cx + r * math.cos(a), cy + r * math.sin(a)) for a, r in zip(angles, radii, strict=True)
    )


LAYOUTS: dict[Layout, Callable[[np.random.Generator, int], tuple[Point, ...]]] = {
    Layout.UNIFORM: uniform,
    Layout.CLUSTERED: clustered,
    Layout.RADIAL: radial,
    Layout.ELONGATED: elongated,
    Layout.SPLIT: split,
    Layout.HEXAGON: hexagon,
    Layout.POLYGON: polygon,
    Layout.COLLINEAR: collinear,
    Layout.LOCAL_CLUSTER: local_cluster,
}


def customer_points(layout: Layout, rng: np.random.Generator, n: int) -> tuple[Point, ...]:
    if n < 1:
        raise ValueError(f"a layout needs at least one customer, got {n}")
    return LAYOUTS[layout](rng, n)

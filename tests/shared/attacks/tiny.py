"""Builders for the tiny hand-built attack instances (the fixtures are in conftest.py). Each comes
with a feasible plan s+ and is small enough to work every probe out on paper. The depot sits at the
origin and the customers on the axes, so that legs are easy sums:

    node 1 = (3, 0), node 2 = (6, 0), node 3 = (0, 4), node 4 = (0, 8)
    route [1, 2] is 3 + 3 + 6 = 12 long, route [3, 4] is 4 + 4 + 8 = 16 long
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vrpcoder.instances import Customer, Depot, Instance, Vehicle
from vrpcoder.solutions import Route, Solution

ORIGIN = Depot(x=0, y=0)
AXES = ((3.0, 0.0), (6.0, 0.0), (0.0, 4.0), (0.0, 8.0))


@dataclass(frozen=True)
class Case:
    instance: Instance
    plus: Solution


def on_axes(demands: tuple[float, ...], **per_customer: Any) -> tuple[Customer, ...]:
    return tuple(
        Customer(x=x, y=y, demand=d, **{key: values[i] for key, values in per_customer.items()})
        for i, ((x, y), d) in enumerate(zip(AXES, demands, strict=True))
    )


def make(
    variant: str, customers: tuple[Customer, ...], vehicles: tuple[Vehicle, ...], **extra: Any
) -> Instance:
    depots = extra.pop("depots", (ORIGIN,))
    return Instance(
        name=f"tiny-{variant}",
        variant=variant,
        depots=depots,
        customers=customers,
        vehicles=vehicles,
        **extra,
    )


def plan(*routes: tuple[int, tuple[int, ...]]) -> Solution:
    return Solution(routes=tuple(Route(vehicle=k, depot=0, visits=v) for k, v in routes))


TWO_ROUTES = plan((0, (1, 2)), (1, (3, 4)))

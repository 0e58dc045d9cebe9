"""Fixtures: tiny hand-built instances with a feasible plan s+ each (see tiny.py for the layout)."""

from __future__ import annotations

import pytest
from vrpcoder.instances import Depot, PickupDelivery, TimeWindow, Vehicle
from vrpcoder.solutions import Route, Solution

from tests.shared.attacks.tiny import TWO_ROUTES, Case, make, on_axes, plan


@pytest.fixture
def cvrp() -> Case:
    """Demands 3, 4 | 5, 1: the routes [1, 2] and [3, 4] load 7 and 6; capacity 10."""
    return Case(make("CVRP", on_axes((3, 4, 5, 1)), (Vehicle(capacity=10),) * 2), TWO_ROUTES)


@pytest.fixture
def hfvrp() -> Case:
    """Same customers; vehicle 0 carries 8 (loaded 7), vehicle 1 carries 12 (loaded 6). The whole
    demand, 13, is more than the largest vehicle carries."""
    fleet = (Vehicle(capacity=8, fixed_cost=5), Vehicle(capacity=12, fixed_cost=9))
    return Case(make("HFVRP", on_axes((3, 4, 5, 1)), fleet), TWO_ROUTES)


@pytest.fixture
def dcvrp() -> Case:
    """Routes 12 and 16 long under a limit of 40; capacity never binds."""
    instance = make("DCVRP", on_axes((1, 1, 1, 1)), (Vehicle(capacity=50),) * 2, max_route_distance=40)
    return Case(instance, TWO_ROUTES)


@pytest.fixture
def mcvrp() -> Case:
    """Compartment demands (2,1) (1,2) | (3,0) (0,1): route loads (3,3) and (3,1); compartments of
    10 and a total of 20 never bind in s+."""
    parts = ((2.0, 1.0), (1.0, 2.0), (3.0, 0.0), (0.0, 1.0))
    customers = on_axes(tuple(sum(p) for p in parts), compartment_demand=parts)
    fleet = (Vehicle(capacity=20, compartment_capacity=(10.0, 10.0)),) * 2
    return Case(make("MCVRP", customers, fleet), TWO_ROUTES)


@pytest.fixture
def vrphtw() -> Case:
    """One route [1, 2], service time 1: node 1 starts at 3, node 2 at 3 + 1 + 3 = 7, back at 14."""
    customers = on_axes((1, 1, 1, 1), service_time=(1, 1, 1, 1), window=(TimeWindow(start=0, end=50),) * 4)
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=100))
    instance = make("VRPHTW", customers, (Vehicle(capacity=10),) * 2, depots=(depot,))
    return Case(instance, plan((0, (1, 2)), (1, (3, 4))))


@pytest.fixture
def vrpb() -> Case:
    """Node 2 and node 4 are backhauls: route [1, 2] has linehaul 3 and backhaul 4, route [3, 4]
    linehaul 5 and backhaul 1; capacity 10."""
    customers = on_axes((3, 4, 5, 1), backhaul=(False, True, False, True))
    return Case(make("VRPB", customers, (Vehicle(capacity=10),) * 2), TWO_ROUTES)


@pytest.fixture
def vrpb_mixed() -> Case:
    """Node 2 is the only backhaul: route [1, 2] has linehaul 3 and backhaul 4, route [3, 4]
    linehaul 6; capacity 10. Both routes start with a linehaul and can take one more."""
    customers = on_axes((3, 4, 5, 1), backhaul=(False, True, False, False))
    return Case(make("VRPB", customers, (Vehicle(capacity=10),) * 2), TWO_ROUTES)


@pytest.fixture
def pdp() -> Case:
    """Pairs 1 -> 2 (quantity 3) and 3 -> 4 (quantity 2), one per route; capacity 10."""
    pairs = (
        PickupDelivery(pickup=1, delivery=2, quantity=3),
        PickupDelivery(pickup=3, delivery=4, quantity=2),
    )
    instance = make("PDP", on_axes((0, 0, 0, 0)), (Vehicle(capacity=10),) * 2, pairs=pairs)
    return Case(instance, TWO_ROUTES)


@pytest.fixture
def sdvrp() -> Case:
    """Demands 6, 6, 6 at nodes 1, 2, 3 (node 4 is absent); node 2 is split 4 + 2. Route loads 10
    and 8 under a capacity of 20."""
    customers = on_axes((6, 6, 6, 0))[:3]
    instance = make("SDVRP", customers, (Vehicle(capacity=20),) * 2)
    plus = Solution(
        routes=(
            Route(vehicle=0, depot=0, visits=(1, 2), deliveries=(6, 4)),
            Route(vehicle=1, depot=0, visits=(2, 3), deliveries=(2, 6)),
        )
    )
    return Case(instance, plus)

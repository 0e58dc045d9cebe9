"""An independent solver's opinion: translate an instance to PyVRP and solve it heuristically.

PyVRP shares no code with the gold scripts, so "the gold optimum is never worse than PyVRP's best"
is a check with teeth: a gold formulation that cuts off legal plans shows up as a PyVRP route set
that is cheaper and still feasible by the independent checker. PyVRP works in integers, so data
are scaled by :data:`SCALE` and PyVRP's routes are re-priced exactly by our checker rather than
trusting its scaled objective.

Supported: CVRP, VRPHTW, MDVRP, HFVRP, OVRP and the variants built from the same ingredients
(capacity, hard windows, several depots, heterogeneous fleets, open routes, distance limits).
PyVRP is a test/benchmark dependency and is imported lazily.
"""

from __future__ import annotations

from vrpcoder.instances import Instance
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import Module

SCALE = 1000
"""Distances, durations and loads are multiplied by this and rounded for PyVRP."""
COST_SCALE = 100
"""Per-distance costs (0.8..1.2) are multiplied by this and rounded to integers."""

SUPPORTED_MODULES = frozenset({Module.MD, Module.HTW, Module.HF, Module.OPEN, Module.DIST})


def supports(instance: Instance) -> bool:
    return instance.spec.modules <= SUPPORTED_MODULES and not instance.spec.is_tsp


def _scaled(value: float) -> int:
    return round(value * SCALE)


def solve_pyvrp(instance: Instance, *, seconds: float = 2.0, seed: int = 0) -> Solution | None:
    """Best PyVRP solution found within ``seconds`` (None when it found no feasible one)."""
    from pyvrp import Model
    from pyvrp.stop import MaxRuntime

    if not supports(instance):
        raise ValueError(f"PyVRP cross-check does not model {instance.variant}")
    spec = instance.spec
    open_routes = spec.has(Module.OPEN)
    timed = spec.has(Module.HTW)
    model = Model()
    depots = []
    for depot in instance.depots:
        loc = model.add_location(x=_scaled(depot.x), y=_scaled(depot.y))
        window = depot.window
        depots.append(
            model.add_depot(loc, tw_early=_scaled(window.start), tw_late=_scaled(window.end))
            if timed and window is not None
            else model.add_depot(loc)
        )
    for customer in instance.customers:
        loc = model.add_location(x=_scaled(customer.x), y=_scaled(customer.y))
        kwargs: dict[str, int | list[int]] = {"delivery": [_scaled(customer.demand)]}
        if timed and customer.window is not None:
            kwargs.update(
                service_duration=_scaled(customer.service_time),
                tw_early=_scaled(customer.window.start),
                tw_late=_scaled(customer.window.end),
            )
        model.add_client(loc, **kwargs)
    all_locs = list(model.locations)
    dist = instance.distances
    for i, frm in enumerate(all_locs):
        for j, to in enumerate(all_locs):
            d = _scaled(dist[i][j])
            if open_routes and j < instance.num_depots:
                d = 0
            model.add_edge(frm, to, distance=d, duration=d)

    for veh in instance.vehicles:
        kwargs2: dict[str, object] = {
            "num_available": 1,
            "capacity": [_scaled(veh.capacity if veh.capacity is not None else 1e9 / SCALE)],
            "start_depot": depots[veh.depot],
            "end_depot": depots[veh.depot],
            "fixed_cost": round(veh.fixed_cost * SCALE * COST_SCALE),
            "unit_distance_cost": round(veh.cost_per_distance * COST_SCALE),
        }
        if instance.max_route_distance is not None:
            kwargs2["max_distance"] = _scaled(instance.max_route_distance)
        if timed and instance.depots[veh.depot].window is not None:
            window = instance.depots[veh.depot].window
            kwargs2["tw_early"] = _scaled(window.start)
            kwargs2["tw_late"] = _scaled(window.end)
        model.add_vehicle_type(**kwargs2)

    result = model.solve(stop=MaxRuntime(seconds), seed=seed, display=False)
    if not result.is_feasible():
        return None
    routes = []
    for route in result.best.routes():
        vehicle = route.vehicle_type()
        visits = tuple(_client_node(instance, act.idx) for act in route if act.is_client())
        routes.append(Route(vehicle=vehicle, depot=instance.vehicles[vehicle].depot, visits=visits))
    return Solution(routes=tuple(routes))


def _client_node(instance: Instance, idx: int) -> int:
    """PyVRP numbers clients from zero in their own list; ours follow the depots."""
    return instance.num_depots + idx

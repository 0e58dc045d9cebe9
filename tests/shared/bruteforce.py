"""A third opinion on optima: enumerate every route plan of a tiny instance and keep the cheapest.

It shares nothing with the gold scripts (no solver, no formulation) and judges plans only through
the independent checker, so "gold optimum == enumerated optimum" is evidence that the gold model
neither cuts off legal plans nor admits illegal ones. Test support only; import it in tests as
``from tests.shared.bruteforce import brute_force_optimum``.

Enumerated: every assignment of customers to vehicles and every visiting order per vehicle (each
vehicle from its own depot). With n <= 5 customers and K <= 3 vehicles that is at most
n! * C(n + K - 1, K - 1) = 2520 plans. Split delivery is not enumerable this way: quantities are
continuous, so a plan is not a finite object.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import permutations, product

from vrpcoder.checker import check
from vrpcoder.instances import Instance
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import Module

MAX_CUSTOMERS = 5
MAX_VEHICLES = 3


def brute_force_optimum(instance: Instance) -> tuple[float, Solution]:
    """Cheapest plan the checker finds feasible (the first one found among equal costs)."""
    if instance.has(Module.SPLIT):
        raise ValueError("split delivery is not enumerable")
    n, k = len(instance.customers), len(instance.vehicles)
    if n > MAX_CUSTOMERS or k > MAX_VEHICLES:
        raise ValueError(
            f"{instance.name}: {n} customers and {k} vehicles are too many to enumerate "
            f"(at most {MAX_CUSTOMERS} and {MAX_VEHICLES})"
        )
    best: tuple[float, Solution] | None = None
    for solution in route_plans(instance):
        report = check(instance, solution)
        if report.feasible and (best is None or report.cost < best[0]):
            best = (report.cost, solution)
    if best is None:
        raise ValueError(f"{instance.name}: no route plan is feasible")
    return best


def route_plans(instance: Instance) -> Iterator[Solution]:
    """Every plan that visits each customer once; unused vehicles get no route."""
    customers = list(instance.customer_nodes)
    fleet = range(len(instance.vehicles))
    for owners in product(fleet, repeat=len(customers)):
        groups = [[c for c, owner in zip(customers, owners, strict=True) if owner == k] for k in fleet]
        for orders in product(*(permutations(group) for group in groups)):
            yield _solution(instance, orders)


def _solution(instance: Instance, orders: Sequence[tuple[int, ...]]) -> Solution:
    routes = tuple(
        Route(vehicle=k, depot=instance.vehicles[k].depot, visits=visits)
        for k, visits in enumerate(orders)
        if visits
    )
    return Solution(routes=routes)


# ---- a second exact method for up to 12 customers: route labels + set partitioning ----------------
#
# Shares nothing with the gold scripts' arc formulation: every feasible route is found by a label
# dynamic programme (Held-Karp over visited sets, with Pareto labels of cost and time where windows
# apply), and the cheapest partition of the customers into at most the fleet's routes per depot by
# a subset dynamic programme. Split delivery gets a route-based MIP instead (quantities are
# continuous). The plan found is priced and checked by the independent checker before it is
# returned, so a rule the programme forgot would show up as an infeasible plan.

DP_MAX_CUSTOMERS = 12
DP_MODULES = frozenset({Module.MD, Module.HTW, Module.BH, Module.OPEN})
INF = float("inf")


def dp_optimum(instance: Instance) -> tuple[float, Solution]:
    """Exact optimum of an instance of at most 12 customers whose variant combines only depots,
    hard windows, backhauls and open routes with capacity (TSP, CVRP, MDVRP, VRPHTW, VRPB, OVRP ...)."""
    n = len(instance.customers)
    if n > DP_MAX_CUSTOMERS:
        raise ValueError(f"{instance.name}: {n} customers are too many for the dynamic programme")
    spec = instance.spec
    if not spec.modules <= DP_MODULES or spec.heterogeneous:
        raise ValueError(f"{instance.name}: the dynamic programme does not model {spec.name}")
    fleets: dict[int, list[int]] = {}
    for k, vehicle in enumerate(instance.vehicles):
        fleets.setdefault(vehicle.depot, []).append(k)
    for depot, members in fleets.items():
        if len({(instance.vehicles[k].capacity, instance.vehicles[k].cost_per_distance) for k in members}) != 1:
            raise ValueError(f"{instance.name}: depot {depot}'s vehicles differ")
    full = (1 << n) - 1
    depots = sorted(fleets)
    orders: dict[int, dict[int, tuple[int, ...]]] = {}
    covers: dict[int, tuple[list[float], list[list[int]]]] = {}
    for depot in depots:
        cost_of, orders[depot] = _route_table(instance, depot, instance.vehicles[fleets[depot][0]].capacity)
        covers[depot] = _partition_table(cost_of, min(len(fleets[depot]), n), n)
    # several depots: the customers are shared out among them (subset convolution)
    combined = covers[depots[0]][0][:]
    shares: list[list[int]] = []
    for depot in depots[1:]:
        table = covers[depot][0]
        merged = [INF] * (full + 1)
        picked = [0] * (full + 1)
        for mask in range(full + 1):
            sub = mask
            while True:
                value = combined[mask ^ sub] + table[sub]
                if value < merged[mask]:
                    merged[mask], picked[mask] = value, sub
                if sub == 0:
                    break
                sub = (sub - 1) & mask
        combined = merged
        shares.append(picked)
    cost = combined[full]
    if cost == INF:
        raise ValueError(f"{instance.name}: no plan is feasible")
    share: dict[int, int] = {}
    mask = full
    for position in range(len(depots) - 1, 0, -1):
        share[depots[position]] = shares[position - 1][mask]
        mask ^= share[depots[position]]
    share[depots[0]] = mask
    routes: list[Route] = []
    for depot in depots:
        vehicles = iter(fleets[depot])
        for subset in _unpack(covers[depot][1], share[depot]):
            visits = tuple(instance.num_depots + c for c in orders[depot][subset])
            routes.append(Route(vehicle=next(vehicles), depot=depot, visits=visits))
    solution = Solution(routes=tuple(routes))
    report = check(instance, solution)
    if not report.feasible or abs(report.cost - cost) > 1e-6 * max(1.0, abs(cost)):
        raise AssertionError(f"{instance.name}: the programme's plan is {report} for cost {cost}")
    return report.cost, solution


def _route_table(
    instance: Instance, depot: int, capacity: float | None
) -> tuple[list[float], dict[int, tuple[int, ...]]]:
    """Cheapest feasible route from ``depot`` through exactly each customer set (bit c = customer c,
    0-based), and its visiting order; INF where no route is feasible."""
    n = len(instance.customers)
    first = instance.num_depots
    dist = instance.distances
    customers = instance.customers
    rate = next(v.cost_per_distance for v in instance.vehicles if v.depot == depot)
    open_routes = instance.has(Module.OPEN)
    timed = instance.has(Module.HTW)
    backhaul = instance.has(Module.BH)
    window = instance.depots[depot].window
    leave = window.start if (timed and window is not None) else 0.0
    close = window.end if (timed and window is not None) else INF
    limit = INF if capacity is None else capacity

    def node(c: int) -> int:
        return first + c

    def loads(mask: int) -> tuple[float, float]:
        line = sum(customers[c].demand for c in range(n) if mask >> c & 1 and not customers[c].backhaul)
        back = sum(customers[c].demand for c in range(n) if mask >> c & 1 and customers[c].backhaul)
        return (line, back) if backhaul else (line + back, 0.0)

    def arrive(c: int, time: float, previous: int) -> float | None:
        begin = time + dist[previous][node(c)]
        if timed:
            w = customers[c].window
            assert w is not None
            begin = max(begin, w.start)
            if begin > w.end + 1e-9:
                return None
        return begin

    # labels[(mask, last)] = list of (cost, time, order); Pareto in (cost, time)
    labels: dict[tuple[int, int], list[tuple[float, float, tuple[int, ...]]]] = {}
    for c in range(n):
        if backhaul and customers[c].backhaul:
            continue  # every route serves a linehaul first
        if max(loads(1 << c)) > limit + 1e-9:
            continue
        begin = arrive(c, leave, depot)
        if begin is not None:
            labels[(1 << c, c)] = [(rate * dist[depot][node(c)], begin, (c,))]
    best = [INF] * (1 << n)
    orders: dict[int, tuple[int, ...]] = {}
    for mask in range(1, 1 << n):
        for last in range(n):
            entries = labels.get((mask, last))
            if not entries:
                continue
            for cost, time, order in entries:
                done = time + customers[last].service_time
                back = done + dist[node(last)][depot]
                if open_routes or back <= close + 1e-9:
                    total = cost + (0.0 if open_routes else rate * dist[node(last)][depot])
                    if total < best[mask]:
                        best[mask], orders[mask] = total, order
                for c in range(n):
                    if mask >> c & 1:
                        continue
                    if backhaul and customers[last].backhaul and not customers[c].backhaul:
                        continue
                    grown = mask | 1 << c
                    if max(loads(grown)) > limit + 1e-9:
                        continue
                    begin = arrive(c, done, node(last))
                    if begin is None:
                        continue
                    label = (cost + rate * dist[node(last)][node(c)], begin if timed else 0.0, (*order, c))
                    _add_label(labels.setdefault((grown, c), []), label)
    return best, orders


def _add_label(entries: list[tuple[float, float, tuple[int, ...]]], label: tuple[float, float, tuple[int, ...]]) -> None:
    cost, time, _ = label
    if any(c <= cost + 1e-12 and t <= time + 1e-12 for c, t, _ in entries):
        return
    entries[:] = [e for e in entries if not (cost <= e[0] and time <= e[1])]
    entries.append(label)


def _partition_table(route: list[float], routes_allowed: int, n: int) -> tuple[list[float], list[list[int]]]:
    """For every customer set: the cheapest cover by at most ``routes_allowed`` feasible routes;
    and per level r, the route holding the set's lowest customer in its best cover by at most r
    routes (-1: no better than with r - 1)."""
    size = 1 << n
    table = route[:]  # at most one route
    table[0] = 0.0
    picks = [list(range(size))]
    for _ in range(routes_allowed - 1):
        nxt = table[:]
        pick = [-1] * size
        for mask in range(1, size):
            low = mask & -mask
            rest = mask ^ low
            sub = rest
            while True:
                part = sub | low
                if part != mask:
                    value = route[part] + table[mask ^ part]
                    if value < nxt[mask] - 1e-12:
                        nxt[mask], pick[mask] = value, part
                if sub == 0:
                    break
                sub = (sub - 1) & rest
        table = nxt
        picks.append(pick)
    return table, picks


def _unpack(picks: list[list[int]], mask: int) -> list[int]:
    """The routes of the best cover of ``mask`` recorded by :func:`_partition_table`."""
    out: list[int] = []
    level = len(picks) - 1
    while mask:
        part = picks[level][mask]
        if part == -1:
            level -= 1
            continue
        out.append(part)
        mask ^= part
        level -= 1
    return out


def split_route_optimum(instance: Instance, time_limit: float = 120.0) -> float:
    """Exact SDVRP optimum from a route-based model, unlike the gold's arc-based one: every
    customer set is a candidate route priced by its shortest tour (Held-Karp); integer y[S] counts
    the vehicles that drive it and continuous q[i, S] what they leave at customer i, within
    y[S] loads; the fleet bounds the sum of y. Fits the size-limited licence up to 8 customers."""
    import gurobipy as gp
    from gurobipy import GRB

    if not instance.has(Module.SPLIT) or instance.num_depots != 1:
        raise ValueError(f"{instance.name}: the route-based model is for single-depot split delivery")
    n = len(instance.customers)
    capacity = instance.vehicles[0].capacity
    if capacity is None or len({v.capacity for v in instance.vehicles}) != 1:
        raise ValueError(f"{instance.name}: the route-based model needs one capacity")
    tour, _ = _route_table(instance, 0, None)  # shortest tour through each set, no load limit
    sets = [mask for mask in range(1, 1 << n) if tour[mask] < INF]
    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    model = gp.Model("split_routes", env=env)
    try:
        model.Params.TimeLimit = time_limit
        model.Params.MIPGap = 1e-9
        y = model.addVars(sets, vtype=GRB.INTEGER, lb=0, name="y")
        members = [(c, mask) for mask in sets for c in range(n) if mask >> c & 1]
        q = model.addVars(members, lb=0.0, name="q")
        for c in range(n):
            model.addConstr(q.sum(c, "*") == instance.customers[c].demand)
        for mask in sets:
            model.addConstr(q.sum("*", mask) <= capacity * y[mask])
        model.addConstr(y.sum() <= len(instance.vehicles))
        model.setObjective(gp.quicksum(tour[mask] * instance.vehicles[0].cost_per_distance * y[mask] for mask in sets))
        model.optimize()
        if model.Status != GRB.OPTIMAL:
            raise ValueError(f"{instance.name}: the route-based model ended with status {model.Status}")
        return float(model.ObjVal)
    finally:
        model.dispose()
        env.dispose()

"""Pickup and delivery with hard time windows on a 2-index x[i,j] (addVars over an arc list):
times and windows are big-M rows, but pairing and precedence are enforced lazily: on every integer
solution a callback walks the routes out of the depot and cuts off each route that serves a
request's node without its partner or serves a delivery before its pickup (infeasible-path cut:
not all arcs of this route together), plus DFJ cuts for any customer cycle (redundant with the
clocks). Waiting is allowed, the depot's closing time bounds the return."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (67.35, 58.64), (57.79, 15.25), (26.13, 65.75), (35.02, 18.32), (47.17, 63.54), (58.71, 25.41)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
PAIRS = [(2, 1, 2.36), (3, 4, 2.38), (5, 6, 4.72)]
WINDOW = {0: (0.0, 1200.0), 1: (61.08, 93.81), 2: (25.61, 152.65), 3: (63.96, 129.24), 4: (91.21, 186.32), 5: (3.83, 68.55), 6: (40.81, 91.02)}
SERVICE = {0: 0.0, 1: 3.22, 2: 3.25, 3: 3.12, 4: 7.4, 5: 7.06, 6: 6.65}
# @data-end

DEPOT = DEPOTS[0]
PARTNER = {}
for _p, _d, _ in PAIRS:
    PARTNER[_p] = ("pickup", _d)
    PARTNER[_d] = ("delivery", _p)


def route_is_bad(route):
    seen = set()
    for node in route:
        role, other = PARTNER[node]
        if other not in route:
            return True  # pairing: partner rides elsewhere
        # @omit precedence
        if role == "delivery" and other not in seen:
            return True  # precedence: delivery before its pickup
        # @end precedence
        seen.add(node)
    return False


def pd_callback(model, where):
    if where != GRB.Callback.MIPSOL:
        return
    val = model.cbGetSolution(model._x)
    succ = {i: j for (i, j), v in val.items() if v > 0.5}
    covered = set()
    for first in [j for (i, j), v in val.items() if i == DEPOT and v > 0.5]:
        route, node = [], first
        while node != DEPOT and node not in route:
            route.append(node)
            node = succ[node]
        covered.update(route)
        if route_is_bad(route):
            path = [DEPOT] + route + [DEPOT]
            model.cbLazy(gp.quicksum(model._x[a, b] for a, b in zip(path, path[1:])) <= len(path) - 2)
    rest = [c for c in CUSTOMERS if c not in covered]
    while rest:
        cycle, node = [], rest[0]
        while node not in cycle:
            cycle.append(node)
            node = succ[node]
        rest = [c for c in rest if c not in cycle]
        model.cbLazy(gp.quicksum(model._x[a, b] for a in cycle for b in cycle if a != b) <= len(cycle) - 1)


def build_model():
    arcs = [(i, j) for i in range(N) for j in range(N) if i != j]
    tau = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i, j in arcs}

    m = gp.Model("pdptw_lazy")
    m.Params.OutputFlag = 0
    m.Params.LazyConstraints = 1
    m.Params.MIPGap = 0.0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    arr = m.addVars(CUSTOMERS, lb=0.0, name="arr")
    horizon = max(w[0] for w in WINDOW.values()) + sum(SERVICE.values()) + len(CUSTOMERS) * max(tau.values())
    for j in CUSTOMERS:
        arr[j].UB = horizon

    m.setObjective(UNIT_COST[0] * x.prod(tau) + FIXED_COST[0] * x.sum(DEPOT, "*"), GRB.MINIMIZE)
    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="succ")
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="pred")
    m.addConstr(x.sum(DEPOT, "*") <= K, name="vehicles")
    m.addConstr(x.sum(DEPOT, "*") == x.sum("*", DEPOT), name="depot")

    for j in CUSTOMERS:
        m.addConstr(arr[j] >= WINDOW[DEPOT][0] + tau[DEPOT, j] * x[DEPOT, j], name=f"go[{j}]")
        for i in CUSTOMERS:
            if i != j:
                M = horizon + SERVICE[i] + tau[i, j]
                m.addConstr(arr[j] >= arr[i] + SERVICE[i] + tau[i, j] - M * (1 - x[i, j]), name=f"tw[{i},{j}]")
    # @omit time_window
    for j in CUSTOMERS:
        m.addConstr(arr[j] >= WINDOW[j][0], name=f"open[{j}]")
        m.addConstr(arr[j] <= WINDOW[j][1], name=f"close[{j}]")
        M = horizon + SERVICE[j] + tau[j, DEPOT] - WINDOW[DEPOT][1]
        m.addConstr(arr[j] + SERVICE[j] + tau[j, DEPOT] <= WINDOW[DEPOT][1] + max(M, 0.0) * (1 - x[j, DEPOT]), name=f"home[{j}]")
    # @end time_window

    m._x = x
    m.optimize(pd_callback)
    return m

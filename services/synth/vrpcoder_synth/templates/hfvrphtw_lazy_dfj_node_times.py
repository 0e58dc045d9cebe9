"""Heterogeneous-fleet VRP with hard time windows: 3-index x[i,j,k], one service-start time per
customer (each customer has one vehicle) with big-M propagation on the aggregated arc, a return
time per vehicle, and subtour elimination by lazy DFJ cuts added from a callback on integer
solutions (redundant next to the time propagation, but a common habit). Capacity uses a
per-vehicle visit variable v[i,k] linked to x."""

import math
from itertools import product

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (58.74, 24.27), (26.83, 68.28), (69.22, 81.73), (37.6, 24.73), (44.24, 88.53), (36.97, 13.88)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [55.26, 40.88]
UNIT_COST = [1.1, 0.93]
CAPACITY = [52.25, 43.32]
DEMAND = {1: 4.89, 2: 8.21, 3: 6.7, 4: 3.47, 5: 9.5, 6: 6.23}
WINDOW = {0: (0.0, 500.0), 1: (17.17, 101.43), 2: (19.51, 127.49), 3: (67.25, 128.5), 4: (31.76, 87.01), 5: (52.42, 120.92), 6: (61.43, 98.79)}
SERVICE = {0: 0.0, 1: 6.55, 2: 6.21, 3: 2.88, 4: 7.32, 5: 3.17, 6: 7.0}
# @data-end


def _cycles(succ):
    """Cycles of a successor map among customers that never reach the depot."""
    seen, out = set(), []
    for s in succ:
        if s in seen:
            continue
        path, node = [], s
        while node in succ and node not in seen and node not in path:
            path.append(node)
            node = succ[node]
        seen.update(path)
        if node in path:
            out.append(path[path.index(node):])
    return out


def subtour_cb(model, where):
    if where != GRB.Callback.MIPSOL:
        return
    vals = model.cbGetSolution(model._xlist)
    succ = {}
    for (i, j, k), val in zip(model._xkeys, vals):
        if val > 0.5 and i in CUSTOMERS and j in CUSTOMERS:
            succ[i] = j
    for cyc in _cycles(succ):
        inside = [model._x[i, j, k] for i, j in product(cyc, cyc) if i != j for k in range(K)]
        model.cbLazy(gp.quicksum(inside) <= len(cyc) - 1)


def build_model():
    dep = DEPOTS[0]
    V = range(N)
    dist = [[math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for j in V] for i in V]

    m = gp.Model("hfvrphtw_lazy")
    m.Params.OutputFlag = 0
    m.Params.LazyConstraints = 1
    m.Params.MIPGap = 1e-10
    keys = [(i, j, k) for i in V for j in V for k in range(K) if i != j]
    x = m.addVars(keys, vtype=GRB.BINARY, name="x")
    v = m.addVars(CUSTOMERS, range(K), vtype=GRB.BINARY, name="v")
    s = m.addVars(CUSTOMERS, name="s")
    ret = m.addVars(range(K), name="ret")

    m.setObjective(
        gp.quicksum(FIXED_COST[k] * x.sum(dep, "*", k) for k in range(K))
        + gp.quicksum(UNIT_COST[k] * dist[i][j] * x[i, j, k] for i, j, k in keys),
        GRB.MINIMIZE,
    )
    m.addConstrs((v.sum(i, "*") == 1 for i in CUSTOMERS), name="assign")
    m.addConstrs((x.sum("*", i, k) == v[i, k] for i in CUSTOMERS for k in range(K)), name="in")
    m.addConstrs((x.sum(i, "*", k) == v[i, k] for i in CUSTOMERS for k in range(K)), name="out")
    m.addConstrs((x.sum(dep, "*", k) == x.sum("*", dep, k) for k in range(K)), name="depot")
    m.addConstrs((x.sum(dep, "*", k) <= 1 for k in range(K)), name="single")
    # @omit capacity
    weight = {(i, k): DEMAND[i] for i in CUSTOMERS for k in range(K)}
    m.addConstrs((v.prod(weight, "*", k) <= CAPACITY[k] for k in range(K)), name="capacity")
    # @end capacity

    # time: big-M on the aggregated arcs; no earliest schedule starts a service after U
    U = max(w[0] for w in WINDOW.values()) + sum(SERVICE.values()) + len(CUSTOMERS) * max(map(max, dist))
    for j in CUSTOMERS:
        s[j].UB = U
        first = x.sum(dep, j, "*")
        m.addConstr(s[j] >= WINDOW[dep][0] + dist[dep][j] * first, name=f"t0[{j}]")
        for i in CUSTOMERS:
            if i != j:
                big = U + SERVICE[i] + dist[i][j]
                m.addConstr(s[j] >= s[i] + SERVICE[i] + dist[i][j] - big * (1 - x.sum(i, j, "*")), name=f"t[{i},{j}]")
        for k in range(K):
            big = U + SERVICE[j] + dist[j][dep]
            m.addConstr(ret[k] >= s[j] + SERVICE[j] + dist[j][dep] - big * (1 - x[j, dep, k]), name=f"back[{j},{k}]")
    # @omit time_window
    m.addConstrs((s[j] >= WINDOW[j][0] for j in CUSTOMERS), name="open")
    m.addConstrs((s[j] <= WINDOW[j][1] for j in CUSTOMERS), name="close")
    m.addConstrs((ret[k] <= WINDOW[dep][1] for k in range(K)), name="depot_close")
    # @end time_window

    m._x = x
    m._xkeys = list(x.keys())
    m._xlist = [x[key] for key in m._xkeys]
    m.optimize(subtour_cb)
    return m

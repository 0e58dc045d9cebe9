"""CVRP, 2-index x over the full N x N grid with ub=0 on the diagonal; no load variables at all:
rounded capacity cuts x(delta+(S)) >= ceil(d(S)/Q) are separated on every integer incumbent by
a lazy callback (connected customer components), which also removes every subtour."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (60.09, 91.09), (24.69, 80.13), (20.92, 29.14), (51.68, 8.91), (87.91, 31.53), (49.05, 24.0)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [28.59, 28.59]
Q = 28.59
DEMAND = {1: 8.16, 2: 8.54, 3: 10.0, 4: 4.61, 5: 8.49, 6: 5.24}
# @data-end


def components(model, arcs):
    """Customer sets linked by the chosen customer-to-customer arcs (undirected)."""
    parent = {c: c for c in CUSTOMERS}

    def root(c):
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    for i, j in arcs:
        if i in parent and j in parent:
            parent[root(i)] = root(j)
    groups = {}
    for c in CUSTOMERS:
        groups.setdefault(root(c), []).append(c)
    return list(groups.values())


def rounded_capacity_cuts(model, where):
    if where != GRB.Callback.MIPSOL:
        return
    val = model.cbGetSolution(model._x)
    used = [a for a, v in val.items() if v > 0.5]
    for S in components(model, used):
        need = 1
        # @omit capacity
        need = max(1, math.ceil(sum(DEMAND[i] for i in S) / Q - 1e-9))
        # @end capacity
        inside = set(S)
        leaving = sum(1 for i, j in used if i in inside and j not in inside)
        if leaving < need:
            model.cbLazy(
                gp.quicksum(model._x[i, j] for i in inside for j in range(N) if j not in inside) >= need
            )


def build_model():
    depot = DEPOTS[0]
    m = gp.Model("cvrp_rcc")
    m.Params.OutputFlag = 0
    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    for i in range(N):
        x[i, i].ub = 0
    cost = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in range(N) for j in range(N)}
    m.setObjective(x.prod(cost) * UNIT_COST[0], GRB.MINIMIZE)
    m.addConstrs((x.sum(i, "*") == 1 for i in CUSTOMERS), name="out")
    m.addConstrs((x.sum("*", i) == 1 for i in CUSTOMERS), name="in")
    m.addConstr(x.sum(depot, "*") == x.sum("*", depot), name="depot_balance")
    m.addConstr(x.sum(depot, "*") <= K, name="fleet")
    m._x = x
    m.Params.LazyConstraints = 1
    m.optimize(rounded_capacity_cuts)
    return m

"""Pickup and delivery with soft time windows, 3-index x[i,j,k]: every vehicle has its own clock
T[i,k] and on-board load L[i,k] propagated by indicator constraints along its arcs; a request is
paired by equal per-vehicle visits of its two nodes and ordered by the vehicle's clock (delivery
starts after the pickup's service and the direct leg). Lateness lat[j] is charged per vehicle
with big-M on the visit. No hard horizon."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (11.39, 93.93), (88.98, 43.53), (5.78, 24.47), (53.01, 47.5), (67.06, 61.33), (82.27, 40.22)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [8.71, 8.71]
Q = 8.71
PAIRS = [(2, 6, 1.03), (4, 1, 7.91), (5, 3, 4.0)]
WINDOW = {0: (0.0, 1200.0), 1: (63.79, 185.79), 2: (29.51, 104.77), 3: (104.39, 232.96), 4: (0.0, 77.48), 5: (51.08, 155.78), 6: (41.12, 97.43)}
SERVICE = {0: 0.0, 1: 7.47, 2: 4.13, 3: 6.54, 4: 4.45, 5: 5.67, 6: 5.95}
LATE_PENALTY = {1: 1.96, 2: 1.4, 3: 0.6, 4: 1.04, 5: 1.38, 6: 0.61}
# @data-end


def build_model():
    o = DEPOTS[0]
    V = range(N)
    Kset = range(K)
    d = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in V for j in V}
    delta = {}
    for p, q, amount in PAIRS:
        delta[p], delta[q] = amount, -amount
    U = max(w[0] for w in WINDOW.values()) + sum(SERVICE.values()) + len(CUSTOMERS) * max(d.values())
    moved = sum(a for _, _, a in PAIRS)

    m = gp.Model("pdpstw")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0
    m.Params.Threads = 1
    x = m.addVars(V, V, Kset, vtype=GRB.BINARY, name="x")
    T = m.addVars(CUSTOMERS, Kset, lb=0.0, ub=U, name="T")
    L = m.addVars(CUSTOMERS, Kset, lb=-moved, ub=moved, name="L")
    lat = m.addVars(CUSTOMERS, lb=0.0, name="lat")
    for i in V:
        for k in Kset:
            x[i, i, k].UB = 0
    visit = {(j, k): x.sum(j, "*", k) for j in CUSTOMERS for k in Kset}

    m.setObjective(
        gp.quicksum(UNIT_COST[k] * d[i, j] * x[i, j, k] for i in V for j in V for k in Kset)
        + gp.quicksum(FIXED_COST[k] * x.sum(o, "*", k) for k in Kset)
        + gp.quicksum(LATE_PENALTY[j] * lat[j] for j in CUSTOMERS),
        GRB.MINIMIZE,
    )
    m.addConstrs((x.sum(j, "*", "*") == 1 for j in CUSTOMERS), name="serve")
    m.addConstrs((x.sum(i, "*", k) == x.sum("*", i, k) for i in V for k in Kset), name="flow")
    m.addConstrs((x.sum(o, "*", k) <= 1 for k in Kset), name="route")

    for k in Kset:
        for j in CUSTOMERS:
            T[j, k].LB = WINDOW[j][0]
            m.addConstr((x[o, j, k] == 1) >> (T[j, k] >= WINDOW[o][0] + d[o, j]), name=f"clk0[{j},{k}]")
            m.addConstr((x[o, j, k] == 1) >> (L[j, k] >= delta[j]), name=f"ld0[{j},{k}]")
            for i in CUSTOMERS:
                if i != j:
                    m.addConstr((x[i, j, k] == 1) >> (T[j, k] >= T[i, k] + SERVICE[i] + d[i, j]), name=f"clk[{i},{j},{k}]")
                    m.addConstr((x[i, j, k] == 1) >> (L[j, k] >= L[i, k] + delta[j]), name=f"ld[{i},{j},{k}]")
            m.addConstr(lat[j] >= T[j, k] - WINDOW[j][1] - U * (1 - visit[j, k]), name=f"late[{j},{k}]")
            # @omit capacity
            L[j, k].UB = Q
            # @end capacity
    # @omit pairing
    m.addConstrs((visit[p, k] == visit[q, k] for p, q, _ in PAIRS for k in Kset), name="pair")
    # @end pairing
    # @omit precedence
    m.addConstrs((T[q, k] >= T[p, k] + SERVICE[p] + d[p, q] for p, q, _ in PAIRS for k in Kset), name="prec")
    # @end precedence
    m.optimize()
    return m

"""Distance-constrained VRP with hard time windows, 3-index x[i,j,k] over a sparse arc dict:
the route-length limit is the natural per-vehicle sum of driven legs (depot legs included),
capacity is a per-vehicle knapsack, and each vehicle has its own clock t[i,k] with big-M rows
(the depot appears as a start time t0[k] and a return time tN[k]). Objective: distance driven."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (7.05, 29.94), (80.32, 93.36), (88.8, 8.54), (48.62, 48.11), (15.61, 65.26), (84.03, 16.74)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [30.11, 30.11]
Q = 30.11
DEMAND = {1: 8.64, 2: 8.05, 3: 7.67, 4: 3.49, 5: 4.49, 6: 6.75}
WINDOW = {0: (0.0, 500.0), 1: (47.4, 96.95), 2: (130.04, 227.68), 3: (89.11, 156.97), 4: (17.83, 97.4), 5: (146.46, 205.2), 6: (37.58, 146.31)}
SERVICE = {0: 0.0, 1: 4.61, 2: 3.23, 3: 3.6, 4: 3.18, 5: 7.44, 6: 7.11}
MAX_DIST = 275.72
# @data-end


def build_model():
    o = DEPOTS[0]
    L = {}
    for i in range(N):
        for j in range(N):
            if i != j:
                L[i, j] = math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])
    keys = [(i, j, k) for (i, j) in L for k in range(K)]
    T_MAX = WINDOW[o][1]
    BIG = T_MAX + max(SERVICE.values()) + max(L.values())

    m = gp.Model(name="dcvrphtw")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0.0
    m.Params.TimeLimit = 30
    x = m.addVars(keys, vtype=GRB.BINARY, name="x")
    t = m.addVars(CUSTOMERS, range(K), lb=0.0, ub=BIG, name="t")
    t0 = m.addVars(range(K), lb=WINDOW[o][0], ub=BIG, name="t0")
    tN = m.addVars(range(K), lb=0.0, ub=BIG, name="tN")

    m.setObjective(gp.quicksum(UNIT_COST[k] * L[i, j] * x[i, j, k] for i, j, k in keys)
                   + gp.quicksum(FIXED_COST[k] * x.sum(o, "*", k) for k in range(K)), GRB.MINIMIZE)

    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="cover")
    m.addConstrs((x.sum("*", v, k) == x.sum(v, "*", k) for v in range(N) for k in range(K)), name="flow")
    m.addConstrs((x.sum(o, "*", k) <= 1 for k in range(K)), name="once")
    # @omit capacity
    m.addConstrs((gp.quicksum(DEMAND[j] * x.sum("*", j, k) for j in CUSTOMERS) <= Q for k in range(K)), name="load")
    # @end capacity
    # @omit distance
    m.addConstrs((gp.quicksum(L[i, j] * x[i, j, k] for i, j, kk in keys if kk == k) <= MAX_DIST for k in range(K)), name="dmax")
    # @end distance

    for k in range(K):
        for j in CUSTOMERS:
            m.addConstr(t[j, k] >= t0[k] + L[o, j] - BIG * (1 - x[o, j, k]), name=f"first[{j},{k}]")
            m.addConstr(tN[k] >= t[j, k] + SERVICE[j] + L[j, o] - 2 * BIG * (1 - x[j, o, k]), name=f"last[{j},{k}]")
            for i in CUSTOMERS:
                if i != j:
                    m.addConstr(
                        t[j, k] >= t[i, k] + SERVICE[i] + L[i, j] - 2 * BIG * (1 - x[i, j, k]), name=f"next[{i},{j},{k}]"
                    )
    # @omit time_window
    for k in range(K):
        m.addConstr(tN[k] <= WINDOW[o][1], name=f"close[{k}]")
        for j in CUSTOMERS:
            m.addConstr(t[j, k] >= WINDOW[j][0] * x.sum("*", j, k), name=f"open[{j},{k}]")
            m.addConstr(t[j, k] <= WINDOW[j][1] + BIG * (1 - x.sum("*", j, k)), name=f"due[{j},{k}]")
    # @end time_window

    m.optimize()
    return m

"""Distance-constrained VRP with hard time windows on a 2-index x: a plain dict keyed by (i, j)
whose Gurobi names are x_i_j (never x[...]), one addVar per arc. Distance travelled so far,
service start and load are node labels propagated by indicator constraints on the arcs; the
distance limit is checked on the way back into the depot, the depot's closing time likewise.
Constraints come from addConstrs over generators."""

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
    depot = 0
    m = gp.Model("dcvrphtw_2idx")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0.0

    def d(i, j):
        return math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])

    x = {}
    for i in range(N):
        for j in range(N):
            if i != j:
                x[(i, j)] = m.addVar(vtype=GRB.BINARY, obj=UNIT_COST[0] * d(i, j), name=f"x_{i}_{j}")
    total = sum(DEMAND.values())
    longest = sum(sorted((d(i, j) for (i, j) in x), reverse=True)[: len(CUSTOMERS) + 1])
    travelled = m.addVars(CUSTOMERS, lb=0.0, ub=longest, name="dist_so_far")
    clock = m.addVars(CUSTOMERS, lb=0.0, name="clock")
    load = m.addVars(CUSTOMERS, lb=0.0, ub=total, name="load")
    m.ModelSense = GRB.MINIMIZE
    for j in CUSTOMERS:
        x[(depot, j)].Obj = UNIT_COST[0] * d(depot, j) + FIXED_COST[0]

    m.addConstrs((gp.quicksum(x[(i, j)] for i in range(N) if i != j) == 1 for j in CUSTOMERS), name="in")
    m.addConstrs((gp.quicksum(x[(j, i)] for i in range(N) if i != j) == 1 for j in CUSTOMERS), name="out")
    m.addConstr(gp.quicksum(x[(depot, j)] for j in CUSTOMERS) <= K, name="fleet")

    m.addConstrs(((x[(depot, j)] == 1) >> (travelled[j] >= d(depot, j)) for j in CUSTOMERS), name="d0")
    m.addConstrs(
        ((x[(i, j)] == 1) >> (travelled[j] >= travelled[i] + d(i, j)) for i in CUSTOMERS for j in CUSTOMERS if i != j),
        name="dprop",
    )
    m.addConstrs(((x[(depot, j)] == 1) >> (clock[j] >= WINDOW[depot][0] + d(depot, j)) for j in CUSTOMERS), name="t0")
    m.addConstrs(
        ((x[(i, j)] == 1) >> (clock[j] >= clock[i] + SERVICE[i] + d(i, j)) for i in CUSTOMERS for j in CUSTOMERS if i != j),
        name="tprop",
    )
    m.addConstrs(((x[(depot, j)] == 1) >> (load[j] >= DEMAND[j]) for j in CUSTOMERS), name="q0")
    m.addConstrs(
        ((x[(i, j)] == 1) >> (load[j] >= load[i] + DEMAND[j]) for i in CUSTOMERS for j in CUSTOMERS if i != j),
        name="qprop",
    )
    # @omit distance
    m.addConstrs(((x[(j, depot)] == 1) >> (travelled[j] + d(j, depot) <= MAX_DIST) for j in CUSTOMERS), name="dmax")
    # @end distance
    # @omit time_window
    m.addConstrs((clock[j] >= WINDOW[j][0] for j in CUSTOMERS), name="ready")
    m.addConstrs((clock[j] <= WINDOW[j][1] for j in CUSTOMERS), name="due")
    m.addConstrs(
        ((x[(j, depot)] == 1) >> (clock[j] + SERVICE[j] + d(j, depot) <= WINDOW[depot][1]) for j in CUSTOMERS),
        name="close",
    )
    # @end time_window
    # @omit capacity
    m.addConstrs((load[j] <= Q for j in CUSTOMERS), name="cap")
    # @end capacity

    m.optimize()
    return m

"""VRP with soft time windows on a 2-index x[i,j] (arc list without loops): service may start late
at a price per time unit; arrival times and loads propagate through indicator constraints
(x[i,j] == 1) >> (...) instead of big-M rows. No hard horizon."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (50.0, 15.48), (30.55, 52.71), (11.64, 47.99), (52.98, 18.2), (17.24, 64.65), (79.24, 20.69)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [21.52, 21.52]
Q = 21.52
DEMAND = {1: 7.12, 2: 7.33, 3: 2.76, 4: 7.96, 5: 3.67, 6: 4.48}
WINDOW = {0: (0.0, 500.0), 1: (25.45, 137.83), 2: (17.86, 142.22), 3: (22.31, 123.05), 4: (42.06, 87.83), 5: (64.26, 122.54), 6: (68.46, 104.88)}
SERVICE = {0: 0.0, 1: 3.65, 2: 6.83, 3: 2.51, 4: 2.27, 5: 5.25, 6: 4.21}
LATE_PENALTY = {1: 0.65, 2: 1.66, 3: 1.84, 4: 0.68, 5: 1.72, 6: 0.92}
# @data-end


def build_model():
    o = DEPOTS[0]
    arcs = [(i, j) for i in range(N) for j in range(N) if i != j]
    tt = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i, j in arcs}

    m = gp.Model("vrpstw")
    m.Params.OutputFlag = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    start = m.addVars(CUSTOMERS, lb=[WINDOW[j][0] for j in CUSTOMERS], name="start")
    tardy = m.addVars(CUSTOMERS, lb=0.0, name="tardy")
    load = m.addVars(CUSTOMERS, lb=[DEMAND[j] for j in CUSTOMERS], name="load")

    m.setObjective(
        UNIT_COST[0] * x.prod(tt) + gp.quicksum(LATE_PENALTY[j] * tardy[j] for j in CUSTOMERS), GRB.MINIMIZE
    )
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="enter")
    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="leave")
    m.addConstr(x.sum(o, "*") <= K, name="fleet")
    m.addConstrs((tardy[j] >= start[j] - WINDOW[j][1] for j in CUSTOMERS), name="lateness")
    for j in CUSTOMERS:
        m.addConstr((x[o, j] == 1) >> (start[j] >= WINDOW[o][0] + tt[o, j]), name=f"first[{j}]")
        for i in CUSTOMERS:
            if i != j:
                m.addConstr((x[i, j] == 1) >> (start[j] >= start[i] + SERVICE[i] + tt[i, j]), name=f"time[{i},{j}]")
                m.addConstr((x[i, j] == 1) >> (load[j] >= load[i] + DEMAND[j]), name=f"load[{i},{j}]")
    # @omit capacity
    for j in CUSTOMERS:
        m.addConstr(load[j] <= Q, name=f"capacity[{j}]")
    # @end capacity
    m.optimize()
    return m

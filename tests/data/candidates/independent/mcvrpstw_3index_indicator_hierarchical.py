"""Multi-compartment VRP with soft time windows, 3-index x[i,j,k] over a tuplelist of (i, j, k).
Service starts per node propagate through indicator constraints (x[i,j,k] = 1 implies the
successor starts no earlier); lateness L[j] >= S[j] - b_j. The objective is hierarchical with
setObjectiveN: travel plus lateness first (priority 2), then the number of routes as a
tie-break (priority 1). Per-vehicle compartment and total load knapsacks."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (40.49, 19.22), (79.48, 47.13), (43.02, 20.61), (85.57, 55.78), (73.69, 59.64), (45.71, 40.98)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [26.81, 26.81]
Q = 26.81
DEMAND = {1: 4.92, 2: 1.65, 3: 4.92, 4: 10.82, 5: 8.78, 6: 3.56}
COMP_DEMAND = {1: (0.13, 4.79), 2: (0.71, 0.94), 3: (4.56, 0.36), 4: (5.99, 4.83), 5: (4.0, 4.78), 6: (0.85, 2.71)}
COMP_CAP = [(14.53, 12.28), (14.53, 12.28)]
WINDOW = {0: (0.0, 500.0), 1: (36.1, 97.73), 2: (48.45, 115.65), 3: (49.54, 147.53), 4: (66.55, 156.28), 5: (23.47, 141.03), 6: (0.0, 128.11)}
SERVICE = {0: 0.0, 1: 6.48, 2: 5.34, 3: 3.57, 4: 2.89, 5: 7.36, 6: 4.93}
LATE_PENALTY = {1: 1.43, 2: 1.91, 3: 1.66, 4: 1.47, 5: 0.53, 6: 1.46}
# @data-end



def build_model():
    o = DEPOTS[0]
    V = range(N)
    trucks = range(K)
    C = range(len(COMP_CAP[0]))
    dist = [[math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for j in V] for i in V]
    arcs = gp.tuplelist((i, j, k) for i in V for j in V if i != j for k in trucks)

    m = gp.Model("mcvrpstw_hier")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0.0
    m.Params.Threads = 1

    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    S = m.addVars(V, lb=0.0, name="S")
    L = m.addVars(CUSTOMERS, lb=0.0, name="L")

    travel = gp.quicksum(UNIT_COST[k] * dist[i][j] * x[i, j, k] for i, j, k in arcs)
    penalty = gp.quicksum(LATE_PENALTY[j] * L[j] for j in CUSTOMERS)
    routes = x.sum(o, "*", "*")
    m.ModelSense = GRB.MINIMIZE
    m.setObjectiveN(travel + penalty, index=0, priority=2, name="cost")
    m.setObjectiveN(routes, index=1, priority=1, name="routes")

    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="visit")
    m.addConstrs((x.sum("*", h, k) == x.sum(h, "*", k) for h in V for k in trucks), name="conserve")
    m.addConstrs((x.sum(o, "*", k) <= 1 for k in trucks), name="start")

    for k in trucks:
        # @omit compartment
        for c in C:
            m.addConstr(
                gp.quicksum(COMP_DEMAND[j][c] * x[i, j, k] for i, j, kk in arcs.select("*", "*", k) if j != o)
                <= COMP_CAP[k][c],
                name=f"comp[{k},{c}]",
            )
        # @end compartment
        # @omit capacity
        m.addConstr(
            gp.quicksum(DEMAND[j] * x[i, j, k] for i, j, kk in arcs.select("*", "*", k) if j != o) <= CAPACITY[k],
            name=f"cap[{k}]",
        )
        # @end capacity

    m.addConstr(S[o] == WINDOW[o][0], name="depart")
    for i, j, k in arcs:
        if j != o:
            m.addGenConstrIndicator(x[i, j, k], True, S[j] - S[i] >= SERVICE[i] + dist[i][j], name=f"time[{i},{j},{k}]")
    for j in CUSTOMERS:
        S[j].LB = WINDOW[j][0]
        m.addConstr(L[j] >= S[j] - WINDOW[j][1], name=f"late[{j}]")

    m.optimize()
    return m

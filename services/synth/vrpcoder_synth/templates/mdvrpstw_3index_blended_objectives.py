"""Multi-depot VRP with soft time windows, 3-index x[i,j,k] with every vehicle restricted to its own
depot by variable bounds; each vehicle keeps its own clock T[i,k] (big-M rows), lateness is
measured per vehicle. The objective is stated as two blended objectives of equal priority and
weight 1 (setObjectiveN): travel cost and lateness penalty, i.e. Gurobi minimises their sum."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 8
DEPOTS = [0, 1]
CUSTOMERS = [2, 3, 4, 5, 6, 7]
COORDS = [(25.0, 50.0), (75.0, 50.0), (52.97, 66.68), (7.49, 31.59), (30.41, 39.5), (8.17, 12.92), (10.89, 39.19), (23.61, 92.63)]
K = 2
VEHICLE_DEPOT = [0, 1]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [23.5, 23.5]
Q = 23.5
DEMAND = {2: 8.7, 3: 3.31, 4: 7.38, 5: 7.22, 6: 5.2, 7: 4.62}
WINDOW = {0: (0.0, 500.0), 1: (0.0, 500.0), 2: (22.05, 82.63), 3: (18.76, 72.89), 4: (12.8, 140.44), 5: (90.77, 182.0), 6: (34.44, 114.62), 7: (76.08, 144.08)}
SERVICE = {0: 0.0, 1: 0.0, 2: 5.39, 3: 2.72, 4: 5.75, 5: 6.96, 6: 2.55, 7: 4.72}
LATE_PENALTY = {2: 1.02, 3: 1.98, 4: 1.4, 5: 0.51, 6: 0.73, 7: 1.3}
# @data-end


def build_model():
    V = range(N)
    R = range(K)
    D = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in V for j in V}
    U = max(a for a, _ in WINDOW.values()) + sum(SERVICE.values()) + len(CUSTOMERS) * max(D.values())

    m = gp.Model("mdvrpstw_blend")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0.0
    x = m.addVars(V, V, R, vtype=GRB.BINARY, name="x")
    for i in V:
        for j in V:
            for k in R:
                if i == j or any(n in DEPOTS and n != VEHICLE_DEPOT[k] for n in (i, j)) or (i in DEPOTS and j in DEPOTS):
                    x[i, j, k].UB = 0
    T = m.addVars(CUSTOMERS, R, lb=0.0, ub=U, name="T")
    late = m.addVars(CUSTOMERS, R, lb=0.0, name="late")
    serve = {(j, k): x.sum("*", j, k) for j in CUSTOMERS for k in R}

    travel = gp.quicksum(UNIT_COST[k] * D[i, j] * x[i, j, k] for i in V for j in V for k in R) + gp.quicksum(
        FIXED_COST[k] * x.sum(VEHICLE_DEPOT[k], "*", k) for k in R
    )
    penalty = gp.quicksum(LATE_PENALTY[j] * late[j, k] for j in CUSTOMERS for k in R)
    m.ModelSense = GRB.MINIMIZE
    m.setObjectiveN(travel, index=0, priority=1, weight=1.0, name="travel")
    m.setObjectiveN(penalty, index=1, priority=1, weight=1.0, name="lateness")

    m.addConstrs((gp.quicksum(serve[j, k] for k in R) == 1 for j in CUSTOMERS), name="cover")
    m.addConstrs((x.sum(i, "*", k) == x.sum("*", i, k) for i in V for k in R), name="flow")
    m.addConstrs((x.sum(VEHICLE_DEPOT[k], "*", k) <= 1 for k in R), name="one")
    # @omit capacity
    m.addConstrs((gp.quicksum(DEMAND[j] * serve[j, k] for j in CUSTOMERS) <= Q for k in R), name="cap")
    # @end capacity
    for k in R:
        o = VEHICLE_DEPOT[k]
        for j in CUSTOMERS:
            m.addConstr(T[j, k] >= WINDOW[j][0], name=f"ready[{j},{k}]")
            m.addConstr(T[j, k] >= WINDOW[o][0] + D[o, j] - U * (1 - x[o, j, k]), name=f"go[{j},{k}]")
            m.addConstr(late[j, k] >= T[j, k] - WINDOW[j][1] - U * (1 - serve[j, k]), name=f"late[{j},{k}]")
            for i in CUSTOMERS:
                if i != j:
                    big = U + SERVICE[i] + D[i, j]
                    m.addConstr(T[j, k] >= T[i, k] + SERVICE[i] + D[i, j] - big * (1 - x[i, j, k]), name=f"tp[{i},{j},{k}]")
    m.optimize()
    return m

"""Heterogeneous fleet VRP with hard time windows, 3-index x[i,j,k] declared GRB.INTEGER with
bounds [0, 1]. Each vehicle's fixed cost is counted on its depot-leaving arcs (F_k * x[0,j,k]).
The objective is hierarchical (setObjectiveN): total cost at priority 10, then the sum of service
starts at priority 0 as a tie-break (finish early). Service starts per node by big-M over the
vehicle-summed arc; return before the depot closes; per-vehicle load knapsacks; a redundant
valid inequality: between two customers an arc and its reverse are not both used."""

import math

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



def build_model():
    depot = 0
    V = list(range(N))
    Ks = list(range(K))
    tt = {(i, j): math.sqrt((COORDS[i][0] - COORDS[j][0]) ** 2 + (COORDS[i][1] - COORDS[j][1]) ** 2)
          for i in V for j in V}

    m = gp.Model("HFVRPHTW")
    m.setParam("OutputFlag", 0)
    m.setParam("MIPGap", 0)
    m.setParam("Threads", 1)

    x = m.addVars(V, V, Ks, vtype=GRB.INTEGER, lb=0, ub=1, name="x")
    for i in V:
        for k in Ks:
            x[i, i, k].ub = 0
    T = m.addVars(V, lb=0.0, name="T")

    fixed = gp.quicksum(FIXED_COST[k] * x[depot, j, k] for j in CUSTOMERS for k in Ks)
    variable = gp.quicksum(UNIT_COST[k] * tt[i, j] * x[i, j, k] for i in V for j in V for k in Ks)
    m.ModelSense = GRB.MINIMIZE
    m.setObjectiveN(fixed + variable, 0, priority=10, name="cost")
    m.setObjectiveN(gp.quicksum(T[j] for j in CUSTOMERS), 1, priority=0, name="earliness")

    for j in CUSTOMERS:
        m.addConstr(gp.quicksum(x[i, j, k] for i in V for k in Ks) == 1, name=f"visit_{j}")
    for k in Ks:
        m.addConstr(gp.quicksum(x[depot, j, k] for j in CUSTOMERS) <= 1, name=f"depart_{k}")
        for h in V:
            m.addConstr(gp.quicksum(x[i, h, k] for i in V) - gp.quicksum(x[h, j, k] for j in V) == 0,
                        name=f"flow_{h}_{k}")
        # @omit capacity
        m.addConstr(gp.quicksum(DEMAND[j] * x[i, j, k] for i in V for j in CUSTOMERS) <= CAPACITY[k],
                    name=f"cap_{k}")
        # @end capacity

    # redundant: no 2-cycles between customers
    for i in CUSTOMERS:
        for j in CUSTOMERS:
            if i < j:
                m.addConstr(x.sum(i, j, "*") + x.sum(j, i, "*") <= 1, name=f"two_cycle_{i}_{j}")

    horizon = max(w[1] for w in WINDOW.values())
    M = horizon + max(SERVICE.values()) + max(tt.values())
    m.addConstr(T[depot] == WINDOW[depot][0], name="t_depot")
    for i in V:
        for j in CUSTOMERS:
            if i != j:
                m.addConstr(T[j] >= T[i] + SERVICE[i] + tt[i, j] - M * (1 - x.sum(i, j, "*")), name=f"t_{i}_{j}")
    for j in CUSTOMERS:
        m.addConstr(T[j] >= WINDOW[j][0], name=f"a_{j}")
        # @omit time_window
        m.addConstr(T[j] <= WINDOW[j][1], name=f"b_{j}")
        m.addConstr(T[j] + SERVICE[j] + tt[j, depot] <= WINDOW[depot][1] + M * (1 - x.sum(j, depot, "*")),
                    name=f"ret_{j}")
        # @end time_window

    m.optimize()
    return m

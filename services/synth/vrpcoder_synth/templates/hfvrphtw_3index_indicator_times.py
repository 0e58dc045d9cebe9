"""Heterogeneous-fleet VRP with hard time windows, 3-index x[i,j,k] over the full node grid.
Each vehicle keeps its own clock t[i,k] (service start at customer i if k serves it) and a
return time back[k]; time propagation along arcs uses indicator constraints instead of big-M,
window bounds are variable bounds, the depot's closing time bounds back[k]. Capacity is a
per-vehicle knapsack; subtours die with the clocks (service times are positive)."""

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
    dep = DEPOTS[0]
    nodes = list(range(N))
    veh = list(range(K))
    tt = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in nodes for j in nodes}

    m = gp.Model("hfvrphtw")
    m.params.outputflag = 0
    m.params.mipgap = 0.0
    x = m.addVars(nodes, nodes, veh, vtype=GRB.BINARY, name="x")
    for i in nodes:
        for k in veh:
            x[i, i, k].ub = 0
    t = m.addVars(CUSTOMERS, veh, lb=0.0, ub=GRB.INFINITY, name="t")
    back = m.addVars(veh, lb=0.0, ub=GRB.INFINITY, name="back")
    # @omit time_window
    for k in veh:
        back[k].ub = WINDOW[dep][1]
        for i in CUSTOMERS:
            t[i, k].lb = WINDOW[i][0]
            t[i, k].ub = WINDOW[i][1]
    # @end time_window

    used = m.addVars(veh, vtype=GRB.BINARY, name="used")
    m.addConstrs((used[k] == x.sum(dep, "*", k) for k in veh), name="used_def")
    m.setObjective(
        used.prod({k: FIXED_COST[k] for k in veh})
        + gp.quicksum(UNIT_COST[k] * tt[i, j] * x[i, j, k] for i in nodes for j in nodes for k in veh if i != j),
        GRB.MINIMIZE,
    )
    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="visit")
    m.addConstrs((x.sum("*", h, k) == x.sum(h, "*", k) for h in nodes for k in veh), name="flow")
    m.addConstrs((used[k] <= 1 for k in veh), name="one_route")

    for k in veh:
        for j in CUSTOMERS:
            m.addGenConstrIndicator(x[dep, j, k], True, t[j, k] >= WINDOW[dep][0] + tt[dep, j], name=f"leave[{j},{k}]")
            m.addGenConstrIndicator(x[j, dep, k], True, back[k] >= t[j, k] + SERVICE[j] + tt[j, dep], name=f"ret[{j},{k}]")
            for i in CUSTOMERS:
                if i != j:
                    m.addGenConstrIndicator(
                        x[i, j, k], True, t[j, k] - t[i, k] >= SERVICE[i] + tt[i, j], name=f"clock[{i},{j},{k}]"
                    )

    # @omit capacity
    m.addConstrs(
        (gp.quicksum(DEMAND[j] * x.sum("*", j, k) for j in CUSTOMERS) <= CAPACITY[k] for k in veh), name="cap"
    )
    # @end capacity
    m.optimize()
    return m

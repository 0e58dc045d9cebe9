"""Heterogeneous fleet VRP with hard time windows on a 2-index x[i,j] plus a vehicle assignment
y[i,k], written with general constraints: consecutive customers share their vehicle by indicator
constraints on x, the arc-vehicle products w[i,j,k] = x[i,j] AND y[owner,k] and the route
openings start[j,k] = x[0,j] AND y[j,k] by addGenConstrAnd. Service starts by indicator
constraints (service time included), the return leg checked against the depot's closing time;
loads are knapsacks over y; fixed costs are paid on the openings."""

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
    o = DEPOTS[0]
    nodes = range(N)
    trucks = range(K)
    arcs = gp.tuplelist((i, j) for i in nodes for j in nodes if i != j)
    tt = {(i, j): math.dist(COORDS[i], COORDS[j]) for i, j in arcs}

    m = gp.Model("hfvrphtw_2idx_genconstr")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0

    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    y = m.addVars(CUSTOMERS, trucks, vtype=GRB.BINARY, name="y")
    w = m.addVars(arcs, trucks, vtype=GRB.BINARY, name="w")
    start = m.addVars(CUSTOMERS, trucks, vtype=GRB.BINARY, name="start")
    T = m.addVars(CUSTOMERS, lb=0.0, name="T")

    m.setObjective(
        gp.quicksum(FIXED_COST[k] * start[j, k] for j in CUSTOMERS for k in trucks)
        + gp.quicksum(UNIT_COST[k] * tt[i, j] * w[i, j, k] for i, j in arcs for k in trucks),
        GRB.MINIMIZE,
    )

    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="succ")
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="pred")
    m.addConstr(x.sum(o, "*") == x.sum("*", o), name="depot")
    m.addConstrs((y.sum(j, "*") == 1 for j in CUSTOMERS), name="assign")
    m.addConstrs((start.sum("*", k) <= 1 for k in trucks), name="one_route")

    for i, j in arcs:
        if i != o and j != o:
            for k in trucks:
                m.addGenConstrIndicator(x[i, j], True, y[i, k] - y[j, k] == 0, name=f"same[{i},{j},{k}]")
        owner = j if j != o else i
        for k in trucks:
            m.addGenConstrAnd(w[i, j, k], [x[i, j], y[owner, k]], name=f"w[{i},{j},{k}]")
    for j in CUSTOMERS:
        for k in trucks:
            m.addGenConstrAnd(start[j, k], [x[o, j], y[j, k]], name=f"start[{j},{k}]")

    # @omit capacity
    m.addConstrs((gp.quicksum(DEMAND[j] * y[j, k] for j in CUSTOMERS) <= CAPACITY[k] for k in trucks), name="cap")
    # @end capacity

    for j in CUSTOMERS:
        T[j].LB = WINDOW[j][0]
        m.addGenConstrIndicator(x[o, j], True, T[j] >= WINDOW[o][0] + tt[o, j], name=f"first[{j}]")
        # @omit time_window
        T[j].UB = WINDOW[j][1]
        m.addGenConstrIndicator(x[j, o], True, T[j] <= WINDOW[o][1] - SERVICE[j] - tt[j, o], name=f"home[{j}]")
        # @end time_window
    for i, j in arcs.select(CUSTOMERS, "*"):
        if j != o:
            m.addGenConstrIndicator(x[i, j], True, T[j] - T[i] >= SERVICE[i] + tt[i, j], name=f"next[{i},{j}]")

    m.optimize()
    return m

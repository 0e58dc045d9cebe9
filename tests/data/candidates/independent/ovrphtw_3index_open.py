"""Open VRP with hard time windows (a held-out combination), 3-index x[i,j,k] over a sparse key
list with no arcs back into the depot: a vehicle may stop at any customer, it enters each of its
customers once and leaves at most once. One service-start time per customer (each is visited
once), big-M propagation over the aggregated arcs, per-vehicle knapsack capacity."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (43.23, 38.23), (50.96, 23.15), (88.7, 15.1), (34.73, 51.02), (71.49, 50.77), (16.07, 42.62)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [25.13, 25.13]
Q = 25.13
DEMAND = {1: 2.65, 2: 7.2, 3: 5.97, 4: 5.57, 5: 8.39, 6: 3.07}
WINDOW = {0: (0.0, 500.0), 1: (3.57, 101.21), 2: (36.61, 102.25), 3: (56.5, 93.33), 4: (25.02, 72.87), 5: (11.5, 69.41), 6: (79.21, 178.2)}
SERVICE = {0: 0.0, 1: 6.09, 2: 6.33, 3: 7.22, 4: 3.93, 5: 5.4, 6: 2.29}
# @data-end


def build_model():
    o = DEPOTS[0]
    keys = [(i, j, k) for i in range(N) for j in CUSTOMERS for k in range(K) if i != j]
    dist = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in range(N) for j in range(N)}
    latest = max(WINDOW[j][1] for j in CUSTOMERS)
    horizon = latest + max(SERVICE.values()) + max(dist.values())

    m = gp.Model("ovrphtw")
    m.Params.OutputFlag = 0
    x = m.addVars(keys, vtype=GRB.BINARY, name="x")
    t = m.addVars(CUSTOMERS, lb=0.0, ub=horizon, name="t")

    m.setObjective(gp.quicksum(UNIT_COST[k] * dist[i, j] * x[i, j, k] for i, j, k in keys), GRB.MINIMIZE)
    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="visit")
    m.addConstrs((x.sum(o, "*", k) <= 1 for k in range(K)), name="start")
    m.addConstrs((x.sum(j, "*", k) <= x.sum("*", j, k) for j in CUSTOMERS for k in range(K)), name="continue")
    m.addConstrs(
        (gp.quicksum(DEMAND[j] * x[i, j, k] for i, j, kk in keys if kk == k) <= Q for k in range(K)), name="capacity"
    )
    for j in CUSTOMERS:
        m.addConstr(t[j] >= WINDOW[o][0] + dist[o, j] * x.sum(o, j, "*"), name=f"first[{j}]")
        for i in CUSTOMERS:
            if i != j:
                m.addConstr(
                    t[j] >= t[i] + SERVICE[i] + dist[i, j] - 2 * horizon * (1 - x.sum(i, j, "*")), name=f"prop[{i},{j}]"
                )
    # @omit time_window
    for j in CUSTOMERS:
        m.addConstr(t[j] >= WINDOW[j][0], name=f"ready[{j}]")
        m.addConstr(t[j] <= WINDOW[j][1], name=f"due[{j}]")
    # @end time_window
    m.optimize()
    return m

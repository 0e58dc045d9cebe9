"""VRP with hard time windows on a 2-index x[i,j] (addVars over an explicit arc list without
loops): continuous arrival/service-start times per customer with arc-specific big-M, MTZ load
variables for capacity; the depot's window is the working day."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (41.07, 53.28), (53.06, 57.23), (25.58, 93.25), (37.18, 80.88), (68.73, 55.62), (36.48, 71.83)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [25.63, 25.63]
Q = 25.63
DEMAND = {1: 6.16, 2: 5.41, 3: 3.98, 4: 8.06, 5: 3.98, 6: 6.11}
WINDOW = {0: (0.0, 500.0), 1: (6.74, 120.24), 2: (0.0, 126.05), 3: (54.32, 133.82), 4: (40.7, 142.29), 5: (44.98, 88.06), 6: (25.67, 116.11)}
SERVICE = {0: 0.0, 1: 7.53, 2: 4.37, 3: 3.45, 4: 7.15, 5: 4.31, 6: 7.97}
# @data-end


def build_model():
    depot = DEPOTS[0]
    V = list(range(N))
    A = [(i, j) for i in V for j in V if i != j]
    tau = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i, j in A}
    early = {i: WINDOW[i][0] for i in V}
    late = {i: WINDOW[i][1] for i in V}

    m = gp.Model("vrptw2")
    m.Params.OutputFlag = 0
    x = m.addVars(A, vtype=GRB.BINARY, name="x")
    T = m.addVars(CUSTOMERS, name="T")
    load = m.addVars(CUSTOMERS, name="load")

    m.setObjective(UNIT_COST[0] * x.prod(tau), GRB.MINIMIZE)
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="in")
    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="out")
    m.addConstr(x.sum(depot, "*") <= K, name="fleet")

    # capacity (MTZ on the load delivered so far)
    room = sum(DEMAND.values())
    # @omit capacity
    room = Q
    # @end capacity
    for j in CUSTOMERS:
        load[j].lb = DEMAND[j]
        load[j].ub = room
    m.addConstrs(
        (load[j] >= load[i] + DEMAND[j] - room * (1 - x[i, j]) for i in CUSTOMERS for j in CUSTOMERS if i != j),
        name="mtz_load",
    )

    # time: leave the depot when it opens, arrive, wait if early; back before closing
    horizon = late[depot]
    for j in CUSTOMERS:
        T[j].lb = 0.0
        T[j].ub = horizon
        m.addConstr(T[j] >= early[depot] + tau[depot, j] * x[depot, j], name=f"first[{j}]")
        for i in CUSTOMERS:
            if i != j:
                big_m = horizon + SERVICE[i] + tau[i, j]
                m.addConstr(T[j] >= T[i] + SERVICE[i] + tau[i, j] - big_m * (1 - x[i, j]), name=f"time[{i},{j}]")
    # @omit time_window
    for j in CUSTOMERS:
        m.addConstr(T[j] >= early[j], name=f"open[{j}]")
        m.addConstr(T[j] <= late[j], name=f"close[{j}]")
        slack = max(0.0, late[j] + SERVICE[j] + tau[j, depot] - horizon)
        m.addConstr(T[j] + SERVICE[j] + tau[j, depot] <= horizon + slack * (1 - x[j, depot]), name=f"home[{j}]")
    # @end time_window
    m.optimize()
    return m

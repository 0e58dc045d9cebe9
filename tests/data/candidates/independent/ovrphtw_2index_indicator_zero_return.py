"""Open VRP with hard time windows on a 2-index x = addVars(N, N) (loops kept in the grid with
ub=0). The vehicle's way back to the depot is an arc of cost 0 that takes no time into account
(routes are open: no depot deadline applies to them). Service starts propagate along used arcs by
indicator constraints; the windows are the bounds of the start variables. A single-commodity flow
of goods (dropping each customer's demand) bounds the load and forbids customer-only cycles."""

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
    t = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in range(N) for j in range(N)}
    price = {(i, j): (0.0 if j == o else UNIT_COST[0] * t[i, j]) for i in range(N) for j in range(N)}
    depart = WINDOW[o][0] if o in WINDOW else 0.0

    m = gp.Model("ovrphtw")
    m.setParam("OutputFlag", 0)
    m.setParam("MIPGap", 0.0)
    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    for i in range(N):
        x[i, i].ub = 0
    start = m.addVars(CUSTOMERS, lb=0.0, name="start")
    flow = m.addVars(N, N, lb=0.0, name="flow")

    m.setObjective(x.prod(price), GRB.MINIMIZE)
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="arrive")
    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="depart")
    m.addConstr(x.sum(o, "*") <= K, name="vehicles")
    m.addConstr(x.sum(o, "*") == x.sum("*", o), name="depot_balance")

    # @omit time_window
    for j in CUSTOMERS:
        if j in WINDOW:
            start[j].LB = WINDOW[j][0]
            start[j].UB = WINDOW[j][1]
    # @end time_window
    for j in CUSTOMERS:
        m.addGenConstrIndicator(x[o, j], True, start[j] >= depart + t[o, j], name=f"leave_depot[{j}]")
        for i in CUSTOMERS:
            if i != j:
                m.addGenConstrIndicator(
                    x[i, j], True, start[j] - start[i] >= SERVICE[i] + t[i, j], name=f"next[{i},{j}]"
                )

    cap = sum(DEMAND.values())
    # @omit capacity
    cap = Q
    # @end capacity
    m.addConstrs((flow[i, j] <= cap * x[i, j] for i in range(N) for j in range(N)), name="flow_cap")
    m.addConstrs(
        (flow.sum("*", j) - flow.sum(j, "*") == DEMAND[j] for j in CUSTOMERS), name="flow_drop"
    )
    m.optimize()
    return m

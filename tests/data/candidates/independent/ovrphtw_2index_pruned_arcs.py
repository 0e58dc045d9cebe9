"""Open VRP with hard time windows, 2-index x[i,j] over a pruned arc list, the usual preprocessing
step: no loops, no arcs back into the depot (routes are open), and no arc (i, j) that no schedule can
use, because leaving i at the earliest (window start + service) still reaches j after its window
closes, or because the two demands together already exceed Q. Starts propagate by big-M rows over
the kept arcs, the windows are rows, loads by MTZ labels."""

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
    depot = DEPOTS[0]
    tau = {(i, j): math.dist(COORDS[i], COORDS[j]) for i in range(N) for j in range(N)}
    ready = {i: (WINDOW[i][0] if i in WINDOW else 0.0) for i in range(N)}
    arcs = [(i, j) for i in range(N) for j in CUSTOMERS if i != j]
    # @omit time_window
    arcs = [(i, j) for i, j in arcs if j not in WINDOW or ready[i] + SERVICE[i] + tau[i, j] <= WINDOW[j][1]]
    # @end time_window
    # @omit capacity
    arcs = [(i, j) for i, j in arcs if i == depot or DEMAND[i] + DEMAND[j] <= Q]
    # @end capacity
    arcs = gp.tuplelist(arcs)

    horizon = max(ready.values()) + sum(SERVICE[i] + max(tau[i, j] for j in range(N)) for i in range(N))
    M = horizon + max(SERVICE.values()) + max(tau.values())

    m = gp.Model("ovrphtw_pruned")
    m.Params.OutputFlag = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    b = m.addVars(CUSTOMERS, lb=0.0, ub=horizon, name="begin")
    q = m.addVars(CUSTOMERS, name="q")

    m.setObjective(gp.quicksum(UNIT_COST[0] * tau[i, j] * x[i, j] for i, j in arcs), GRB.MINIMIZE)
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="in")
    m.addConstrs((x.sum(i, "*") <= 1 for i in CUSTOMERS), name="out")
    m.addConstr(x.sum(depot, "*") <= K, name="fleet")

    for i, j in arcs:
        leave = ready[depot] if i == depot else b[i] + SERVICE[i]
        m.addConstr(b[j] >= leave + tau[i, j] - M * (1 - x[i, j]), name=f"time[{i},{j}]")
    # @omit time_window
    for j in CUSTOMERS:
        if j in WINDOW:
            m.addConstr(b[j] >= WINDOW[j][0], name=f"ready[{j}]")
            m.addConstr(b[j] <= WINDOW[j][1], name=f"due[{j}]")
    # @end time_window

    cap = sum(DEMAND.values())
    # @omit capacity
    cap = Q
    # @end capacity
    for j in CUSTOMERS:
        q[j].LB, q[j].UB = DEMAND[j], cap
    for i, j in arcs:
        if i != depot:
            m.addConstr(q[j] >= q[i] + DEMAND[j] - cap * (1 - x[i, j]), name=f"load[{i},{j}]")
    m.optimize()
    return m

"""Open VRP with hard time windows, 3-index x[i,j,k] built by addVars over numpy index ranges
(np.arange: the keys are numpy integers), named "arc" in Gurobi while the Python variable stays x.
Vehicles may "return" to the depot on zero-cost arcs (the route just ends). Subtours are forbidden
by DFJ rows over every customer subset, enumerated upfront with itertools.combinations and marked
lazy through the Lazy attribute (LazyConstraints=1, no callback). Service starts per node by
big-M over the vehicle-aggregated arc; per-vehicle load knapsacks."""

import itertools

import gurobipy as gp
import numpy as np
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
    V = np.arange(N)
    R = np.arange(K)
    depot = DEPOTS[0]
    cust = np.array(CUSTOMERS)
    P = np.array(COORDS)
    D = np.sqrt(((P[:, None, :] - P[None, :, :]) ** 2).sum(axis=2))

    m = gp.Model()
    m.setParam("OutputFlag", 0)
    m.setParam("LazyConstraints", 1)
    m.setParam("MIPGap", 0.0)

    x = m.addVars(V, V, R, vtype=GRB.BINARY, name="arc")
    s = m.addVars(V, lb=0.0, name="start")
    for i in V:
        for k in R:
            x[i, i, k].UB = 0

    # travel cost only on arcs into customers: the leg back into the depot is never driven
    m.setObjective(
        gp.quicksum(UNIT_COST[k] * D[i, j] * x[i, j, k] for i in V for j in cust for k in R if i != j),
        GRB.MINIMIZE,
    )

    for j in cust:
        m.addConstr(gp.quicksum(x[i, j, k] for i in V for k in R) == 1, name=f"visit[{j}]")
    for k in R:
        m.addConstr(gp.quicksum(x[depot, j, k] for j in cust) <= 1, name=f"one_route[{k}]")
        for h in V:
            m.addConstr(
                gp.quicksum(x[i, h, k] for i in V) == gp.quicksum(x[h, j, k] for j in V), name=f"flow[{h},{k}]"
            )
        # @omit capacity
        m.addConstr(
            gp.quicksum(DEMAND[int(j)] * x[i, j, k] for i in V for j in cust) <= CAPACITY[k], name=f"load[{k}]"
        )
        # @end capacity

    # DFJ on every customer subset (6-7 customers: at most 120 rows), lazy by attribute
    for size in range(2, len(cust) + 1):
        for S in itertools.combinations(cust.tolist(), size):
            c = m.addConstr(
                gp.quicksum(x[i, j, k] for i in S for j in S if i != j for k in R) <= len(S) - 1,
                name="dfj_" + "_".join(map(str, S)),
            )
            c.Lazy = 1

    m.addConstr(s[depot] == WINDOW[depot][0], name="leave_depot")
    M = max(b for _, b in WINDOW.values()) + max(SERVICE.values()) + D.max()
    for i in V:
        for j in cust:
            if i != j:
                used = gp.quicksum(x[i, j, k] for k in R)
                m.addConstr(s[j] >= s[i] + SERVICE[int(i)] + D[i, j] - M * (1 - used), name=f"time[{i},{j}]")
    for j in cust:
        a, b = WINDOW[int(j)]
        m.addConstr(s[j] >= a)
        # @omit time_window
        m.addConstr(s[j] <= b)
        # @end time_window

    m.optimize()
    return m

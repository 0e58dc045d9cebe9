"""CVRP, 3-index x[i,j,k]: addConstrs with generator expressions everywhere, knapsack capacity per
vehicle, MTZ order variables on the aggregated arcs, and vehicles used in index order (symmetry
breaking that any plan satisfies after relabelling identical vehicles)."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (60.09, 91.09), (24.69, 80.13), (20.92, 29.14), (51.68, 8.91), (87.91, 31.53), (49.05, 24.0)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [28.59, 28.59]
Q = 28.59
DEMAND = {1: 8.16, 2: 8.54, 3: 10.0, 4: 4.61, 5: 8.49, 6: 5.24}
# @data-end


def build_model():
    V = range(N)
    R = range(K)
    o = DEPOTS[0]
    d = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in V for j in V}

    m = gp.Model()
    m.setParam("OutputFlag", 0)
    x = m.addVars(V, V, R, vtype=GRB.BINARY, name="x")
    y = m.addVars(CUSTOMERS, R, vtype=GRB.BINARY, name="y")
    u = m.addVars(CUSTOMERS, lb=1.0, ub=len(CUSTOMERS), name="u")

    m.setObjective(gp.quicksum(UNIT_COST[k] * d[i, j] * x[i, j, k] for i in V for j in V for k in R), GRB.MINIMIZE)
    m.addConstrs((x[i, i, k] == 0 for i in V for k in R), name="noloop")
    m.addConstrs((y.sum(i, "*") == 1 for i in CUSTOMERS), name="assign")
    m.addConstrs((x.sum(i, "*", k) == y[i, k] for i in CUSTOMERS for k in R), name="leave")
    m.addConstrs((x.sum("*", i, k) == y[i, k] for i in CUSTOMERS for k in R), name="arrive")
    m.addConstrs((x.sum(o, "*", k) <= 1 for k in R), name="start")
    m.addConstrs((x.sum(o, "*", k) == x.sum("*", o, k) for k in R), name="back")
    m.addConstrs((y[i, k] <= x.sum(o, "*", k) for i in CUSTOMERS for k in R), name="used")
    m.addConstrs((x.sum(o, "*", k) <= x.sum(o, "*", k - 1) for k in R if k > 0), name="order")
    # @omit capacity
    m.addConstrs((gp.quicksum(DEMAND[i] * y[i, k] for i in CUSTOMERS) <= Q for k in R), name="cap")
    # @end capacity
    n = len(CUSTOMERS)
    # @omit subtour
    m.addConstrs(
        (u[i] - u[j] + n * x.sum(i, j, "*") <= n - 1 for i in CUSTOMERS for j in CUSTOMERS if i != j), name="mtz"
    )
    # @end subtour
    m.optimize()
    return m

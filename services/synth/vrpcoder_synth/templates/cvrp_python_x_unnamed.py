"""CVRP as most people type it: the routing variable is the Python name ``x`` (2-index, full
grid), created without a ``name=`` argument, so Gurobi calls its entries C0, C1, ...; MTZ loads."""

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
    depot = DEPOTS[0]
    cost = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in range(N) for j in range(N)}
    model = gp.Model("CVRP")
    model.Params.OutputFlag = 0
    x = model.addVars(N, N, vtype=GRB.BINARY)
    total = sum(DEMAND.values())
    u = model.addVars(CUSTOMERS, lb=[DEMAND[i] for i in CUSTOMERS], ub=total)
    model.setObjective(gp.quicksum(UNIT_COST[0] * cost[i, j] * x[i, j] for i in range(N) for j in range(N) if i != j))
    model.addConstrs(x[i, i] == 0 for i in range(N))
    model.addConstrs(gp.quicksum(x[i, j] for i in range(N)) == 1 for j in CUSTOMERS)
    model.addConstrs(gp.quicksum(x[i, j] for j in range(N)) == 1 for i in CUSTOMERS)
    model.addConstr(gp.quicksum(x[depot, j] for j in CUSTOMERS) <= K)
    # @omit capacity
    for i in CUSTOMERS:
        u[i].ub = Q
    # @end capacity
    model.addConstrs(
        u[j] >= u[i] + DEMAND[j] - total * (1 - x[i, j]) for i in CUSTOMERS for j in CUSTOMERS if i != j
    )
    model.optimize()
    return model

"""Open VRP: routes end at their last customer, so the 2-index x[i,j] is built by addVars over
an arc list with no loops and no arcs back into the depot at all (the key set is sparse). Each
customer is entered once and left at most once; MTZ on loads for capacity and subtours."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (68.03, 14.55), (91.04, 20.79), (87.88, 38.76), (94.99, 14.94), (28.41, 15.52), (5.76, 16.14)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [21.64, 21.64]
Q = 21.64
DEMAND = {1: 2.91, 2: 2.19, 3: 6.48, 4: 6.12, 5: 8.05, 6: 8.71}
# @data-end


def build_model():
    depot = DEPOTS[0]
    arcs = gp.tuplelist((i, j) for i in range(N) for j in CUSTOMERS if i != j)
    w = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i, j in arcs}

    m = gp.Model("ovrp")
    m.Params.OutputFlag = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    q = m.addVars(CUSTOMERS, name="q")

    m.setObjective(gp.quicksum(UNIT_COST[0] * w[a] * x[a] for a in arcs), GRB.MINIMIZE)
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="enter")
    m.addConstrs((x.sum(i, "*") <= 1 for i in CUSTOMERS), name="leave")
    m.addConstr(x.sum(depot, "*") <= K, name="vehicles")
    limit = sum(DEMAND.values())
    # @omit capacity
    limit = Q
    # @end capacity
    for j in CUSTOMERS:
        q[j].LB = DEMAND[j]
        q[j].UB = limit
    m.addConstrs(
        (q[j] >= q[i] + DEMAND[j] - limit * (1 - x[i, j]) for i, j in arcs if i != depot), name="mtz"
    )
    m.optimize()
    return m

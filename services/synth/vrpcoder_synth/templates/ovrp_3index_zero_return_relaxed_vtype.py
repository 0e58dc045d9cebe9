"""Open VRP, 3-index x[i,j,k] created continuous in [0,1] over the full grid and switched to binary
afterwards (VType set on every entry); loops get ub=0. A route is modelled as a closed tour whose
return arcs into the depot cost nothing, so the tour ends, for the bill, at its last customer.
Objective by x.prod over a (i,j,k) cost dict. Per-vehicle load knapsack, vehicles used in index
order, MTZ visit positions on the aggregated arcs against customer-only cycles."""

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
    nodes = list(range(N))
    vehicles = list(range(K))
    n = len(CUSTOMERS)

    cost = {}
    for i in nodes:
        for j in nodes:
            for k in vehicles:
                leg = 0.0 if j == depot else math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])
                cost[i, j, k] = UNIT_COST[k] * leg

    m = gp.Model("ovrp")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0

    x = m.addVars(nodes, nodes, vehicles, lb=0.0, ub=1.0, vtype=GRB.CONTINUOUS, name="x")
    pos = m.addVars(CUSTOMERS, lb=1.0, ub=float(n), name="pos")
    for i in nodes:
        for k in vehicles:
            x[i, i, k].UB = 0.0

    m.setObjective(x.prod(cost), GRB.MINIMIZE)

    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="visit")
    m.addConstrs((x.sum("*", i, k) == x.sum(i, "*", k) for i in nodes for k in vehicles), name="flow")
    m.addConstrs((x.sum(depot, "*", k) <= 1 for k in vehicles), name="leave_once")
    m.addConstrs((x.sum(depot, "*", k) >= x.sum(depot, "*", k + 1) for k in vehicles[:-1]), name="symmetry")
    # @omit capacity
    m.addConstrs(
        (gp.quicksum(DEMAND[j] * x.sum("*", j, k) for j in CUSTOMERS) <= Q for k in vehicles), name="capacity"
    )
    # @end capacity
    # @omit subtour
    m.addConstrs(
        (
            pos[i] - pos[j] + n * x.sum(i, j, "*") <= n - 1
            for i in CUSTOMERS
            for j in CUSTOMERS
            if i != j
        ),
        name="mtz",
    )
    # @end subtour

    # decided late: the arcs are yes/no decisions after all
    for var in x.values():
        var.VType = GRB.BINARY

    m.optimize()
    return m

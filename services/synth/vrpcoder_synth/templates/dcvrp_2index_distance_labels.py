"""Distance-constrained CVRP on a 2-index x[i,j] (full grid, diagonal ub=0): a continuous
"distance driven so far" label per customer, propagated with big-M along used arcs, limits each
route (return leg included); capacity by a second label (MTZ on loads)."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (77.51, 27.94), (60.83, 13.94), (56.6, 61.1), (53.6, 6.4), (20.69, 72.2), (54.59, 74.54)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [26.06, 26.06]
Q = 26.06
DEMAND = {1: 5.07, 2: 4.74, 3: 7.8, 4: 3.59, 5: 6.94, 6: 6.75}
MAX_DIST = 244.97
# @data-end


def build_model():
    dep = DEPOTS[0]
    d = [[math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for j in range(N)] for i in range(N)]
    n = len(CUSTOMERS)

    m = gp.Model("dcvrp")
    m.Params.OutputFlag = 0
    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    for i in range(N):
        x[i, i].UB = 0.0
    dist_so_far = m.addVars(CUSTOMERS, lb=0.0, name="dist_so_far")
    load = m.addVars(CUSTOMERS, lb=0.0, name="load")

    m.setObjective(gp.quicksum(UNIT_COST[0] * d[i][j] * x[i, j] for i in range(N) for j in range(N)), GRB.MINIMIZE)
    for j in CUSTOMERS:
        m.addConstr(x.sum("*", j) == 1)
        m.addConstr(x.sum(j, "*") == 1)
    m.addConstr(x.sum(dep, "*") <= K)
    m.addConstr(x.sum(dep, "*") == x.sum("*", dep))

    # loads: MTZ with the load delivered up to and including each customer
    for j in CUSTOMERS:
        load[j].LB = DEMAND[j]
        load[j].UB = sum(DEMAND.values())
    # @omit capacity
    for j in CUSTOMERS:
        load[j].UB = Q
    # @end capacity
    total = sum(DEMAND.values())
    for i in CUSTOMERS:
        for j in CUSTOMERS:
            if i != j:
                m.addConstr(load[j] >= load[i] + DEMAND[j] - total * (1 - x[i, j]))

    # distance labels (they also keep every customer cycle out, distances being positive)
    longest = sum(max(row) for row in d)
    for j in CUSTOMERS:
        dist_so_far[j].UB = longest
        m.addConstr(dist_so_far[j] >= d[dep][j] * x[dep, j])
        for i in CUSTOMERS:
            if i != j:
                m.addConstr(dist_so_far[j] >= dist_so_far[i] + d[i][j] - 2 * longest * (1 - x[i, j]))
    # @omit distance
    for i in CUSTOMERS:
        m.addConstr(dist_so_far[i] + d[i][dep] <= MAX_DIST + longest * (1 - x[i, dep]))
    # @end distance
    m.optimize()
    return m

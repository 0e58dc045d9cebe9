"""Heterogeneous-fleet VRP: 3-index x[i,j,k] over the full grid (loops kept at ub=0), one load
flow per vehicle bounded by that vehicle's capacity (it also ties every customer to its depot),
objective = fixed cost of each used vehicle + its own per-distance cost times its route length."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (68.96, 85.21), (47.2, 53.72), (15.72, 65.76), (50.53, 61.55), (87.97, 56.34), (85.0, 21.32)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [59.56, 35.79]
UNIT_COST = [1.2, 1.0]
CAPACITY = [46.17, 29.76]
DEMAND = {1: 8.39, 2: 3.27, 3: 9.6, 4: 5.54, 5: 8.13, 6: 8.08}
# @data-end


def build_model():
    nodes = range(N)
    fleet = range(K)
    dist = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in nodes for j in nodes}

    m = gp.Model("hfvrp")
    m.Params.OutputFlag = 0
    x = m.addVars(nodes, nodes, fleet, vtype=GRB.BINARY, name="x")
    g = m.addVars(nodes, nodes, fleet, lb=0.0, name="g")
    for i in nodes:
        for k in fleet:
            x[i, i, k].UB = 0
            g[i, i, k].UB = 0

    used = {k: x.sum(VEHICLE_DEPOT[k], "*", k) for k in fleet}
    visit = {(j, k): x.sum("*", j, k) for j in CUSTOMERS for k in fleet}
    m.setObjective(
        gp.quicksum(FIXED_COST[k] * used[k] for k in fleet)
        + gp.quicksum(UNIT_COST[k] * dist[i, j] * x[i, j, k] for i in nodes for j in nodes for k in fleet),
        GRB.MINIMIZE,
    )
    m.addConstrs((gp.quicksum(visit[j, k] for k in fleet) == 1 for j in CUSTOMERS), name="cover")
    m.addConstrs((x.sum(i, "*", k) == x.sum("*", i, k) for i in nodes for k in fleet), name="pass")
    m.addConstrs((used[k] <= 1 for k in fleet), name="single_trip")
    m.addConstrs((x.sum(d, "*", k) == 0 for d in DEPOTS for k in fleet if d != VEHICLE_DEPOT[k]), name="own_depot")
    m.addConstrs(
        (g.sum("*", j, k) - g.sum(j, "*", k) == DEMAND[j] * visit[j, k] for j in CUSTOMERS for k in fleet),
        name="unload",
    )
    total = sum(DEMAND.values())
    bound = {k: total for k in fleet}
    # @omit capacity
    bound = {k: CAPACITY[k] for k in fleet}
    # @end capacity
    m.addConstrs((g[i, j, k] <= bound[k] * x[i, j, k] for i in nodes for j in nodes for k in fleet), name="carry")
    m.optimize()
    return m

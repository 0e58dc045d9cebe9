"""Heterogeneous-fleet VRP whose fleet repeats a vehicle type: 3-index x[i,j,k], one load flow
per vehicle bounded by its capacity, fixed + per-distance costs, and symmetry breaking between
identical vehicles (same depot, capacity and costs): of two twins, the later one may serve a
customer only if the earlier one serves a lower-numbered customer. Every plan satisfies this after
swapping the labels of identical vehicles, so no route set is lost."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 8
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6, 7]
COORDS = [(50.0, 50.0), (34.94, 74.21), (5.96, 13.73), (10.62, 85.81), (82.21, 20.91), (14.74, 82.65), (50.88, 52.79), (75.2, 16.54)]
K = 4
VEHICLE_DEPOT = [0, 0, 0, 0]
FIXED_COST = [26.88, 49.06, 66.25, 66.25]
UNIT_COST = [0.85, 1.06, 1.16, 1.16]
CAPACITY = [19.76, 37.06, 51.13, 51.13]
DEMAND = {1: 11.29, 2: 8.49, 3: 5.76, 4: 14.12, 5: 6.45, 6: 11.41, 7: 10.22}
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
    # @omit symmetry
    kind = [(VEHICLE_DEPOT[k], CAPACITY[k], FIXED_COST[k], UNIT_COST[k]) for k in fleet]
    for k in fleet:
        twins = [h for h in range(k) if kind[h] == kind[k]]
        if twins:
            h = twins[-1]
            for pos, j in enumerate(CUSTOMERS):
                m.addConstr(visit[j, k] <= gp.quicksum(visit[i, h] for i in CUSTOMERS[:pos]), name=f"twin[{j},{k}]")
    # @end symmetry
    m.optimize()
    return m

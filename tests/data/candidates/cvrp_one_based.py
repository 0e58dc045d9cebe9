"""Correct CVRP candidate for a statement that numbers its nodes 1..7 (node 1 is the depot).

The ids are translated into internal positions inside build_model, as the output protocol asks.
"""

import math

import gurobipy as gp
from gurobipy import GRB

DEPOT_ID = 1
LOCATIONS = {1: (50, 50), 2: (45, 35), 3: (35, 45), 4: (55, 70), 5: (60, 55), 6: (65, 65), 7: (40, 60)}
DEMANDS = {1: 0, 2: 1, 3: 2, 4: 2, 5: 3, 6: 3, 7: 4}
Q = 10
K = 3


def build_model():
    node_ids = [1, 2, 3, 4, 5, 6, 7]
    id2idx = {bid: i for i, bid in enumerate(node_ids)}
    idx2id = {i: bid for bid, i in id2idx.items()}
    N = len(node_ids)
    depot = id2idx[DEPOT_ID]
    customers = [i for i in range(N) if i != depot]
    coords = [LOCATIONS[idx2id[i]] for i in range(N)]
    demand = [DEMANDS[idx2id[i]] for i in range(N)]
    vehicles = range(K)
    dist = {
        (i, j): math.hypot(coords[i][0] - coords[j][0], coords[i][1] - coords[j][1])
        for i in range(N)
        for j in range(N)
    }

    m = gp.Model("cvrp_one_based")
    m.setParam("OutputFlag", 0)
    x = m.addVars(N, N, K, vtype=GRB.BINARY, name="x")
    load = m.addVars(customers, lb=[demand[i] for i in customers], ub=Q, name="load")
    m.setObjective(
        gp.quicksum(dist[i, j] * x[i, j, k] for i in range(N) for j in range(N) for k in vehicles),
        GRB.MINIMIZE,
    )
    m.addConstrs((x[i, i, k] == 0 for i in range(N) for k in vehicles), name="no_loop")
    m.addConstrs(
        (gp.quicksum(x[i, j, k] for i in range(N) for k in vehicles) == 1 for j in customers), name="visit"
    )
    m.addConstrs(
        (
            gp.quicksum(x[i, j, k] for j in range(N)) == gp.quicksum(x[j, i, k] for j in range(N))
            for i in range(N)
            for k in vehicles
        ),
        name="flow",
    )
    m.addConstrs((gp.quicksum(x[depot, j, k] for j in customers) <= 1 for k in vehicles), name="one_route")
    m.addConstrs(
        (
            load[j] >= load[i] + demand[j] - Q * (1 - gp.quicksum(x[i, j, k] for k in vehicles))
            for i in customers
            for j in customers
            if i != j
        ),
        name="mtz",
    )
    m.optimize()
    return m

"""Correct VRPHTW candidate: 3-index arc variables, big-M service-start times per vehicle."""

import math

import gurobipy as gp
from gurobipy import GRB

COORDS = [(0, 0), (10, 0), (20, 0), (30, 0), (0, 10), (0, 20)]
DEMAND = [0, 2, 2, 2, 2, 2]
SERVICE = [0, 2, 2, 2, 2, 2]
WINDOWS = [(0, 200), (5, 15), (15, 30), (30, 45), (5, 15), (15, 30)]
Q = 10
K = 2
BIG_M = 1000


def build_model():
    N = len(COORDS)
    customers = range(1, N)
    vehicles = range(K)
    horizon = WINDOWS[0][1]
    dist = {
        (i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])
        for i in range(N)
        for j in range(N)
    }

    m = gp.Model("vrphtw")
    m.setParam("OutputFlag", 0)
    x = m.addVars(N, N, K, vtype=GRB.BINARY, name="x")
    t = m.addVars(customers, vehicles, lb=0.0, name="t")

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
    m.addConstrs((gp.quicksum(x[0, j, k] for j in customers) <= 1 for k in vehicles), name="one_route")
    m.addConstrs(
        (gp.quicksum(DEMAND[j] * x[i, j, k] for i in range(N) for j in customers) <= Q for k in vehicles),
        name="capacity",
    )
    m.addConstrs(
        (
            t[j, k] >= WINDOWS[0][0] + dist[0, j] - BIG_M * (1 - x[0, j, k])
            for j in customers
            for k in vehicles
        ),
        name="start",
    )
    m.addConstrs(
        (
            t[j, k] >= t[i, k] + SERVICE[i] + dist[i, j] - BIG_M * (1 - x[i, j, k])
            for i in customers
            for j in customers
            if i != j
            for k in vehicles
        ),
        name="travel",
    )
    m.addConstrs(
        (
            t[i, k] + SERVICE[i] + dist[i, 0] <= horizon + BIG_M * (1 - x[i, 0, k])
            for i in customers
            for k in vehicles
        ),
        name="return",
    )
    m.addConstrs((t[j, k] >= WINDOWS[j][0] for j in customers for k in vehicles), name="earliest")
    m.addConstrs((t[j, k] <= WINDOWS[j][1] for j in customers for k in vehicles), name="latest")
    m.optimize()
    return m

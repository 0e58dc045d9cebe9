"""Buggy CVRP candidate: per-vehicle capacity but no subtour elimination at all."""

import math

import gurobipy as gp
from gurobipy import GRB

COORDS = [(50, 50), (60, 55), (65, 65), (55, 70), (40, 60), (35, 45), (45, 35)]
DEMAND = [0, 3, 3, 2, 4, 2, 1]
Q = 10
K = 3


def build_model():
    N = len(COORDS)
    customers = range(1, N)
    vehicles = range(K)
    dist = {
        (i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])
        for i in range(N)
        for j in range(N)
    }

    m = gp.Model("cvrp_mtz")
    m.setParam("OutputFlag", 0)
    x = m.addVars(N, N, K, vtype=GRB.BINARY, name="x")

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
    m.optimize()
    return m


if __name__ == "__main__":
    model = build_model()
    print("objective", model.ObjVal)

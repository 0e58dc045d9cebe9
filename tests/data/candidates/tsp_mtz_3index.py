"""Correct TSP candidate: 3-index arc variables (one vehicle) with MTZ subtour elimination."""

import math

import gurobipy as gp
from gurobipy import GRB

COORDS = [(50, 50), (60, 50), (60, 60), (50, 60), (40, 60), (40, 50)]


def build_model():
    N = len(COORDS)
    K = 1
    customers = range(1, N)
    dist = {
        (i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])
        for i in range(N)
        for j in range(N)
    }

    m = gp.Model("tsp_mtz")
    m.setParam("OutputFlag", 0)
    x = m.addVars(N, N, K, vtype=GRB.BINARY, name="x")
    u = m.addVars(customers, lb=1, ub=N - 1, name="u")

    m.setObjective(
        gp.quicksum(dist[i, j] * x[i, j, k] for i in range(N) for j in range(N) for k in range(K)),
        GRB.MINIMIZE,
    )
    m.addConstrs((x[i, i, k] == 0 for i in range(N) for k in range(K)), name="no_loop")
    m.addConstrs(
        (gp.quicksum(x[i, j, k] for i in range(N) for k in range(K)) == 1 for j in customers), name="enter"
    )
    m.addConstrs(
        (
            gp.quicksum(x[i, j, k] for j in range(N)) == gp.quicksum(x[j, i, k] for j in range(N))
            for i in range(N)
            for k in range(K)
        ),
        name="flow",
    )
    m.addConstrs((gp.quicksum(x[0, j, k] for j in customers) == 1 for k in range(K)), name="leave_depot")
    m.addConstrs(
        (
            u[i] - u[j] + (N - 1) * gp.quicksum(x[i, j, k] for k in range(K)) <= N - 2
            for i in customers
            for j in customers
            if i != j
        ),
        name="mtz",
    )
    m.optimize()
    return m


if __name__ == "__main__":
    model = build_model()
    print(model.ObjVal)

"""Correct CVRP candidate: 2-index arc variables with a single-commodity load flow."""

import math

import gurobipy as gp
from gurobipy import GRB

COORDS = [(50, 50), (60, 55), (65, 65), (55, 70), (40, 60), (35, 45), (45, 35)]
DEMAND = [0, 3, 3, 2, 4, 2, 1]
Q = 10
K = 3


def build_model():
    N = len(COORDS)
    nodes = range(N)
    customers = range(1, N)
    dist = {
        (i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])
        for i in nodes
        for j in nodes
    }

    m = gp.Model("cvrp_flow")
    m.setParam("OutputFlag", 0)
    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    f = m.addVars(N, N, lb=0.0, name="f")

    m.setObjective(gp.quicksum(dist[i, j] * x[i, j] for i in nodes for j in nodes), GRB.MINIMIZE)
    m.addConstrs((x[i, i] == 0 for i in nodes), name="no_loop")
    m.addConstrs((x.sum("*", j) == 1 for j in customers), name="enter")
    m.addConstrs((x.sum(j, "*") == 1 for j in customers), name="leave")
    m.addConstr(x.sum(0, "*") <= K, name="fleet")
    m.addConstr(x.sum(0, "*") == x.sum("*", 0), name="depot_balance")
    m.addConstrs((f.sum("*", j) - f.sum(j, "*") == DEMAND[j] for j in customers), name="deliver")
    m.addConstrs((f[i, j] <= Q * x[i, j] for i in nodes for j in nodes), name="carry")
    m.optimize()
    return m


if __name__ == "__main__":
    print(build_model().ObjVal)

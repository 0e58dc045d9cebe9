"""Heterogeneous fleet VRP: three-index arcs, Miller-Tucker-Zemlin load labels per vehicle, each
vehicle's fixed cost and cost per distance. FLAWED: a vehicle of a middle capacity (neither the
smallest nor the largest of the fleet) is given the largest vehicle's capacity."""
import math

import gurobipy as gp
from gurobipy import GRB

DATA = __DATA__
FLAWED = __FLAWED__


def build_model():
    pts = [(d["x"], d["y"]) for d in DATA["depots"]] + [(c["x"], c["y"]) for c in DATA["customers"]]
    n = len(pts)
    dem = [0.0] + [c["demand"] for c in DATA["customers"]]
    fleet = DATA["vehicles"]
    sizes = sorted({v["capacity"] for v in fleet})
    room = []
    for v in fleet:
        middle = len(sizes) >= 3 and sizes[0] < v["capacity"] < sizes[-1]
        room.append(sizes[-1] if FLAWED and middle else v["capacity"])

    m = gp.Model("hfvrp")
    m.Params.OutputFlag = 0
    m.Params.Threads = 1
    arcs = [(i, j, k) for k in range(len(fleet)) for i in range(n) for j in range(n) if i != j]
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    load = m.addVars(range(1, n), range(len(fleet)), lb=0.0, name="load")
    m.setObjective(
        gp.quicksum(fleet[k]["rate"] * math.dist(pts[i], pts[j]) * x[i, j, k] for i, j, k in arcs)
        + gp.quicksum(fleet[k]["fixed"] * x.sum(0, "*", k) for k in range(len(fleet))),
        GRB.MINIMIZE,
    )
    for i in range(1, n):
        m.addConstr(x.sum("*", i, "*") == 1)
    for k in range(len(fleet)):
        m.addConstr(x.sum(0, "*", k) <= 1)
        for i in range(n):
            m.addConstr(x.sum(i, "*", k) == x.sum("*", i, k))
        for i in range(1, n):
            m.addConstr(load[i, k] <= room[k])
            m.addConstr(load[i, k] >= dem[i] * x.sum("*", i, k))
            for j in range(1, n):
                if i != j:
                    m.addConstr(load[j, k] >= load[i, k] + dem[j] - (room[k] + dem[j]) * (1 - x[i, j, k]))
    m.optimize()
    return m

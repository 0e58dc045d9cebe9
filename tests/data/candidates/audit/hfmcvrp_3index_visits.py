"""Heterogeneous multi-compartment VRP: three-index arcs, visit variables per vehicle, lazy
subtour cuts, per-compartment and total limits of each vehicle. FLAWED: every vehicle is given
the limits of the vehicle with the largest total capacity."""
import itertools
import math

import gurobipy as gp
from gurobipy import GRB

DATA = __DATA__
FLAWED = __FLAWED__


def build_model():
    pts = [(d["x"], d["y"]) for d in DATA["depots"]] + [(c["x"], c["y"]) for c in DATA["customers"]]
    n = len(pts)
    cust = DATA["customers"]
    fleet = DATA["vehicles"]
    largest = max(fleet, key=lambda v: v["capacity"])
    limits = [largest if FLAWED else v for v in fleet]
    K = range(len(fleet))

    m = gp.Model("hfmcvrp")
    m.Params.OutputFlag = 0
    m.Params.Threads = 1
    m.Params.LazyConstraints = 1
    x = m.addVars([(i, j, k) for k in K for i, j in itertools.permutations(range(n), 2)], vtype=GRB.BINARY, name="x")
    y = m.addVars(range(1, n), K, vtype=GRB.BINARY, name="y")
    m.setObjective(
        gp.quicksum(fleet[k]["rate"] * math.dist(pts[i], pts[j]) * x[i, j, k] for i, j, k in x.keys())
        + gp.quicksum(fleet[k]["fixed"] * x.sum(0, "*", k) for k in K),
        GRB.MINIMIZE,
    )
    m.addConstrs(y.sum(i, "*") == 1 for i in range(1, n))
    for k in K:
        m.addConstr(x.sum(0, "*", k) <= 1)
        m.addConstr(x.sum(0, "*", k) == x.sum("*", 0, k))
        m.addConstrs(x.sum(i, "*", k) == y[i, k] for i in range(1, n))
        m.addConstrs(x.sum("*", i, k) == y[i, k] for i in range(1, n))
        m.addConstr(gp.quicksum(cust[i - 1]["demand"] * y[i, k] for i in range(1, n)) <= limits[k]["capacity"])
        for c, room in enumerate(limits[k]["ccap"]):
            m.addConstr(gp.quicksum(cust[i - 1]["cd"][c] * y[i, k] for i in range(1, n)) <= room)
    m._x = x

    def cut(model, where):
        if where != GRB.Callback.MIPSOL:
            return
        chosen = [a for a, v in model.cbGetSolution(model._x).items() if v > 0.5]
        for k in K:
            nxt = {i: j for i, j, kk in chosen if kk == k}
            reached, node = {0}, nxt.get(0)
            while node is not None and node not in reached:
                reached.add(node)
                node = nxt.get(node)
            stray = [i for i in nxt if i not in reached]
            if stray:
                model.cbLazy(gp.quicksum(model._x[i, j, k] for i in stray for j in stray if i != j) <= len(stray) - 1)

    m.optimize(cut)
    return m

"""VRP with soft time windows: two-index arcs, a single-commodity load flow, service starts
propagated along the arcs, lateness priced per customer. FLAWED: earliness priced at the late
penalty instead of forbidden (service may start before the window opens)."""
import math

import gurobipy as gp
from gurobipy import GRB

DATA = __DATA__
FLAWED = __FLAWED__


def build_model():
    pts = [(d["x"], d["y"]) for d in DATA["depots"]] + [(c["x"], c["y"]) for c in DATA["customers"]]
    n = len(pts)
    custs = range(1, n)
    cust = {i: DATA["customers"][i - 1] for i in custs}
    fleet = DATA["vehicles"]
    cap = fleet[0]["capacity"]
    opens = DATA["depots"][0]["tw"][0]
    leg = {(i, j): math.dist(pts[i], pts[j]) for i in range(n) for j in range(n) if i != j}
    big = opens + sum(c["service"] for c in cust.values()) + sum(leg.values()) + max(c["tw"][0] for c in cust.values())

    m = gp.Model("vrpstw")
    m.Params.OutputFlag = 0
    m.Params.Threads = 1
    x = m.addVars(leg.keys(), vtype=GRB.BINARY, name="x")
    flow = m.addVars(leg.keys(), lb=0.0, name="flow")
    start = m.addVars(custs, lb=0.0, ub=big, name="start")
    late = m.addVars(custs, lb=0.0, name="late")
    penalty = gp.quicksum(cust[i]["penalty"] * late[i] for i in custs)
    if FLAWED:
        early = m.addVars(custs, lb=0.0, name="early")
        m.addConstrs(early[i] >= cust[i]["tw"][0] - start[i] for i in custs)
        penalty += gp.quicksum(cust[i]["penalty"] * early[i] for i in custs)
    else:
        m.addConstrs(start[i] >= cust[i]["tw"][0] for i in custs)
    m.setObjective(gp.quicksum(leg[a] * x[a] for a in leg) + penalty, GRB.MINIMIZE)

    m.addConstrs(x.sum(i, "*") == 1 for i in custs)
    m.addConstrs(x.sum("*", i) == 1 for i in custs)
    m.addConstr(x.sum(0, "*") <= len(fleet))
    m.addConstrs(flow.sum("*", i) - flow.sum(i, "*") == cust[i]["demand"] for i in custs)
    m.addConstrs(flow[a] <= cap * x[a] for a in leg)
    m.addConstrs(late[i] >= start[i] - cust[i]["tw"][1] for i in custs)
    for (i, j) in leg:
        if j == 0:
            continue
        ready = opens if i == 0 else start[i] + cust[i]["service"]
        m.addConstr(start[j] >= ready + leg[i, j] - big * (1 - x[i, j]))
    m.optimize()
    return m

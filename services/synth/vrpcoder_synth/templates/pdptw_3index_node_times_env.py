"""Pickup and delivery with hard time windows (no load limit), 3-index x[i,j,k] on the full grid,
built in its own gp.Env whose parameters (MIPFocus, Presolve, ...) are passed as a dict. One
service start per customer with big-M propagation on the aggregated arc and per-vehicle return
times; a request's two nodes are served by the same vehicle and the delivery starts after the
pickup is served and the direct leg is driven."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (67.35, 58.64), (57.79, 15.25), (26.13, 65.75), (35.02, 18.32), (47.17, 63.54), (58.71, 25.41)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
PAIRS = [(2, 1, 2.36), (3, 4, 2.38), (5, 6, 4.72)]
WINDOW = {0: (0.0, 1200.0), 1: (61.08, 93.81), 2: (25.61, 152.65), 3: (63.96, 129.24), 4: (91.21, 186.32), 5: (3.83, 68.55), 6: (40.81, 91.02)}
SERVICE = {0: 0.0, 1: 3.22, 2: 3.25, 3: 3.12, 4: 7.4, 5: 7.06, 6: 6.65}
# @data-end

SOLVER_SETTINGS = {"OutputFlag": 0, "MIPGap": 0.0, "MIPFocus": 2, "Presolve": 2}


def build_model():
    env = gp.Env(params=SOLVER_SETTINGS)
    depot = DEPOTS[0]
    N_ = range(N)
    veh = range(K)
    t = [[math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for j in N_] for i in N_]
    horizon = max(WINDOW[i][0] for i in N_) + sum(SERVICE.values()) + len(CUSTOMERS) * max(max(r) for r in t)

    model = gp.Model("pdptw", env=env)
    x = model.addVars(N_, N_, veh, vtype=GRB.BINARY, name="x")
    b = model.addVars(CUSTOMERS, lb=0.0, ub=horizon, name="b")
    e = model.addVars(veh, lb=0.0, ub=horizon + max(max(r) for r in t) + max(SERVICE.values()), name="e")
    model.addConstrs((x[i, i, k] == 0 for i in N_ for k in veh), name="noloop")

    model.setObjective(
        gp.quicksum(UNIT_COST[k] * t[i][j] * x[i, j, k] for i in N_ for j in N_ for k in veh)
        + gp.quicksum(FIXED_COST[k] * x.sum(depot, "*", k) for k in veh),
        GRB.MINIMIZE,
    )
    model.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="enter_once")
    model.addConstrs((x.sum("*", h, k) - x.sum(h, "*", k) == 0 for h in N_ for k in veh), name="conserve")
    model.addConstrs((x.sum(depot, "*", k) <= 1 for k in veh), name="one_trip")

    for j in CUSTOMERS:
        model.addConstr(b[j] >= WINDOW[depot][0] + t[depot][j] * x.sum(depot, j, "*"), name=f"depart[{j}]")
        for i in CUSTOMERS:
            if i != j:
                M = horizon + SERVICE[i] + t[i][j]
                model.addConstr(b[j] >= b[i] + SERVICE[i] + t[i][j] - M * (1 - x.sum(i, j, "*")), name=f"sched[{i},{j}]")
        for k in veh:
            M = horizon + SERVICE[j] + t[j][depot]
            model.addConstr(e[k] >= b[j] + SERVICE[j] + t[j][depot] - M * (1 - x[j, depot, k]), name=f"end[{j},{k}]")
    # @omit time_window
    for j in CUSTOMERS:
        b[j].LB = WINDOW[j][0]
        b[j].UB = WINDOW[j][1]
    for k in veh:
        e[k].UB = WINDOW[depot][1]
    # @end time_window

    for p, q, _ in PAIRS:
        # @omit pairing
        model.addConstrs((x.sum(p, "*", k) == x.sum(q, "*", k) for k in veh), name=f"pair_{p}_{q}")
        # @end pairing
        # @omit precedence
        model.addConstr(b[q] >= b[p] + SERVICE[p] + t[p][q], name=f"prec_{p}_{q}")
        # @end precedence

    model.optimize()
    return model

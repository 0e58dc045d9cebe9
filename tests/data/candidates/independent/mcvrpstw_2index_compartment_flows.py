"""Multi-compartment VRP with soft time windows on a 2-index x[i,j] (full N×N grid, diagonal fixed
at 0): one commodity flow per compartment f[i,j,c] carries the goods from the depot (each arc's
flow bounded by the compartment capacity, the total by Q), which also rules out customer-only
cycles. Service starts propagate by big-M; lateness is a variable charged in the objective.
Parameters are set through Model.Params attributes, setParam and a read-in style dict."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (40.49, 19.22), (79.48, 47.13), (43.02, 20.61), (85.57, 55.78), (73.69, 59.64), (45.71, 40.98)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [26.81, 26.81]
Q = 26.81
DEMAND = {1: 4.92, 2: 1.65, 3: 4.92, 4: 10.82, 5: 8.78, 6: 3.56}
COMP_DEMAND = {1: (0.13, 4.79), 2: (0.71, 0.94), 3: (4.56, 0.36), 4: (5.99, 4.83), 5: (4.0, 4.78), 6: (0.85, 2.71)}
COMP_CAP = [(14.53, 12.28), (14.53, 12.28)]
WINDOW = {0: (0.0, 500.0), 1: (36.1, 97.73), 2: (48.45, 115.65), 3: (49.54, 147.53), 4: (66.55, 156.28), 5: (23.47, 141.03), 6: (0.0, 128.11)}
SERVICE = {0: 0.0, 1: 6.48, 2: 5.34, 3: 3.57, 4: 2.89, 5: 7.36, 6: 4.93}
LATE_PENALTY = {1: 1.43, 2: 1.91, 3: 1.66, 4: 1.47, 5: 0.53, 6: 1.46}
# @data-end


def build_model():
    h = DEPOTS[0]
    nodes = range(N)
    comps = range(len(COMP_CAP[0]))
    room = COMP_CAP[0]  # identical vehicles
    dd = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in nodes for j in nodes}

    mdl = gp.Model("mcvrpstw")
    mdl.Params.OutputFlag = 0
    mdl.setParam("MIPGap", 0.0)
    for key, val in {"IntFeasTol": 1e-9, "NumericFocus": 1}.items():
        mdl.setParam(key, val)

    x = mdl.addVars(nodes, nodes, vtype=GRB.BINARY, name="x")
    for i in nodes:
        x[i, i].UB = 0.0
    f = mdl.addVars(nodes, nodes, comps, lb=0.0, name="f")
    start = mdl.addVars(CUSTOMERS, name="start")
    late = mdl.addVars(CUSTOMERS, name="late")

    mdl.setObjective(
        UNIT_COST[0] * x.prod(dd) + FIXED_COST[0] * x.sum(h, "*") + late.prod(LATE_PENALTY), GRB.MINIMIZE
    )
    mdl.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="leave")
    mdl.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="arrive")
    mdl.addConstr(x.sum(h, "*") == x.sum("*", h), name="home")
    mdl.addConstr(x.sum(h, "*") <= K, name="fleet")

    # goods of each compartment flow out of the depot and are dropped where demanded
    mdl.addConstrs(
        (f.sum("*", j, c) - f.sum(j, "*", c) == COMP_DEMAND[j][c] for j in CUSTOMERS for c in comps), name="drop"
    )
    mdl.addConstrs((f[i, h, c] == 0 for i in nodes for c in comps), name="empty_back")
    cap_c = {c: sum(COMP_DEMAND[j][c] for j in CUSTOMERS) for c in comps}
    cap_tot = sum(DEMAND.values())
    # @omit compartment
    cap_c = {c: room[c] for c in comps}
    # @end compartment
    # @omit capacity
    cap_tot = Q
    # @end capacity
    mdl.addConstrs((f[i, j, c] <= cap_c[c] * x[i, j] for i in nodes for j in nodes for c in comps), name="room")
    mdl.addConstrs((f.sum(i, j, "*") <= cap_tot * x[i, j] for i in nodes for j in nodes), name="total")

    U = max(a for a, _ in WINDOW.values()) + sum(SERVICE.values()) + len(CUSTOMERS) * max(dd.values())
    for j in CUSTOMERS:
        start[j].LB = WINDOW[j][0]
        start[j].UB = U
        mdl.addConstr(start[j] >= WINDOW[h][0] + dd[h, j] * x[h, j])
        mdl.addConstr(late[j] >= start[j] - WINDOW[j][1])
        for i in CUSTOMERS:
            if i != j:
                mdl.addConstr(start[j] >= start[i] + SERVICE[i] + dd[i, j] - (U + SERVICE[i] + dd[i, j]) * (1 - x[i, j]))

    mdl.optimize()
    return mdl

"""Pickup and delivery with soft time windows on a 2-index x[i,j] (dict of arcs without loops):
a request is paired through route labels (label[j] = number of the route's first customer,
copied along every customer-to-customer arc) and ordered by MTZ positions. On-board loads and
service starts propagate with big-M; lateness is an ordinary variable in the objective. SOS1 sets
on each node's outgoing arcs are added as (redundant) branching help."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (11.39, 93.93), (88.98, 43.53), (5.78, 24.47), (53.01, 47.5), (67.06, 61.33), (82.27, 40.22)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [8.71, 8.71]
Q = 8.71
PAIRS = [(2, 6, 1.03), (4, 1, 7.91), (5, 3, 4.0)]
WINDOW = {0: (0.0, 1200.0), 1: (63.79, 185.79), 2: (29.51, 104.77), 3: (104.39, 232.96), 4: (0.0, 77.48), 5: (51.08, 155.78), 6: (41.12, 97.43)}
SERVICE = {0: 0.0, 1: 7.47, 2: 4.13, 3: 6.54, 4: 4.45, 5: 5.67, 6: 5.95}
LATE_PENALTY = {1: 1.96, 2: 1.4, 3: 0.6, 4: 1.04, 5: 1.38, 6: 0.61}
# @data-end


def build_model():
    depot = DEPOTS[0]
    n = len(CUSTOMERS)
    dist = lambda i, j: math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])  # noqa: E731
    change = {}
    for p, q, amount in PAIRS:
        change[p], change[q] = amount, -amount
    top = max(CUSTOMERS)
    horizon = max(w[0] for w in WINDOW.values()) + sum(SERVICE[j] for j in CUSTOMERS) + n * max(
        dist(i, j) for i in range(N) for j in range(N)
    )
    moved = sum(a for _, _, a in PAIRS)

    m = gp.Model("pdpstw_2idx")
    m.setParam(GRB.Param.OutputFlag, 0)
    m.setParam(GRB.Param.MIPGap, 0.0)
    x = {}
    for i in range(N):
        for j in range(N):
            if i != j:
                x[i, j] = m.addVar(vtype=GRB.BINARY, name=f"x[{i},{j}]")
    pos = {j: m.addVar(lb=1, ub=n, name=f"pos[{j}]") for j in CUSTOMERS}
    label = {j: m.addVar(lb=min(CUSTOMERS), ub=top, name=f"label[{j}]") for j in CUSTOMERS}
    onb = {j: m.addVar(lb=-moved, ub=moved, name=f"onb[{j}]") for j in CUSTOMERS}
    st = {j: m.addVar(lb=WINDOW[j][0], ub=horizon, name=f"st[{j}]") for j in CUSTOMERS}
    tard = {j: m.addVar(lb=0.0, name=f"tard[{j}]") for j in CUSTOMERS}

    m.setObjective(
        gp.quicksum(UNIT_COST[0] * dist(i, j) * x[i, j] for (i, j) in x)
        + FIXED_COST[0] * gp.quicksum(x[depot, j] for j in CUSTOMERS)
        + gp.quicksum(LATE_PENALTY[j] * tard[j] for j in CUSTOMERS),
        GRB.MINIMIZE,
    )
    for j in CUSTOMERS:
        m.addConstr(gp.quicksum(x[i, j] for i in range(N) if i != j) == 1, name=f"in[{j}]")
        m.addConstr(gp.quicksum(x[j, i] for i in range(N) if i != j) == 1, name=f"out[{j}]")
        m.addSOS(GRB.SOS_TYPE1, [x[j, i] for i in range(N) if i != j])
    leaving = gp.quicksum(x[depot, j] for j in CUSTOMERS)
    m.addConstr(leaving == gp.quicksum(x[j, depot] for j in CUSTOMERS), name="depot_bal")
    m.addConstr(leaving <= K, name="fleet")

    for j in CUSTOMERS:
        m.addConstr(tard[j] >= st[j] - WINDOW[j][1], name=f"tard[{j}]")
        m.addConstr(st[j] >= WINDOW[depot][0] + dist(depot, j) * x[depot, j], name=f"st0[{j}]")
        m.addConstr(onb[j] >= change[j] - (change[j] + moved) * (1 - x[depot, j]), name=f"onb0[{j}]")
        # a route's label is the number of its first customer
        m.addConstr(label[j] >= j * x[depot, j], name=f"lab_lo[{j}]")
        m.addConstr(label[j] <= j + (top - j) * (1 - x[depot, j]), name=f"lab_hi[{j}]")
        for i in CUSTOMERS:
            if i == j:
                continue
            m.addConstr(pos[j] >= pos[i] + 1 - n * (1 - x[i, j]), name=f"mtz[{i},{j}]")
            m.addConstr(label[j] - label[i] <= top * (1 - x[i, j]), name=f"lab_a[{i},{j}]")
            m.addConstr(label[i] - label[j] <= top * (1 - x[i, j]), name=f"lab_b[{i},{j}]")
            big_t = horizon + SERVICE[i] + dist(i, j)
            m.addConstr(st[j] >= st[i] + SERVICE[i] + dist(i, j) - big_t * (1 - x[i, j]), name=f"st[{i},{j}]")
            big_l = moved + change[j] + moved
            m.addConstr(onb[j] >= onb[i] + change[j] - big_l * (1 - x[i, j]), name=f"onb[{i},{j}]")
    # @omit capacity
    for j in CUSTOMERS:
        onb[j].UB = Q
    # @end capacity
    for p, q, _ in PAIRS:
        # @omit pairing
        m.addConstr(label[p] == label[q], name=f"pair[{p},{q}]")
        # @end pairing
        # @omit precedence
        m.addConstr(pos[q] >= pos[p] + 1, name=f"prec[{p},{q}]")
        # @end precedence
    m.optimize()
    return m

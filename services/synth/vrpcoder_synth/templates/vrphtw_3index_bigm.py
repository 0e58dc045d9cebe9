"""VRP with hard time windows, 3-index x[i,j,k] with per-vehicle continuous service-start times
t[i,k] and big-M linking (Solomon-style); service times and travel times (= distances) make the
time propagation eliminate subtours, so there are no MTZ rows. Capacity is a knapsack per
vehicle. Vehicles leave the depot no earlier than it opens and are back before it closes."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (41.07, 53.28), (53.06, 57.23), (25.58, 93.25), (37.18, 80.88), (68.73, 55.62), (36.48, 71.83)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [25.63, 25.63]
Q = 25.63
DEMAND = {1: 6.16, 2: 5.41, 3: 3.98, 4: 8.06, 5: 3.98, 6: 6.11}
WINDOW = {0: (0.0, 500.0), 1: (6.74, 120.24), 2: (0.0, 126.05), 3: (54.32, 133.82), 4: (40.7, 142.29), 5: (44.98, 88.06), 6: (25.67, 116.11)}
SERVICE = {0: 0.0, 1: 7.53, 2: 4.37, 3: 3.45, 4: 7.15, 5: 4.31, 6: 7.97}
# @data-end


def build_model():
    o = DEPOTS[0]
    nodes = list(range(N))
    vehicles = list(range(K))
    tt = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in nodes for j in nodes}
    a = {i: WINDOW[i][0] for i in nodes}
    b = {i: WINDOW[i][1] for i in nodes}
    s = {i: SERVICE[i] for i in nodes}
    horizon = max(b.values()) + max(s.values()) + max(tt.values())

    m = gp.Model("vrphtw")
    m.Params.OutputFlag = 0
    x = m.addVars(nodes, nodes, vehicles, vtype=GRB.BINARY, name="x")
    t = m.addVars(nodes, vehicles, lb=0.0, ub=horizon, name="t")

    m.setObjective(
        gp.quicksum(UNIT_COST[k] * tt[i, j] * x[i, j, k] for i in nodes for j in nodes for k in vehicles if i != j),
        GRB.MINIMIZE,
    )
    m.addConstrs((x[i, i, k] == 0 for i in nodes for k in vehicles), name="self")
    m.addConstrs((x.sum(i, "*", "*") == 1 for i in CUSTOMERS), name="serve")
    m.addConstrs((x.sum(o, "*", k) <= 1 for k in vehicles), name="depart_once")
    m.addConstrs((x.sum(h, "*", k) == x.sum("*", h, k) for h in nodes for k in vehicles), name="conserve")
    m.addConstrs(
        (gp.quicksum(DEMAND[i] * x.sum(i, "*", k) for i in CUSTOMERS) <= Q for k in vehicles), name="capacity"
    )
    # departure from the depot and propagation along every arc into a customer
    m.addConstrs((t[o, k] >= a[o] for k in vehicles), name="opens")
    for k in vehicles:
        for i in nodes:
            for j in CUSTOMERS:
                if i != j:
                    big = max(0.0, horizon + s[i] + tt[i, j])
                    m.addConstr(t[j, k] >= t[i, k] + s[i] + tt[i, j] - big * (1 - x[i, j, k]), name=f"prop[{i},{j},{k}]")
    # @omit time_window
    for k in vehicles:
        for i in CUSTOMERS:
            t[i, k].lb = a[i]
            t[i, k].ub = b[i]
            m.addConstr(t[i, k] + s[i] + tt[i, o] <= b[o] + horizon * (1 - x[i, o, k]), name=f"return[{i},{k}]")
    # @end time_window
    m.optimize()
    return m

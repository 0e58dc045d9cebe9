"""Distance-constrained VRP with hard time windows, 3-index: the routing variable is named
"route" in Gurobi (route[i,j,k]) while the Python variable is x. Visits y[i,k] are defined from
the out-arcs; per-vehicle clocks t[i,k] are zero when the vehicle does not visit i and lie in
[a_i, b_i] when it does; per-vehicle route length and load as sums built with LinExpr.addTerms.
Identity node tables node_ids / id2idx / idx2id as the prompt's boilerplate writes them."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (7.05, 29.94), (80.32, 93.36), (88.8, 8.54), (48.62, 48.11), (15.61, 65.26), (84.03, 16.74)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [30.11, 30.11]
Q = 30.11
DEMAND = {1: 8.64, 2: 8.05, 3: 7.67, 4: 3.49, 5: 4.49, 6: 6.75}
WINDOW = {0: (0.0, 500.0), 1: (47.4, 96.95), 2: (130.04, 227.68), 3: (89.11, 156.97), 4: (17.83, 97.4), 5: (146.46, 205.2), 6: (37.58, 146.31)}
SERVICE = {0: 0.0, 1: 4.61, 2: 3.23, 3: 3.6, 4: 3.18, 5: 7.44, 6: 7.11}
MAX_DIST = 275.72
# @data-end


node_ids = [i for i in range(N)]
id2idx = {bid: i for i, bid in enumerate(node_ids)}
idx2id = {i: bid for bid, i in id2idx.items()}


def build_model():
    depot = id2idx[DEPOTS[0]]
    cust = [id2idx[c] for c in CUSTOMERS]
    nodes = list(range(N))
    veh = list(range(K))
    dist = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in nodes for j in nodes}

    m = gp.Model("DCVRPHTW")
    m.setParam("OutputFlag", 0)
    m.setParam("MIPGap", 0)

    x = m.addVars(N, N, K, vtype=GRB.BINARY, name="route")
    y = m.addVars(cust, veh, vtype=GRB.BINARY, name="visit")
    t = m.addVars(cust, veh, lb=0.0, name="t")

    obj = gp.LinExpr()
    for i in nodes:
        for j in nodes:
            for k in veh:
                obj.addTerms(UNIT_COST[k] * dist[i, j], x[i, j, k])
    m.setObjective(obj, GRB.MINIMIZE)

    for i in nodes:
        for k in veh:
            m.addConstr(x[i, i, k] == 0)
    for j in cust:
        m.addConstr(y.sum(j, "*") == 1, name=f"served[{j}]")
        for k in veh:
            m.addConstr(x.sum(j, "*", k) == y[j, k], name=f"out[{j},{k}]")
            m.addConstr(x.sum("*", j, k) == y[j, k], name=f"in[{j},{k}]")
    for k in veh:
        m.addConstr(x.sum(depot, "*", k) <= 1, name=f"leave[{k}]")
        m.addConstr(x.sum(depot, "*", k) == x.sum("*", depot, k), name=f"back[{k}]")

        # @omit capacity
        load = gp.LinExpr()
        for j in cust:
            load.addTerms(DEMAND[j], y[j, k])
        m.addConstr(load <= Q, name=f"capacity[{k}]")
        # @end capacity

        # @omit distance
        length = gp.LinExpr()
        for i in nodes:
            for j in nodes:
                length.addTerms(dist[i, j], x[i, j, k])
        m.addConstr(length <= MAX_DIST, name=f"max_dist[{k}]")
        # @end distance

    horizon = max(b for _, b in WINDOW.values()) + sum(SERVICE.values()) + N * max(dist.values())
    late_end = {j: horizon for j in cust}
    back_by = horizon
    # @omit time_window
    late_end = {j: WINDOW[j][1] for j in cust}
    back_by = WINDOW[depot][1]
    # @end time_window
    big = 2 * horizon
    for k in veh:
        for j in cust:
            m.addConstr(t[j, k] >= WINDOW[j][0] * y[j, k], name=f"open[{j},{k}]")
            m.addConstr(t[j, k] <= late_end[j] * y[j, k], name=f"close[{j},{k}]")
            m.addConstr(t[j, k] >= WINDOW[depot][0] + dist[depot, j] - big * (1 - x[depot, j, k]))
            m.addConstr(t[j, k] + SERVICE[j] + dist[j, depot] <= back_by + big * (1 - x[j, depot, k]))
            for i in cust:
                if i != j:
                    m.addConstr(t[j, k] >= t[i, k] + SERVICE[i] + dist[i, j] - big * (1 - x[i, j, k]))

    m.optimize()
    return m

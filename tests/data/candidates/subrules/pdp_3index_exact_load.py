"""Pickup and delivery, 3-index x[i,j,k]: y[i,k] assigns nodes to vehicles, the load on board
after each node is propagated exactly along used arcs (equal, not just at least) and kept within
[0, Q], ranks grow along arcs (no subtours). Pairing (one vehicle for both nodes of a request) and
precedence (the pickup's rank below its delivery's) are written apart from the load."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (5.16, 12.04), (40.15, 32.97), (59.68, 44.95), (70.28, 92.79), (45.67, 20.78), (83.99, 77.76)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [11.33, 11.33]
Q = 11.33
PAIRS = [(2, 1, 7.07), (3, 4, 5.75), (5, 6, 1.58)]
# @data-end


def build_model():
    depot = DEPOTS[0]
    nodes = range(N)
    fleet = range(K)
    n = len(CUSTOMERS)
    step = {}
    for pickup, delivery, amount in PAIRS:
        step[pickup], step[delivery] = amount, -amount
    span = Q + max(abs(v) for v in step.values())

    m = gp.Model("pdp_exact_load")
    m.Params.OutputFlag = 0
    x = m.addVars(nodes, nodes, fleet, vtype=GRB.BINARY, name="x")
    y = m.addVars(CUSTOMERS, fleet, vtype=GRB.BINARY, name="y")
    load = m.addVars(CUSTOMERS, lb=0.0, ub=Q, name="load")
    rank = m.addVars(CUSTOMERS, lb=1.0, ub=n, name="rank")
    for i in nodes:
        for k in fleet:
            x[i, i, k].UB = 0.0
    m.setObjective(
        gp.quicksum(UNIT_COST[k] * math.dist(COORDS[i], COORDS[j]) * x[i, j, k] for i in nodes for j in nodes for k in fleet),
        GRB.MINIMIZE,
    )

    for c in CUSTOMERS:
        m.addConstr(y.sum(c, "*") == 1, name=f"once[{c}]")
        for k in fleet:
            m.addConstr(x.sum("*", c, k) == y[c, k], name=f"in[{c},{k}]")
            m.addConstr(x.sum(c, "*", k) == y[c, k], name=f"out[{c},{k}]")
    for k in fleet:
        m.addConstr(x.sum(depot, "*", k) <= 1, name=f"start[{k}]")
        m.addConstr(x.sum("*", depot, k) == x.sum(depot, "*", k), name=f"end[{k}]")

    for j in CUSTOMERS:
        first = x.sum(depot, j, "*")
        m.addConstr(load[j] >= step[j] - span * (1 - first), name=f"first_lo[{j}]")
        m.addConstr(load[j] <= step[j] + span * (1 - first), name=f"first_hi[{j}]")
        for i in CUSTOMERS:
            if i == j:
                continue
            used = x.sum(i, j, "*")
            m.addConstr(load[j] >= load[i] + step[j] - 2 * span * (1 - used), name=f"load_lo[{i},{j}]")
            m.addConstr(load[j] <= load[i] + step[j] + 2 * span * (1 - used), name=f"load_hi[{i},{j}]")
            m.addConstr(rank[j] >= rank[i] + 1 - n * (1 - used), name=f"rank[{i},{j}]")

    # @omit pairing
    for pickup, delivery, _ in PAIRS:
        for k in fleet:
            m.addConstr(y[pickup, k] == y[delivery, k], name=f"pair[{pickup},{k}]")
    # @end pairing
    # @omit precedence
    for pickup, delivery, _ in PAIRS:
        m.addConstr(rank[delivery] >= rank[pickup] + 1, name=f"before[{pickup}]")
    # @end precedence

    m.optimize()
    return m

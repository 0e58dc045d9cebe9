"""Pickup and delivery VRP, 3-index x[i,j,k] held in a dict of binaries added one at a time (no
loops). Each vehicle numbers its stops (stop[i,k]) and tracks what it carries (carry[i,k]) through
indicator constraints on its own arcs; a request's two nodes get the same vehicle (equal visit
counts per vehicle) and, on every vehicle, the delivery's stop number exceeds the pickup's. The
vehicle leaves the depot empty."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
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
    nodes = list(range(N))
    trucks = list(range(K))
    n = len(CUSTOMERS)
    delta = {}
    for p, d, qty in PAIRS:
        delta[p] = qty
        delta[d] = -qty
    picked = sum(qty for _, _, qty in PAIRS)

    m = gp.Model("pdp")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0

    x = {}
    for k in trucks:
        for i in nodes:
            for j in nodes:
                if i != j:
                    x[i, j, k] = m.addVar(vtype=GRB.BINARY, name=f"x[{i},{j},{k}]")
    stop = {(i, k): m.addVar(lb=0.0, ub=n, name=f"stop[{i},{k}]") for i in CUSTOMERS for k in trucks}
    limit = picked
    # @omit capacity
    limit = Q
    # @end capacity
    carry = {(i, k): m.addVar(lb=0.0, ub=limit, name=f"carry[{i},{k}]") for i in CUSTOMERS for k in trucks}

    m.setObjective(
        gp.quicksum(UNIT_COST[k] * math.dist(COORDS[i], COORDS[j]) * v for (i, j, k), v in x.items()), GRB.MINIMIZE
    )

    def visits(i, k):
        return gp.quicksum(x[i, j, k] for j in nodes if j != i)

    for c in CUSTOMERS:
        m.addConstr(gp.quicksum(visits(c, k) for k in trucks) == 1, name=f"served[{c}]")
    for k in trucks:
        for i in nodes:
            m.addConstr(
                gp.quicksum(x[j, i, k] for j in nodes if j != i) == visits(i, k), name=f"through[{i},{k}]"
            )
        m.addConstr(visits(depot, k) <= 1, name=f"one_trip[{k}]")

    for k in trucks:
        for j in CUSTOMERS:
            m.addGenConstrIndicator(x[depot, j, k], True, stop[j, k] >= 1, name=f"first_stop[{j},{k}]")
            m.addGenConstrIndicator(x[depot, j, k], True, carry[j, k] >= delta[j], name=f"first_load[{j},{k}]")
            for i in CUSTOMERS:
                if i != j:
                    m.addGenConstrIndicator(
                        x[i, j, k], True, stop[j, k] - stop[i, k] >= 1, name=f"next_stop[{i},{j},{k}]"
                    )
                    m.addGenConstrIndicator(
                        x[i, j, k], True, carry[j, k] - carry[i, k] >= delta[j], name=f"next_load[{i},{j},{k}]"
                    )

    # @omit pairing
    for p, d, _ in PAIRS:
        for k in trucks:
            m.addConstr(visits(p, k) == visits(d, k), name=f"same_truck[{p},{d},{k}]")
    # @end pairing
    # @omit precedence
    for p, d, _ in PAIRS:
        for k in trucks:
            m.addConstr(stop[d, k] >= stop[p, k] + 1, name=f"pickup_first[{p},{d},{k}]")
    # @end precedence

    m.optimize()
    return m

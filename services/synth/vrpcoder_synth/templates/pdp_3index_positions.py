"""Pickup and delivery VRP, 3-index x[i,j,k]: pairing by equal per-vehicle visits of a request's
two nodes, precedence by route positions (MTZ) with pos[delivery] >= pos[pickup] + 1, on-board
load labels with big-M for the capacity. Vehicles start empty at the depot."""

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
    o = DEPOTS[0]
    V = range(N)
    R = range(K)
    n = len(CUSTOMERS)
    change = {}
    for p, q, amount in PAIRS:
        change[p] = amount
        change[q] = -amount
    c = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in V for j in V}

    m = gp.Model("pdp")
    m.Params.OutputFlag = 0
    x = m.addVars(V, V, R, vtype=GRB.BINARY, name="x")
    pos = m.addVars(CUSTOMERS, lb=1, ub=n, name="pos")
    carried = sum(amount for _, _, amount in PAIRS)
    onboard = m.addVars(CUSTOMERS, lb=0.0, ub=carried, name="onboard")
    # @omit capacity
    for j in CUSTOMERS:
        onboard[j].UB = Q
    # @end capacity

    m.setObjective(gp.quicksum(UNIT_COST[k] * c[i, j] * x[i, j, k] for i in V for j in V for k in R if i != j), GRB.MINIMIZE)
    m.addConstrs((x[i, i, k] == 0 for i in V for k in R))
    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="visit")
    m.addConstrs((x.sum(i, "*", k) == x.sum("*", i, k) for i in V for k in R), name="flow")
    m.addConstrs((x.sum(o, "*", k) <= 1 for k in R), name="route")

    arc = {(i, j): x.sum(i, j, "*") for i in V for j in V if i != j}
    # @omit subtour
    m.addConstrs((pos[i] - pos[j] + n * arc[i, j] <= n - 1 for i in CUSTOMERS for j in CUSTOMERS if i != j), name="mtz")
    # @end subtour
    # @omit pairing
    m.addConstrs((x.sum(p, "*", k) == x.sum(q, "*", k) for p, q, _ in PAIRS for k in R), name="same_vehicle")
    # @end pairing
    # @omit precedence
    m.addConstrs((pos[q] >= pos[p] + 1 for p, q, _ in PAIRS), name="pickup_first")
    # @end precedence
    # on-board load after each stop: starts at the first stop's change, then accumulates
    big = 2 * max(Q, carried) + sum(abs(v) for v in change.values())
    m.addConstrs((onboard[j] >= change[j] - big * (1 - arc[o, j]) for j in CUSTOMERS), name="first_load")
    m.addConstrs(
        (onboard[j] >= onboard[i] + change[j] - big * (1 - arc[i, j]) for i in CUSTOMERS for j in CUSTOMERS if i != j),
        name="load",
    )
    m.optimize()
    return m

"""Heterogeneous multi-compartment VRP, 3-index x[i,j,k] on a tuplelist of arcs (no loops):
per-vehicle, per-compartment knapsacks written with x.prod(coefficient dict), the total load
bounded by the vehicle's capacity as well, and subtours cut by per-vehicle position variables
(MTZ with the vehicle's own arcs). Costs: fixed per used vehicle + vehicle rate times distance."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (9.47, 33.93), (33.72, 91.48), (85.88, 30.59), (81.91, 20.28), (25.84, 21.92), (63.66, 56.42)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [44.61, 54.26]
UNIT_COST = [0.93, 1.07]
CAPACITY = [30.0, 50.0]
DEMAND = {1: 3.15, 2: 6.49, 3: 9.32, 4: 4.56, 5: 5.71, 6: 5.24}
COMP_DEMAND = {1: (0.58, 2.57), 2: (2.39, 4.1), 3: (4.92, 4.4), 4: (2.84, 1.72), 5: (3.27, 2.44), 6: (0.81, 4.43)}
COMP_CAP = [(16.34, 13.66), (23.19, 26.81)]
# @data-end


def build_model():
    depot = DEPOTS[0]
    n = len(CUSTOMERS)
    C = range(len(COMP_CAP[0]))
    arcs = gp.tuplelist(
        (i, j, k) for k in range(K) for i in range(N) for j in range(N) if i != j and not (i in DEPOTS and j in DEPOTS)
    )
    length = {(i, j): math.dist(COORDS[i], COORDS[j]) for i in range(N) for j in range(N)}
    cost = {(i, j, k): UNIT_COST[k] * length[i, j] + (FIXED_COST[k] if i == depot else 0.0) for i, j, k in arcs}

    m = gp.Model("hfmcvrp")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0.0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    pos = m.addVars(CUSTOMERS, range(K), lb=0.0, ub=n, name="pos")
    m.setObjective(x.prod(cost), GRB.MINIMIZE)

    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="in_once")
    m.addConstrs((x.sum(i, "*", k) - x.sum("*", i, k) == 0 for i in range(N) for k in range(K)), name="conserve")
    m.addConstrs((x.sum(depot, "*", k) <= 1 for k in range(K)), name="single_trip")

    for k in range(K):
        # @omit compartment
        for c in C:
            coeff = {(i, j, k): COMP_DEMAND[j][c] for i, j, kk in arcs.select("*", "*", k) if j in CUSTOMERS}
            m.addConstr(x.prod(coeff) <= COMP_CAP[k][c], name=f"room[{k},{c}]")
        # @end compartment
        # @omit capacity
        total = {(i, j, k): DEMAND[j] for i, j, kk in arcs.select("*", "*", k) if j in CUSTOMERS}
        m.addConstr(x.prod(total) <= CAPACITY[k], name=f"cap[{k}]")
        # @end capacity

    # @omit subtour
    m.addConstrs(
        (pos[i, k] - pos[j, k] + 1 <= n * (1 - x[i, j, k]) for i in CUSTOMERS for j in CUSTOMERS if i != j for k in range(K)),
        name="mtz",
    )
    # @end subtour

    m.optimize()
    return m

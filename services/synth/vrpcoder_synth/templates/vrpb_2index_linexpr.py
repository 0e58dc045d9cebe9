"""VRP with backhauls on a 2-index x[i,j] whose key list leaves out loops and every
backhaul -> linehaul arc and every depot -> backhaul arc (that is how "deliveries before pickups"
and "every route starts with a delivery" are modelled). Rows are built as
LinExpr objects in loops; two MTZ load chains (delivered goods over linehaul customers, collected
goods over backhaul customers) bound each load by Q and break subtours inside either group; a
mixed cycle would need a backhaul -> linehaul arc, which does not exist."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (63.03, 72.01), (86.33, 90.71), (16.64, 17.72), (15.26, 87.99), (71.34, 57.99), (41.62, 36.57)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [21.56, 21.56]
Q = 21.56
DEMAND = {1: 8.05, 2: 9.11, 3: 2.81, 4: 8.05, 5: 6.58, 6: 5.87}
LINEHAUL = [2, 3, 4, 5, 6]
BACKHAUL = [1]
# @data-end


def build_model():
    depot = DEPOTS[0]
    L = list(LINEHAUL)
    B = list(BACKHAUL)
    nodes = list(range(N))
    arcs = [(i, j) for i in nodes for j in nodes if i != j]
    # @omit backhaul
    # deliveries before pickups, and every route starts with a delivery (none serves backhauls only)
    arcs = [(i, j) for (i, j) in arcs if not (i in B and j in L) and not (i == depot and j in B)]
    # @end backhaul

    m = gp.Model("vrpb")
    m.Params.OutputFlag = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    dl = m.addVars(L, name="delivered")
    pb = m.addVars(B, name="collected")
    room = sum(DEMAND.values())
    # @omit capacity
    room = Q
    # @end capacity
    for i in L:
        dl[i].LB, dl[i].UB = DEMAND[i], room
    for i in B:
        pb[i].LB, pb[i].UB = DEMAND[i], room

    objective = gp.LinExpr()
    for i, j in arcs:
        objective += UNIT_COST[0] * math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) * x[i, j]
    m.setObjective(objective, GRB.MINIMIZE)

    for c in CUSTOMERS:
        into = gp.LinExpr()
        out = gp.LinExpr()
        for i, j in arcs:
            if j == c:
                into += x[i, j]
            if i == c:
                out += x[i, j]
        m.addConstr(into == 1, name=f"into[{c}]")
        m.addConstr(out == 1, name=f"out[{c}]")
    leaving = gp.LinExpr()
    for i, j in arcs:
        if i == depot:
            leaving += x[i, j]
    m.addConstr(leaving <= K, name="fleet")

    # delivered goods grow along linehaul arcs, collected goods along backhaul arcs
    for i in L:
        for j in L:
            if i != j:
                m.addConstr(dl[j] >= dl[i] + DEMAND[j] - room * (1 - x[i, j]), name=f"lh[{i},{j}]")
    for i in B:
        for j in B:
            if i != j:
                m.addConstr(pb[j] >= pb[i] + DEMAND[j] - room * (1 - x[i, j]), name=f"bh[{i},{j}]")
    m.optimize()
    return m

"""Heterogeneous fleet VRP on a 2-index x[i,j] plus a vehicle assignment y[i,k]. Each arc's
"ownership" is split over vehicles, z[i,j,k] (sum_k z = x, z only on the vehicle of its customer
end), which prices it at that vehicle's rate; the fixed cost is counted on the depot-leaving arcs
through start[j,k] (route to j opened by vehicle k). Loads are MTZ labels u[i] in [d_i, Q_k(i)]:
the bound is the capacity of the vehicle the customer rides on, sum_k Q_k y[i,k]."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (68.96, 85.21), (47.2, 53.72), (15.72, 65.76), (50.53, 61.55), (87.97, 56.34), (85.0, 21.32)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [59.56, 35.79]
UNIT_COST = [1.2, 1.0]
CAPACITY = [46.17, 29.76]
DEMAND = {1: 8.39, 2: 3.27, 3: 9.6, 4: 5.54, 5: 8.13, 6: 8.08}
# @data-end



def build_model():
    dep = DEPOTS[0]
    nodes = range(N)
    fleet = range(K)
    arcs = [(i, j) for i in nodes for j in nodes if i != j]
    dist = {(i, j): math.dist(COORDS[i], COORDS[j]) for (i, j) in arcs}
    total = sum(DEMAND.values())

    m = gp.Model("hfvrp_2index")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0

    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    y = m.addVars(CUSTOMERS, fleet, vtype=GRB.BINARY, name="y")
    start = m.addVars(CUSTOMERS, fleet, vtype=GRB.BINARY, name="start")
    z = m.addVars(arcs, fleet, lb=0.0, ub=1.0, name="z")
    u = m.addVars(CUSTOMERS, lb=0.0, ub=total, name="u")

    m.setObjective(
        gp.quicksum(FIXED_COST[k] * start[j, k] for j in CUSTOMERS for k in fleet)
        + gp.quicksum(UNIT_COST[k] * dist[i, j] * z[i, j, k] for (i, j) in arcs for k in fleet),
        GRB.MINIMIZE,
    )

    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="out")
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="in")
    m.addConstr(x.sum(dep, "*") == x.sum("*", dep), name="depot")

    m.addConstrs((y.sum(j, "*") == 1 for j in CUSTOMERS), name="assign")
    for (i, j) in arcs:
        if i != dep and j != dep:
            for k in fleet:
                m.addConstr(y[i, k] - y[j, k] <= 1 - x[i, j], name=f"same_a[{i},{j},{k}]")
                m.addConstr(y[j, k] - y[i, k] <= 1 - x[i, j], name=f"same_b[{i},{j},{k}]")
    # each depot-leaving arc opens the route of the vehicle its customer is assigned to
    for j in CUSTOMERS:
        m.addConstr(start.sum(j, "*") == x[dep, j], name=f"opened[{j}]")
        for k in fleet:
            m.addConstr(start[j, k] <= y[j, k], name=f"opener[{j},{k}]")
    m.addConstrs((start.sum("*", k) <= 1 for k in fleet), name="one_route")

    # arc ownership
    m.addConstrs((z.sum(i, j, "*") == x[i, j] for (i, j) in arcs), name="own")
    for (i, j) in arcs:
        for k in fleet:
            if i != dep:
                m.addConstr(z[i, j, k] <= y[i, k])
            if j != dep:
                m.addConstr(z[i, j, k] <= y[j, k])

    # MTZ loads
    for j in CUSTOMERS:
        u[j].LB = DEMAND[j]
        # @omit capacity
        m.addConstr(u[j] <= gp.quicksum(CAPACITY[k] * y[j, k] for k in fleet), name=f"cap[{j}]")
        # @end capacity
    for (i, j) in arcs:
        if i != dep and j != dep:
            m.addConstr(u[j] >= u[i] + DEMAND[j] - total * (1 - x[i, j]), name=f"mtz[{i},{j}]")

    m.optimize()
    return m

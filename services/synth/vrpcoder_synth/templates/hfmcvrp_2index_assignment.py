"""Heterogeneous multi-compartment VRP on a 2-index x[i,j] with a separate assignment variable
y[i,k] (customer i rides on vehicle k). Consecutive customers share their vehicle; a route's first
customer names the vehicle that starts it (start[j,k] = x[0,j] AND y[j,k]), each vehicle starts at
most one route; compartment and total loads are knapsacks over y; the per-distance rate of an arc
is charged through w[i,j,k] >= x[i,j] + y[.,k] - 1. Subtours are cut by MTZ orders on x."""

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
    o = DEPOTS[0]
    n = len(CUSTOMERS)
    V = range(N)
    R = range(K)
    rooms = range(len(COMP_CAP[0]))
    arcs = [(i, j) for i in V for j in V if i != j]
    d = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i, j in arcs}

    m = gp.Model("hfmcvrp_2idx")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    y = m.addVars(CUSTOMERS, R, vtype=GRB.BINARY, name="y")
    start = m.addVars(CUSTOMERS, R, vtype=GRB.BINARY, name="start")
    used = m.addVars(R, vtype=GRB.BINARY, name="used")
    w = m.addVars(arcs, R, lb=0.0, ub=1.0, name="w")  # arc (i,j) driven by vehicle k
    rank = m.addVars(CUSTOMERS, lb=1, ub=n, name="rank")

    m.setObjective(
        gp.quicksum(FIXED_COST[k] * used[k] for k in R)
        + gp.quicksum(UNIT_COST[k] * d[i, j] * w[i, j, k] for (i, j) in arcs for k in R),
        GRB.MINIMIZE,
    )
    # degree
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="indeg")
    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="outdeg")
    m.addConstr(x.sum(o, "*") == x.sum("*", o), name="depot_balance")
    # assignment
    m.addConstrs((y.sum(j, "*") == 1 for j in CUSTOMERS), name="assign")
    for i in CUSTOMERS:
        for j in CUSTOMERS:
            if i != j:
                for k in R:
                    m.addConstr(y[j, k] >= y[i, k] + x[i, j] - 1, name=f"same_fwd[{i},{j},{k}]")
                    m.addConstr(y[i, k] >= y[j, k] + x[i, j] - 1, name=f"same_bwd[{i},{j},{k}]")
    # a route's vehicle is the vehicle of its first customer; one route per vehicle
    for j in CUSTOMERS:
        for k in R:
            m.addConstr(start[j, k] <= x[o, j])
            m.addConstr(start[j, k] <= y[j, k])
            m.addConstr(start[j, k] >= x[o, j] + y[j, k] - 1)
    m.addConstrs((start.sum("*", k) == used[k] for k in R), name="one_route")
    m.addConstrs((y[j, k] <= used[k] for j in CUSTOMERS for k in R), name="used_if_assigned")
    # vehicle-dependent travel cost
    for (i, j) in arcs:
        owner = i if i in CUSTOMERS else j
        if owner in CUSTOMERS:
            for k in R:
                m.addConstr(w[i, j, k] >= x[i, j] + y[owner, k] - 1, name=f"rate[{i},{j},{k}]")
    # loads
    for k in R:
        # @omit compartment
        for c in rooms:
            m.addConstr(gp.quicksum(COMP_DEMAND[j][c] * y[j, k] for j in CUSTOMERS) <= COMP_CAP[k][c], name=f"room[{k},{c}]")
        # @end compartment
        # @omit capacity
        m.addConstr(gp.quicksum(DEMAND[j] * y[j, k] for j in CUSTOMERS) <= CAPACITY[k], name=f"cap[{k}]")
        # @end capacity
    # @omit subtour
    m.addConstrs((rank[i] - rank[j] + n * x[i, j] <= n - 1 for i in CUSTOMERS for j in CUSTOMERS if i != j), name="mtz")
    # @end subtour

    m.optimize()
    return m

"""Open VRP with hard time windows, 3-index x[i,j,k] with the vehicles numbered 1..K (as a
statement's "vehicle 1, vehicle 2, ..."), arcs among the depot and the customers but none into the
depot. Where a route stops is a separate binary end[j,k] (the arc into a dummy sink, kept out of x):
every vehicle that leaves the depot ends exactly once, at a customer it visits. Per-node service
starts with big-M propagation over the aggregated arcs and the windows as bounds; per-vehicle load
knapsacks; the dummy-sink flow keeps every vehicle's arcs a single path out of the depot only
together with the time labels (which also rule out customer-only cycles)."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (43.23, 38.23), (50.96, 23.15), (88.7, 15.1), (34.73, 51.02), (71.49, 50.77), (16.07, 42.62)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [25.13, 25.13]
Q = 25.13
DEMAND = {1: 2.65, 2: 7.2, 3: 5.97, 4: 5.57, 5: 8.39, 6: 3.07}
WINDOW = {0: (0.0, 500.0), 1: (3.57, 101.21), 2: (36.61, 102.25), 3: (56.5, 93.33), 4: (25.02, 72.87), 5: (11.5, 69.41), 6: (79.21, 178.2)}
SERVICE = {0: 0.0, 1: 6.09, 2: 6.33, 3: 7.22, 4: 3.93, 5: 5.4, 6: 2.29}
# @data-end


def build_model():
    depot = DEPOTS[0]
    vehicles = range(1, K + 1)  # vehicle v is the statement's "vehicle v"
    arcs = [(i, j) for i in range(N) for j in CUSTOMERS if i != j]
    d = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in range(N) for j in range(N)}
    # no service on any route starts after this, windows or not
    horizon = max(w[0] for w in WINDOW.values()) + sum(SERVICE[i] + max(d[i, j] for j in range(N)) for i in range(N))
    bigM = horizon + max(SERVICE.values()) + max(d.values())

    m = gp.Model("ovrphtw")
    m.Params.OutputFlag = 0
    m.Params.TimeLimit = 60
    m.Params.MIPGap = 0
    x = m.addVars([(i, j, v) for i, j in arcs for v in vehicles], vtype=GRB.BINARY, name="x")
    end = m.addVars(CUSTOMERS, vehicles, vtype=GRB.BINARY, name="end")
    start = m.addVars(CUSTOMERS, lb=0.0, ub=horizon, name="start")

    m.setObjective(
        gp.quicksum(UNIT_COST[v - 1] * d[i, j] * x[i, j, v] for i, j in arcs for v in vehicles), GRB.MINIMIZE
    )
    for j in CUSTOMERS:
        m.addConstr(x.sum("*", j, "*") == 1, name=f"visit[{j}]")
    for v in vehicles:
        m.addConstr(x.sum(depot, "*", v) <= 1, name=f"dispatch[{v}]")
        m.addConstr(end.sum("*", v) == x.sum(depot, "*", v), name=f"finish[{v}]")
        for j in CUSTOMERS:
            # what comes in goes on, to another customer or to the sink
            m.addConstr(x.sum("*", j, v) == x.sum(j, "*", v) + end[j, v], name=f"pass[{j},{v}]")
    # @omit capacity
    for v in vehicles:
        m.addConstr(gp.quicksum(DEMAND[j] * x.sum("*", j, v) for j in CUSTOMERS) <= CAPACITY[v - 1], name=f"cap[{v}]")
    # @end capacity

    t0 = WINDOW[depot][0] if depot in WINDOW else 0.0
    for j in CUSTOMERS:
        m.addConstr(start[j] >= t0 + d[depot, j] - bigM * (1 - x.sum(depot, j, "*")), name=f"t_first[{j}]")
        for i in CUSTOMERS:
            if i != j:
                m.addConstr(
                    start[j] >= start[i] + SERVICE[i] + d[i, j] - bigM * (1 - x.sum(i, j, "*")), name=f"t[{i},{j}]"
                )
    # @omit time_window
    for j in CUSTOMERS:
        if j in WINDOW:
            m.addConstr(start[j] >= WINDOW[j][0], name=f"open[{j}]")
            m.addConstr(start[j] <= WINDOW[j][1], name=f"close[{j}]")
    # @end time_window
    m.optimize()
    return m

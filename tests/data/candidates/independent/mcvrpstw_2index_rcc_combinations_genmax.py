"""Multi-compartment VRP with soft time windows on a 2-index x[i,j]. Capacity, compartments and
subtours are all handled by rounded capacity inequalities enumerated upfront over every customer
subset with itertools.combinations (fine at 6-7 customers): the arcs inside S are at most
|S| - r(S), r(S) the most vehicles S needs for its total or any compartment (at least one).
Service starts propagate by big-M with no horizon; lateness late[j] = max(start[j] - b_j, 0) by
addGenConstrMax on a free auxiliary variable, charged at the customer's penalty."""

import itertools
import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (40.49, 19.22), (79.48, 47.13), (43.02, 20.61), (85.57, 55.78), (73.69, 59.64), (45.71, 40.98)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [26.81, 26.81]
Q = 26.81
DEMAND = {1: 4.92, 2: 1.65, 3: 4.92, 4: 10.82, 5: 8.78, 6: 3.56}
COMP_DEMAND = {1: (0.13, 4.79), 2: (0.71, 0.94), 3: (4.56, 0.36), 4: (5.99, 4.83), 5: (4.0, 4.78), 6: (0.85, 2.71)}
COMP_CAP = [(14.53, 12.28), (14.53, 12.28)]
WINDOW = {0: (0.0, 500.0), 1: (36.1, 97.73), 2: (48.45, 115.65), 3: (49.54, 147.53), 4: (66.55, 156.28), 5: (23.47, 141.03), 6: (0.0, 128.11)}
SERVICE = {0: 0.0, 1: 6.48, 2: 5.34, 3: 3.57, 4: 2.89, 5: 7.36, 6: 4.93}
LATE_PENALTY = {1: 1.43, 2: 1.91, 3: 1.66, 4: 1.47, 5: 0.53, 6: 1.46}
# @data-end



def needed_vehicles(S):
    """Lower bound on the number of vehicles that must serve the customers S."""
    r = 1
    # @omit capacity
    r = max(r, math.ceil(round(sum(DEMAND[i] for i in S) / Q, 9)))
    # @end capacity
    # @omit compartment
    for c in range(len(COMP_CAP[0])):
        r = max(r, math.ceil(round(sum(COMP_DEMAND[i][c] for i in S) / COMP_CAP[0][c], 9)))
    # @end compartment
    return r


def build_model():
    depot = DEPOTS[0]
    nodes = list(range(N))
    arcs = [(i, j) for i in nodes for j in nodes if i != j]
    c = {(i, j): math.sqrt((COORDS[i][0] - COORDS[j][0]) ** 2 + (COORDS[i][1] - COORDS[j][1]) ** 2) for i, j in arcs}

    m = gp.Model("MCVRPSTW")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0

    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    start = m.addVars(CUSTOMERS, lb=0.0, name="start")
    excess = m.addVars(CUSTOMERS, lb=-GRB.INFINITY, name="excess")
    late = m.addVars(CUSTOMERS, lb=0.0, name="late")

    m.setObjective(
        gp.quicksum(UNIT_COST[0] * c[a] * x[a] for a in arcs)
        + gp.quicksum(LATE_PENALTY[j] * late[j] for j in CUSTOMERS),
        GRB.MINIMIZE,
    )

    for j in CUSTOMERS:
        m.addConstr(gp.quicksum(x[i, j] for i in nodes if i != j) == 1, name=f"in_{j}")
        m.addConstr(gp.quicksum(x[j, i] for i in nodes if i != j) == 1, name=f"out_{j}")
    m.addConstr(gp.quicksum(x[depot, j] for j in CUSTOMERS) <= K, name="vehicles")
    m.addConstr(
        gp.quicksum(x[depot, j] for j in CUSTOMERS) == gp.quicksum(x[j, depot] for j in CUSTOMERS), name="returns"
    )

    for size in range(2, len(CUSTOMERS) + 1):
        for S in itertools.combinations(CUSTOMERS, size):
            inside = gp.quicksum(x[i, j] for i in S for j in S if i != j)
            m.addConstr(inside <= len(S) - needed_vehicles(S), name="rci_" + "_".join(map(str, S)))

    # times: no hard horizon, so M covers any earliest schedule
    big = max(a for a, _ in WINDOW.values()) + sum(SERVICE.values()) + (len(CUSTOMERS) + 1) * max(c.values())
    t0 = WINDOW[depot][0]
    for j in CUSTOMERS:
        m.addConstr(start[j] >= WINDOW[j][0], name=f"ready_{j}")
        m.addConstr(start[j] >= t0 + c[depot, j] - big * (1 - x[depot, j]), name=f"first_{j}")
        for i in CUSTOMERS:
            if i != j:
                m.addConstr(start[j] >= start[i] + SERVICE[i] + c[i, j] - big * (1 - x[i, j]), name=f"seq_{i}_{j}")
        m.addConstr(excess[j] == start[j] - WINDOW[j][1], name=f"excess_{j}")
        m.addGenConstrMax(late[j], [excess[j]], constant=0.0, name=f"late_{j}")

    m.optimize()
    return m

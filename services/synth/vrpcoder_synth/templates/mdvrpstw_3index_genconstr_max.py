"""Multi-depot VRP with soft time windows: 3-index x[i,j,k] over a sparse arc list (each vehicle
only touches its own depot), one service start per customer with big-M propagation, and the
lateness written as a general constraint late[j] = max(start[j] - b_j, 0) (gp.max_). The model is
built in a gp.Env created from a parameter dict. No hard horizon: waiting is free, late service
costs its penalty per time unit."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 8
DEPOTS = [0, 1]
CUSTOMERS = [2, 3, 4, 5, 6, 7]
COORDS = [(25.0, 50.0), (75.0, 50.0), (52.97, 66.68), (7.49, 31.59), (30.41, 39.5), (8.17, 12.92), (10.89, 39.19), (23.61, 92.63)]
K = 2
VEHICLE_DEPOT = [0, 1]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [23.5, 23.5]
Q = 23.5
DEMAND = {2: 8.7, 3: 3.31, 4: 7.38, 5: 7.22, 6: 5.2, 7: 4.62}
WINDOW = {0: (0.0, 500.0), 1: (0.0, 500.0), 2: (22.05, 82.63), 3: (18.76, 72.89), 4: (12.8, 140.44), 5: (90.77, 182.0), 6: (34.44, 114.62), 7: (76.08, 144.08)}
SERVICE = {0: 0.0, 1: 0.0, 2: 5.39, 3: 2.72, 4: 5.75, 5: 6.96, 6: 2.55, 7: 4.72}
LATE_PENALTY = {2: 1.02, 3: 1.98, 4: 1.4, 5: 0.51, 6: 0.73, 7: 1.3}
# @data-end


def build_model():
    env = gp.Env(params={"OutputFlag": 0, "MIPGap": 0.0, "IntFeasTol": 1e-9})
    m = gp.Model("mdvrpstw", env=env)

    dist = {}
    for i in range(N):
        for j in range(N):
            dist[i, j] = math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])
    arcs = []
    for k in range(K):
        mine = [VEHICLE_DEPOT[k]] + CUSTOMERS
        arcs += [(i, j, k) for i in mine for j in mine if i != j]
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")

    horizon = max(w[0] for w in WINDOW.values()) + sum(SERVICE.values()) + len(CUSTOMERS) * max(dist.values())
    start = m.addVars(CUSTOMERS, lb=0.0, ub=horizon, name="start")
    over = m.addVars(CUSTOMERS, lb=-GRB.INFINITY, name="over")
    late = m.addVars(CUSTOMERS, lb=0.0, name="late")

    m.setObjective(
        gp.quicksum(UNIT_COST[k] * dist[i, j] * x[i, j, k] for i, j, k in arcs)
        + gp.quicksum(FIXED_COST[k] * x.sum(VEHICLE_DEPOT[k], "*", k) for k in range(K))
        + gp.quicksum(LATE_PENALTY[j] * late[j] for j in CUSTOMERS),
        GRB.MINIMIZE,
    )
    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="once")
    m.addConstrs((x.sum(h, "*", k) == x.sum("*", h, k) for k in range(K) for h in [VEHICLE_DEPOT[k]] + CUSTOMERS), name="bal")
    m.addConstrs((x.sum(VEHICLE_DEPOT[k], "*", k) <= 1 for k in range(K)), name="trip")
    # @omit capacity
    m.addConstrs((gp.quicksum(DEMAND[j] * x[i, j, kk] for i, j, kk in arcs if kk == k and j in CUSTOMERS) <= CAPACITY[k] for k in range(K)), name="cap")
    # @end capacity

    for k in range(K):
        d = VEHICLE_DEPOT[k]
        for j in CUSTOMERS:
            m.addConstr(start[j] >= WINDOW[d][0] + dist[d, j] - horizon * (1 - x[d, j, k]), name=f"first[{j},{k}]")
    for j in CUSTOMERS:
        start[j].LB = WINDOW[j][0]
        for i in CUSTOMERS:
            if i != j:
                bigm = horizon + SERVICE[i] + dist[i, j]
                m.addConstr(
                    start[j] >= start[i] + SERVICE[i] + dist[i, j] - bigm * (1 - x.sum(i, j, "*")), name=f"prop[{i},{j}]"
                )
    # @omit late_penalty
    for j in CUSTOMERS:
        m.addConstr(over[j] == start[j] - WINDOW[j][1], name=f"over[{j}]")
        m.addConstr(late[j] == gp.max_(over[j], constant=0.0), name=f"late[{j}]")
    # @end late_penalty

    m.optimize()
    return m

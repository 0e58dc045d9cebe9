"""VRP with soft time windows on x = addVars(N, N) (loops in the grid, forced to 0 by rows).
Service start times propagate with big-M rows (waiting allowed, start never before the window
opens); lateness past the window's end is a penalised variable, and there is no hard deadline
anywhere. Loads by the lifted MTZ rows of Desrochers and Laporte, u_i - u_j + C x_ij +
(C - d_i - d_j) x_ji <= C - d_j, with the label u_i in [d_i, C]. Objective as x.prod + late.prod."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (50.0, 15.48), (30.55, 52.71), (11.64, 47.99), (52.98, 18.2), (17.24, 64.65), (79.24, 20.69)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [21.52, 21.52]
Q = 21.52
DEMAND = {1: 7.12, 2: 7.33, 3: 2.76, 4: 7.96, 5: 3.67, 6: 4.48}
WINDOW = {0: (0.0, 500.0), 1: (25.45, 137.83), 2: (17.86, 142.22), 3: (22.31, 123.05), 4: (42.06, 87.83), 5: (64.26, 122.54), 6: (68.46, 104.88)}
SERVICE = {0: 0.0, 1: 3.65, 2: 6.83, 3: 2.51, 4: 2.27, 5: 5.25, 6: 4.21}
LATE_PENALTY = {1: 0.65, 2: 1.66, 3: 1.84, 4: 0.68, 5: 1.72, 6: 0.92}
# @data-end


def build_model():
    o = DEPOTS[0]
    tt = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in range(N) for j in range(N)}
    open_at = {j: WINDOW[j][0] if j in WINDOW else 0.0 for j in range(N)}
    # the earliest schedule of any route never starts later than this
    horizon = max(open_at.values()) + sum(SERVICE[i] + max(tt[i, j] for j in range(N)) for i in range(N))
    big_m = horizon + max(tt.values()) + max(SERVICE.values())

    m = gp.Model("vrpstw")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0

    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    s = m.addVars(CUSTOMERS, lb=[open_at[j] for j in CUSTOMERS], ub=horizon, name="s")
    late = m.addVars(CUSTOMERS, lb=0.0, name="late")
    u = m.addVars(CUSTOMERS, name="u")

    penalty = {j: LATE_PENALTY.get(j, 0.0) for j in CUSTOMERS}
    m.setObjective(UNIT_COST[0] * x.prod(tt) + late.prod(penalty), GRB.MINIMIZE)

    m.addConstrs((x[i, i] == 0 for i in range(N)), name="loop")
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="in")
    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="out")
    m.addConstr(x.sum(o, "*") <= K, name="fleet")
    m.addConstr(x.sum(o, "*") == x.sum("*", o), name="return")

    m.addConstrs((s[j] >= open_at[o] + tt[o, j] - big_m * (1 - x[o, j]) for j in CUSTOMERS), name="first")
    m.addConstrs(
        (
            s[j] >= s[i] + SERVICE[i] + tt[i, j] - big_m * (1 - x[i, j])
            for i in CUSTOMERS
            for j in CUSTOMERS
            if i != j
        ),
        name="propagate",
    )
    m.addConstrs((late[j] >= s[j] - WINDOW[j][1] for j in CUSTOMERS if j in WINDOW), name="tardiness")

    C = sum(DEMAND.values())
    # @omit capacity
    C = Q
    # @end capacity
    for j in CUSTOMERS:
        u[j].LB = DEMAND[j]
        u[j].UB = C
    m.addConstrs(
        (
            u[i] - u[j] + C * x[i, j] + (C - DEMAND[i] - DEMAND[j]) * x[j, i] <= C - DEMAND[j]
            for i in CUSTOMERS
            for j in CUSTOMERS
            if i != j
        ),
        name="lifted_mtz",
    )
    m.optimize()
    return m

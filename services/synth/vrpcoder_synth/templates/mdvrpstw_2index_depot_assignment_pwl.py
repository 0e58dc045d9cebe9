"""Multi-depot VRP with soft time windows on a 2-index x[i,j]: each customer gets a depot
a[j,d], consecutive customers share it, a route may only leave from / return to the depot of its
customers, and a depot starts at most as many routes as it has vehicles. Late service is priced
with a piecewise-linear objective on the service start (setPWLObj: flat until b_j, then slope
p_j), so no lateness variable exists. Loads are MTZ labels; times propagate with big-M."""

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
    fleet_at = {d: sum(1 for k in range(K) if VEHICLE_DEPOT[k] == d) for d in DEPOTS}
    arcs = [(i, j) for i in range(N) for j in range(N) if i != j and not (i in DEPOTS and j in DEPOTS)]
    c = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i, j in arcs}
    horizon = max(a for a, _ in WINDOW.values()) + sum(SERVICE.values()) + len(CUSTOMERS) * max(c.values())

    m = gp.Model("mdvrpstw_2idx")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0.0
    m.Params.FeasibilityTol = 1e-8
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    a = m.addVars(CUSTOMERS, DEPOTS, vtype=GRB.BINARY, name="a")
    load = m.addVars(CUSTOMERS, name="load")
    when = m.addVars(CUSTOMERS, name="when")

    m.setObjective(
        gp.quicksum(UNIT_COST[0] * c[i, j] * x[i, j] for i, j in arcs)
        + FIXED_COST[0] * gp.quicksum(x[d, j] for d in DEPOTS for j in CUSTOMERS),
        GRB.MINIMIZE,
    )
    # @omit late_penalty
    for j in CUSTOMERS:
        b, p = WINDOW[j][1], LATE_PENALTY[j]
        m.setPWLObj(when[j], [b - 1.0, b, b + 1.0], [0.0, 0.0, p])
    # @end late_penalty

    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="out")
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="in")
    m.addConstrs((a.sum(j, "*") == 1 for j in CUSTOMERS), name="one_depot")
    for d in DEPOTS:
        m.addConstr(x.sum(d, "*") == x.sum("*", d), name=f"depot_bal[{d}]")
        m.addConstr(x.sum(d, "*") <= fleet_at[d], name=f"fleet[{d}]")
        # @omit depot_link
        for j in CUSTOMERS:
            m.addConstr(x[d, j] <= a[j, d], name=f"leave[{d},{j}]")
            m.addConstr(x[j, d] <= a[j, d], name=f"enter[{j},{d}]")
            for i in CUSTOMERS:
                if i != j:
                    m.addConstr(a[j, d] - a[i, d] <= 1 - x[i, j], name=f"keep[{i},{j},{d}]")
        # @end depot_link

    # @omit capacity
    for j in CUSTOMERS:
        load[j].UB = Q
    # @end capacity
    total = sum(DEMAND.values())
    for j in CUSTOMERS:
        load[j].LB = DEMAND[j]
        for i in CUSTOMERS:
            if i != j:
                m.addConstr(load[j] >= load[i] + DEMAND[j] - (total + DEMAND[j]) * (1 - x[i, j]), name=f"ld[{i},{j}]")

    for j in CUSTOMERS:
        when[j].LB = WINDOW[j][0]
        when[j].UB = horizon
        for d in DEPOTS:
            m.addConstr(when[j] >= WINDOW[d][0] + c[d, j] * x[d, j], name=f"t0[{d},{j}]")
        for i in CUSTOMERS:
            if i != j:
                big = horizon + SERVICE[i] + c[i, j]
                m.addConstr(when[j] >= when[i] + SERVICE[i] + c[i, j] - big * (1 - x[i, j]), name=f"tt[{i},{j}]")

    m.optimize()
    return m

"""Flawed on purpose — a VRP with soft time windows modelled with hard window ends.

Written from the problem statement: 2-index arcs, one depot, at most K identical vehicles, loads at
most Q (MTZ loads), service-start labels with big-M propagation (travel plus the previous stop's
service), service never before a window opens, and the lateness past each window's end priced at
its penalty per time unit in the objective. The flaw: the window end is also imposed as an upper
bound on the start, so the lateness term is always zero and every plan that serves a customer late
(which the statement allows, at a price) is rejected.
"""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
N = 4
DEPOTS = [0]
CUSTOMERS = [1, 2, 3]
COORDS = [(0.0, 0.0), (10.0, 0.0), (0.0, 10.0), (10.0, 10.0)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [10.0, 10.0]
Q = 10.0
DEMAND = {1: 3.0, 2: 3.0, 3: 3.0}
WINDOW = {0: (0.0, 200.0), 1: (0.0, 100.0), 2: (0.0, 100.0), 3: (0.0, 100.0)}
SERVICE = {0: 0.0, 1: 5.0, 2: 5.0, 3: 5.0}
LATE_PENALTY = {1: 1.0, 2: 1.0, 3: 1.0}
# @data-end


def build_model():
    depot = DEPOTS[0]
    arcs = [(i, j) for i in range(N) for j in range(N) if i != j]
    length = {(i, j): math.dist(COORDS[i], COORDS[j]) for i, j in arcs}
    opens = WINDOW[depot][0]
    latest = max(w[1] for w in WINDOW.values()) + sum(SERVICE.values()) + sum(length.values())

    m = gp.Model("vrpstw_hard")
    m.Params.OutputFlag = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    start = m.addVars(CUSTOMERS, ub=latest, name="start")
    late = m.addVars(CUSTOMERS, name="late")
    load = m.addVars(CUSTOMERS, ub=Q, name="load")

    used = x.sum(depot, "*")
    m.setObjective(
        gp.quicksum(UNIT_COST[0] * length[a] * x[a] for a in arcs)
        + FIXED_COST[0] * used
        + gp.quicksum(LATE_PENALTY[j] * late[j] for j in CUSTOMERS),
        GRB.MINIMIZE,
    )
    m.addConstr(used <= K, name="fleet")
    for j in CUSTOMERS:
        m.addConstr(x.sum("*", j) == 1, name=f"enter[{j}]")
        m.addConstr(x.sum(j, "*") == 1, name=f"leave[{j}]")
        m.addConstr(load[j] >= DEMAND[j], name=f"load_lb[{j}]")
        m.addConstr(start[j] >= WINDOW[j][0], name=f"opens[{j}]")
        m.addConstr(start[j] <= WINDOW[j][1], name=f"closes[{j}]")
        m.addConstr(late[j] >= start[j] - WINDOW[j][1], name=f"late[{j}]")
    for i, j in arcs:
        if i == depot and j in CUSTOMERS:
            m.addConstr(start[j] >= opens + length[i, j] - latest * (1 - x[i, j]), name=f"first[{j}]")
        elif i in CUSTOMERS and j in CUSTOMERS:
            m.addConstr(load[j] >= load[i] + DEMAND[j] - Q * (1 - x[i, j]), name=f"mtz[{i},{j}]")
            m.addConstr(
                start[j] >= start[i] + SERVICE[i] + length[i, j] - (latest + SERVICE[i] + length[i, j]) * (1 - x[i, j]),
                name=f"clock[{i},{j}]",
            )
    m.optimize()
    return m

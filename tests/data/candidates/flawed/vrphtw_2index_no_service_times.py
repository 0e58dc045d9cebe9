"""Flawed on purpose — VRPHTW with the service times left out of the schedule.

Written from the problem statement: 2-index arcs over every ordered pair of distinct nodes, one
depot, at most K identical vehicles; MTZ-style loads bound by Q; service-start labels t[j] with
big-M propagation along used arcs and the windows as bounds; return to the depot before it closes.
The flaw, the one an LLM makes: the clock moves by travel time alone, as if service took no time
(t[j] >= t[i] + d[i,j] instead of t[i] + service[i] + d[i,j]), on the way and on the way home.
Every plan that is late only because of its service times is accepted.
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
# @data-end


def build_model():
    depot = DEPOTS[0]
    arcs = [(i, j) for i in range(N) for j in range(N) if i != j]
    length = {(i, j): math.dist(COORDS[i], COORDS[j]) for i, j in arcs}
    opens, closes = WINDOW[depot]
    big_m = closes + max(length.values())

    m = gp.Model("vrphtw_no_service")
    m.Params.OutputFlag = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    t = m.addVars(CUSTOMERS, name="t")
    load = m.addVars(CUSTOMERS, ub=Q, name="load")

    used = x.sum(depot, "*")
    m.setObjective(
        gp.quicksum(UNIT_COST[0] * length[a] * x[a] for a in arcs) + FIXED_COST[0] * used, GRB.MINIMIZE
    )
    for j in CUSTOMERS:
        m.addConstr(x.sum("*", j) == 1, name=f"enter[{j}]")
        m.addConstr(x.sum(j, "*") == 1, name=f"leave[{j}]")
        m.addConstr(load[j] >= DEMAND[j], name=f"load_lb[{j}]")
        t[j].LB, t[j].UB = WINDOW[j]
    m.addConstr(used <= K, name="fleet")
    for i, j in arcs:
        if i in CUSTOMERS and j in CUSTOMERS:
            m.addConstr(load[j] >= load[i] + DEMAND[j] - Q * (1 - x[i, j]), name=f"mtz[{i},{j}]")
            m.addConstr(t[j] >= t[i] + length[i, j] - big_m * (1 - x[i, j]), name=f"clock[{i},{j}]")
        elif i == depot:
            m.addConstr(t[j] >= opens + length[i, j] - big_m * (1 - x[i, j]), name=f"first[{j}]")
        else:
            m.addConstr(t[i] + length[i, j] <= closes + big_m * (1 - x[i, j]), name=f"home[{i}]")
    m.optimize()
    return m

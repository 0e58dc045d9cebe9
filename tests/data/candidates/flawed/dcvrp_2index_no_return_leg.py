"""Flawed on purpose — DCVRP whose route length leaves the return leg out.

Written from the problem statement: 2-index arcs, one depot, at most K identical vehicles, each
route's load at most Q (MTZ loads) and its length at most MAX_DIST. Length labels dist[j] count the
distance driven from the depot to customer j (big-M propagation along used arcs, which also kills
subtours). The flaw: the limit is put on the labels, the distance on arrival at the last customer,
and the leg back to the depot is never added. A route over the limit only through its way home is
accepted.
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
MAX_DIST = 50.0
# @data-end


def build_model():
    depot = DEPOTS[0]
    arcs = [(i, j) for i in range(N) for j in range(N) if i != j]
    length = {(i, j): math.dist(COORDS[i], COORDS[j]) for i, j in arcs}
    big_m = MAX_DIST + max(length.values())

    m = gp.Model("dcvrp_no_return")
    m.Params.OutputFlag = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    driven = m.addVars(CUSTOMERS, ub=MAX_DIST, name="driven")
    load = m.addVars(CUSTOMERS, ub=Q, name="load")

    used = x.sum(depot, "*")
    m.setObjective(
        gp.quicksum(UNIT_COST[0] * length[a] * x[a] for a in arcs) + FIXED_COST[0] * used, GRB.MINIMIZE
    )
    m.addConstr(used <= K, name="fleet")
    for j in CUSTOMERS:
        m.addConstr(x.sum("*", j) == 1, name=f"enter[{j}]")
        m.addConstr(x.sum(j, "*") == 1, name=f"leave[{j}]")
        m.addConstr(load[j] >= DEMAND[j], name=f"load_lb[{j}]")
        m.addConstr(driven[j] >= length[depot, j], name=f"driven_lb[{j}]")
    for i in CUSTOMERS:
        for j in CUSTOMERS:
            if i != j:
                m.addConstr(load[j] >= load[i] + DEMAND[j] - Q * (1 - x[i, j]), name=f"mtz[{i},{j}]")
                m.addConstr(
                    driven[j] >= driven[i] + length[i, j] - big_m * (1 - x[i, j]), name=f"label[{i},{j}]"
                )
    m.optimize()
    return m

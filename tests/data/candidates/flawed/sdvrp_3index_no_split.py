"""Flawed on purpose — a split-delivery VRP modelled as if every customer took one vehicle.

Written from the problem statement: 3-index arcs x[i,j,k] over every ordered pair of distinct
nodes and every vehicle, one depot; each vehicle leaves the depot at most once and keeps flow
balance; per-vehicle MTZ order labels against subtours; each vehicle's load at most Q. The flaw:
the statement says a customer's demand may be split over several vehicles, and this model makes
each customer be visited by exactly one vehicle, which delivers its whole demand. Wherever the
optimum needs no split, it finds the right cost, yet it rejects every plan that splits.
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
# @data-end


def build_model():
    depot = DEPOTS[0]
    fleet = range(K)
    arcs = [(i, j) for i in range(N) for j in range(N) if i != j]
    length = {(i, j): math.dist(COORDS[i], COORDS[j]) for i, j in arcs}
    n = len(CUSTOMERS)

    m = gp.Model("sdvrp_no_split")
    m.Params.OutputFlag = 0
    x = m.addVars([(i, j, k) for i, j in arcs for k in fleet], vtype=GRB.BINARY, name="x")
    visit = m.addVars(CUSTOMERS, fleet, vtype=GRB.BINARY, name="visit")
    rank = m.addVars(CUSTOMERS, fleet, lb=1, ub=n, name="rank")

    m.setObjective(
        gp.quicksum(UNIT_COST[k] * length[i, j] * x[i, j, k] for i, j in arcs for k in fleet)
        + gp.quicksum(FIXED_COST[k] * x.sum(depot, "*", k) for k in fleet),
        GRB.MINIMIZE,
    )
    for k in fleet:
        m.addConstr(x.sum(depot, "*", k) <= 1, name=f"one_trip[{k}]")
        for i in range(N):
            m.addConstr(x.sum(i, "*", k) == x.sum("*", i, k), name=f"balance[{i},{k}]")
        for j in CUSTOMERS:
            m.addConstr(x.sum("*", j, k) == visit[j, k], name=f"visit[{j},{k}]")
        m.addConstr(gp.quicksum(DEMAND[j] * visit[j, k] for j in CUSTOMERS) <= Q, name=f"capacity[{k}]")
        for i in CUSTOMERS:
            for j in CUSTOMERS:
                if i != j:
                    m.addConstr(rank[j, k] >= rank[i, k] + 1 - n * (1 - x[i, j, k]), name=f"order[{i},{j},{k}]")
    for j in CUSTOMERS:
        m.addConstr(visit.sum(j, "*") == 1, name=f"one_vehicle[{j}]")
    m.optimize()
    return m

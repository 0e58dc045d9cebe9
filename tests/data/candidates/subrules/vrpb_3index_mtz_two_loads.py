"""VRP with backhauls, 3-index x[i,j,k] over every ordered pair of nodes (loops fixed to 0):
assignment y[i,k] of customers to vehicles, one departure per vehicle, linehaul and backhaul loads
summed per vehicle against Q, MTZ ranks on customers against subtours. The two backhaul rules are
written apart: no backhaul -> linehaul arc, and no depot -> backhaul arc (so every route starts
with a linehaul and none serves backhauls only)."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (63.03, 72.01), (86.33, 90.71), (16.64, 17.72), (15.26, 87.99), (71.34, 57.99), (41.62, 36.57)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [21.56, 21.56]
Q = 21.56
DEMAND = {1: 8.05, 2: 9.11, 3: 2.81, 4: 8.05, 5: 6.58, 6: 5.87}
LINEHAUL = [2, 3, 4, 5, 6]
BACKHAUL = [1]
# @data-end


def build_model():
    depot = DEPOTS[0]
    nodes = range(N)
    fleet = range(K)
    length = {(i, j): math.dist(COORDS[i], COORDS[j]) for i in nodes for j in nodes}

    m = gp.Model("vrpb_two_loads")
    m.Params.OutputFlag = 0
    x = m.addVars(nodes, nodes, fleet, vtype=GRB.BINARY, name="x")
    y = m.addVars(CUSTOMERS, fleet, vtype=GRB.BINARY, name="y")
    rank = m.addVars(CUSTOMERS, lb=1.0, ub=len(CUSTOMERS), name="rank")
    for i in nodes:
        for k in fleet:
            x[i, i, k].UB = 0.0

    m.setObjective(gp.quicksum(UNIT_COST[k] * length[i, j] * x[i, j, k] for i in nodes for j in nodes for k in fleet), GRB.MINIMIZE)

    for c in CUSTOMERS:
        m.addConstr(y.sum(c, "*") == 1, name=f"served[{c}]")
        for k in fleet:
            m.addConstr(x.sum("*", c, k) == y[c, k], name=f"enter[{c},{k}]")
            m.addConstr(x.sum(c, "*", k) == y[c, k], name=f"leave[{c},{k}]")
    for k in fleet:
        m.addConstr(x.sum(depot, "*", k) <= 1, name=f"depart[{k}]")
        m.addConstr(x.sum(depot, "*", k) == x.sum("*", depot, k), name=f"home[{k}]")
        m.addConstr(gp.quicksum(DEMAND[c] * y[c, k] for c in LINEHAUL) <= CAPACITY[k], name=f"deliveries[{k}]")
        m.addConstr(gp.quicksum(DEMAND[c] * y[c, k] for c in BACKHAUL) <= CAPACITY[k], name=f"pickups[{k}]")
    for i in CUSTOMERS:
        for j in CUSTOMERS:
            if i != j:
                m.addConstr(rank[j] >= rank[i] + 1 - len(CUSTOMERS) * (1 - x.sum(i, j, "*")), name=f"rank[{i},{j}]")

    # @omit linehaul_first
    for b in BACKHAUL:
        for l in LINEHAUL:
            for k in fleet:
                x[b, l, k].UB = 0.0
    # @end linehaul_first
    # @omit linehaul_start
    for b in BACKHAUL:
        for k in fleet:
            x[depot, b, k].UB = 0.0
    # @end linehaul_start

    m.optimize()
    return m

"""Multi-depot VRP, 3-index x[i,j,k] kept in a plain dict of variables added one by one with
names "x[i,j,k]" over every ordered pair of distinct nodes; arcs touching a depot other than the
vehicle's own get ub=0. Each vehicle carries a single-commodity flow of goods (bounded by the
total demand on its used arcs) that drops the customer's demand wherever the vehicle stops, which
also rules out customer-only cycles; the vehicle size bounds what leaves its depot."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 8
DEPOTS = [0, 1]
CUSTOMERS = [2, 3, 4, 5, 6, 7]
COORDS = [(25.0, 50.0), (75.0, 50.0), (41.8, 25.22), (78.24, 89.39), (84.87, 37.25), (5.2, 10.24), (92.86, 66.4), (71.78, 12.04)]
K = 2
VEHICLE_DEPOT = [0, 1]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [27.75, 27.75]
Q = 27.75
DEMAND = {2: 8.19, 3: 5.89, 4: 7.75, 5: 3.93, 6: 7.43, 7: 5.8}
# @data-end


def build_model():
    nodes = range(N)
    total = sum(DEMAND.values())

    m = gp.Model("mdvrp_flow")
    m.setParam("OutputFlag", 0)

    x = {}
    f = {}
    for k in range(K):
        home = VEHICLE_DEPOT[k]
        for i in nodes:
            for j in nodes:
                if i == j:
                    continue
                allowed = 1.0
                # @omit own_depot
                if (i in DEPOTS and i != home) or (j in DEPOTS and j != home):
                    allowed = 0.0
                # @end own_depot
                x[i, j, k] = m.addVar(vtype="B", ub=allowed, name=f"x[{i},{j},{k}]")
                f[i, j, k] = m.addVar(lb=0.0, name=f"f[{i},{j},{k}]")
    m.update()

    obj = gp.LinExpr()
    for (i, j, k), var in x.items():
        obj.addTerms(UNIT_COST[k] * math.dist(COORDS[i], COORDS[j]), var)
    m.setObjective(obj, GRB.MINIMIZE)

    def into(j, k):
        return gp.quicksum(x[i, j, k] for i in nodes if i != j)

    def out_of(i, k):
        return gp.quicksum(x[i, j, k] for j in nodes if j != i)

    for j in CUSTOMERS:
        m.addConstr(gp.quicksum(into(j, k) for k in range(K)) == 1, name=f"served[{j}]")
    for k in range(K):
        home = VEHICLE_DEPOT[k]
        for i in nodes:
            m.addConstr(into(i, k) == out_of(i, k), name=f"balance[{i},{k}]")
        m.addConstr(out_of(home, k) <= 1, name=f"one_tour[{k}]")
        for i in nodes:
            for j in nodes:
                if i != j:
                    m.addConstr(f[i, j, k] <= total * x[i, j, k], name=f"flow_on_arc[{i},{j},{k}]")
        for j in CUSTOMERS:
            m.addConstr(
                gp.quicksum(f[i, j, k] for i in nodes if i != j) - gp.quicksum(f[j, l, k] for l in nodes if l != j)
                == DEMAND[j] * into(j, k),
                name=f"drop[{j},{k}]",
            )
        # @omit capacity
        m.addConstr(gp.quicksum(f[home, j, k] for j in CUSTOMERS) <= CAPACITY[k], name=f"capacity[{k}]")
        # @end capacity

    m.optimize()
    return m

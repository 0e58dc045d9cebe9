"""Heterogeneous multi-depot VRP written the "one variable at a time" way: x is a plain dict keyed
by (i, j, k) whose Gurobi names are x_i_j_k (never x[...]), created only for the arcs vehicle k may
drive (its own depot and the customers). Constraints are added in explicit loops with
LinExpr.add / addTerms; subtours are cut by one MTZ order over the customers (shared by all
vehicles), capacity by a per-vehicle knapsack. Parameters are set with setParam strings."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 8
DEPOTS = [0, 1]
CUSTOMERS = [2, 3, 4, 5, 6, 7]
COORDS = [(25.0, 50.0), (75.0, 50.0), (84.97, 55.59), (82.03, 15.0), (58.05, 10.48), (65.84, 62.12), (75.18, 86.4), (73.43, 22.02)]
K = 2
VEHICLE_DEPOT = [0, 1]
FIXED_COST = [39.51, 68.52]
UNIT_COST = [1.03, 1.17]
CAPACITY = [41.5, 62.88]
DEMAND = {2: 7.53, 3: 3.86, 4: 9.58, 5: 9.83, 6: 6.35, 7: 3.49}
# @data-end


def build_model():
    m = gp.Model()
    m.setParam("OutputFlag", 0)
    m.setParam("MIPGap", 1e-9)
    m.setParam(GRB.Param.MIPGapAbs, 1e-7)

    n = len(CUSTOMERS)
    x = {}
    arcs_of = {}
    for k in range(K):
        own = VEHICLE_DEPOT[k]
        nodes_k = [own] + CUSTOMERS
        arcs_of[k] = [(i, j) for i in nodes_k for j in nodes_k if i != j]
        for i, j in arcs_of[k]:
            length = math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])
            cost = UNIT_COST[k] * length + (FIXED_COST[k] if i == own else 0.0)
            x[i, j, k] = m.addVar(vtype=GRB.BINARY, obj=cost, name=f"x_{i}_{j}_{k}")
    order = {}
    for i in CUSTOMERS:
        order[i] = m.addVar(lb=1.0, ub=n, name=f"order_{i}")
    m.ModelSense = GRB.MINIMIZE

    for j in CUSTOMERS:
        into = gp.LinExpr()
        for k in range(K):
            for i in [VEHICLE_DEPOT[k]] + CUSTOMERS:
                if i != j:
                    into.add(x[i, j, k])
        m.addConstr(into == 1, name=f"visit_{j}")

    for k in range(K):
        own = VEHICLE_DEPOT[k]
        for h in [own] + CUSTOMERS:
            bal = gp.LinExpr()
            for (i, j) in arcs_of[k]:
                if i == h:
                    bal.addTerms(1.0, x[i, j, k])
                if j == h:
                    bal.addTerms(-1.0, x[i, j, k])
            m.addConstr(bal == 0, name=f"balance_{h}_{k}")
        starts = gp.LinExpr([1.0] * n, [x[own, j, k] for j in CUSTOMERS])
        m.addConstr(starts <= 1, name=f"one_route_{k}")

    # @omit subtour
    for i in CUSTOMERS:
        for j in CUSTOMERS:
            if i != j:
                used = gp.quicksum(x[i, j, k] for k in range(K))
                m.addConstr(order[i] - order[j] + n * used <= n - 1, name=f"mtz_{i}_{j}")
    # @end subtour

    # @omit capacity
    for k in range(K):
        load = gp.LinExpr()
        for (i, j) in arcs_of[k]:
            if j in DEMAND:
                load.addTerms(DEMAND[j], x[i, j, k])
        m.addConstr(load <= CAPACITY[k], name=f"cap_{k}")
    # @end capacity

    m.optimize()
    return m

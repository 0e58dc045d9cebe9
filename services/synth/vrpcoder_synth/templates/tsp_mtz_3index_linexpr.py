"""TSP as a one-vehicle routing model: 3-index x[i,j,k] (k = 0 only), every row assembled as a
LinExpr in explicit loops (addTerms), Miller-Tucker-Zemlin order variables against subtours."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (92.1, 78.72), (82.07, 30.32), (46.18, 20.18), (64.28, 93.89), (84.0, 29.9), (48.8, 72.86)]
K = 1
VEHICLE_DEPOT = [0]
FIXED_COST = [0.0]
UNIT_COST = [1.0]
# @data-end


def build_model():
    depot = DEPOTS[0]
    nodes = list(range(N))
    vehicles = list(range(K))
    c = {}
    for i in nodes:
        for j in nodes:
            c[i, j] = math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])

    m = gp.Model("tsp_mtz")
    m.Params.OutputFlag = 0
    x = {}
    for i in nodes:
        for j in nodes:
            for k in vehicles:
                x[i, j, k] = m.addVar(vtype=GRB.BINARY, ub=0.0 if i == j else 1.0, name=f"x[{i},{j},{k}]")
    u = {i: m.addVar(lb=1, ub=len(CUSTOMERS), name=f"u[{i}]") for i in CUSTOMERS}

    obj = gp.LinExpr()
    for (i, j, k), var in x.items():
        if i != j:
            obj.addTerms(UNIT_COST[k] * c[i, j], var)
    m.setObjective(obj, GRB.MINIMIZE)

    for i in nodes:
        out_expr = gp.LinExpr()
        in_expr = gp.LinExpr()
        for j in nodes:
            for k in vehicles:
                out_expr.addTerms(1.0, x[i, j, k])
                in_expr.addTerms(1.0, x[j, i, k])
        m.addConstr(out_expr == 1, name=f"out[{i}]")
        m.addConstr(in_expr == 1, name=f"in[{i}]")
    for k in vehicles:
        for i in nodes:
            bal = gp.LinExpr()
            for j in nodes:
                bal.addTerms(1.0, x[i, j, k])
                bal.addTerms(-1.0, x[j, i, k])
            m.addConstr(bal == 0, name=f"balance[{i},{k}]")
        start = gp.LinExpr()
        for j in CUSTOMERS:
            start.addTerms(1.0, x[depot, j, k])
        m.addConstr(start <= 1, name=f"one_tour[{k}]")

    n = len(CUSTOMERS)
    # @omit subtour
    for i in CUSTOMERS:
        for j in CUSTOMERS:
            if i != j:
                expr = gp.LinExpr()
                expr.addTerms(1.0, u[i])
                expr.addTerms(-1.0, u[j])
                for k in vehicles:
                    expr.addTerms(n, x[i, j, k])
                m.addConstr(expr <= n - 1, name=f"mtz[{i},{j}]")
    # @end subtour

    m.optimize()
    return m

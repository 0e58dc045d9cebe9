"""Multi-compartment VRP with x created by the matrix API, x = addMVar((N, N), name="x"), but the
rows written with plain Var objects taken from x.tolist() (quicksum), so no scipy-backed matrix
expression is needed. One MTZ-style load label per compartment and one for the total load."""

import math

import gurobipy as gp
import numpy as np
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (41.54, 84.11), (6.04, 47.38), (24.08, 36.87), (86.74, 77.3), (84.23, 14.03), (83.68, 45.63)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [27.03, 27.03]
Q = 27.03
DEMAND = {1: 7.75, 2: 6.3, 3: 5.11, 4: 8.88, 5: 5.96, 6: 3.15}
COMP_DEMAND = {1: (2.05, 5.7), 2: (3.25, 3.05), 3: (1.15, 3.96), 4: (3.15, 5.73), 5: (1.0, 4.96), 6: (1.8, 1.35)}
COMP_CAP = [(12.96, 14.07), (12.96, 14.07)]
# @data-end


def build_model():
    depot = DEPOTS[0]
    C = len(COMP_CAP[0])
    dist = [[math.hypot(a[0] - b[0], a[1] - b[1]) for b in COORDS] for a in COORDS]

    m = gp.Model("mcvrp")
    m.Params.OutputFlag = 0
    xm = m.addMVar((N, N), vtype=GRB.BINARY, ub=np.ones((N, N)) - np.eye(N), name="x")
    x = xm.tolist()
    load = m.addVars(CUSTOMERS, name="load")
    comp = m.addVars(CUSTOMERS, range(C), name="comp")

    m.setObjective(gp.quicksum(UNIT_COST[0] * dist[i][j] * x[i][j] for i in range(N) for j in range(N) if i != j))
    for j in CUSTOMERS:
        m.addConstr(gp.quicksum(x[i][j] for i in range(N) if i != j) == 1)
        m.addConstr(gp.quicksum(x[j][i] for i in range(N) if i != j) == 1)
    m.addConstr(gp.quicksum(x[depot][j] for j in CUSTOMERS) <= K)

    total = {j: sum(COMP_DEMAND[j]) for j in CUSTOMERS}
    for j in CUSTOMERS:
        load[j].LB, load[j].UB = total[j], Q
        for c in range(C):
            comp[j, c].LB = COMP_DEMAND[j][c]
            comp[j, c].UB = sum(COMP_DEMAND[i][c] for i in CUSTOMERS)
    # @omit compartment
    for j in CUSTOMERS:
        for c in range(C):
            comp[j, c].UB = COMP_CAP[0][c]
    # @end compartment
    big = [sum(COMP_DEMAND[h][c] for h in CUSTOMERS) for c in range(C)]
    for i in CUSTOMERS:
        for j in CUSTOMERS:
            if i != j:
                m.addConstr(load[j] >= load[i] + total[j] - Q * (1 - x[i][j]))
                for c in range(C):
                    m.addConstr(comp[j, c] >= comp[i, c] + COMP_DEMAND[j][c] - big[c] * (1 - x[i][j]))
    m.optimize()
    return m

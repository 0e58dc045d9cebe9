"""Multi-compartment VRP with the matrix API: x = addMVar((N, N), name="x") (Gurobi names the
entries x[i,j]), the diagonal closed through the ub array, degree rows as MLinExpr slices, and
one load flow per compartment plus one for the total load, each bounded by its capacity."""

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
    cust = np.array(CUSTOMERS)
    C = len(COMP_CAP[0])
    dist = np.array([[math.hypot(a[0] - b[0], a[1] - b[1]) for b in COORDS] for a in COORDS])
    ub = np.ones((N, N)) - np.eye(N)
    demand = np.zeros((C, N))
    for i in CUSTOMERS:
        demand[:, i] = COMP_DEMAND[i]
    total = demand.sum(axis=0)

    m = gp.Model("mcvrp")
    m.Params.OutputFlag = 0
    x = m.addMVar((N, N), vtype=GRB.BINARY, ub=ub, name="x")
    g = m.addMVar((N, N), lb=0.0, ub=ub * total.sum(), name="g")
    h = [m.addMVar((N, N), lb=0.0, ub=ub * total.sum(), name=f"h{c}") for c in range(C)]

    m.setObjective(UNIT_COST[0] * (dist * x).sum(), GRB.MINIMIZE)
    m.addConstr(x.sum(axis=0)[cust] == 1, name="in")
    m.addConstr(x.sum(axis=1)[cust] == 1, name="out")
    m.addConstr(x[depot, :].sum() <= K, name="fleet")
    m.addConstr(g.sum(axis=0)[cust] - g.sum(axis=1)[cust] == total[cust], name="total_flow")
    m.addConstr(g <= Q * x, name="capacity")
    for c in range(C):
        m.addConstr(h[c].sum(axis=0)[cust] - h[c].sum(axis=1)[cust] == demand[c, cust], name=f"flow{c}")
        # @omit compartment
        m.addConstr(h[c] <= COMP_CAP[0][c] * x, name=f"compartment{c}")
        # @end compartment
    m.optimize()
    return m

"""Multi-compartment VRP with soft time windows, 3-index, written with the matrix API: x is an
MVar of shape (N, N, K) (Gurobi names x[i,j,k]); degree, flow and per-vehicle compartment
knapsacks are MLinExpr rows built with sums over axes and @ products with numpy arrays; subtours
are cut by MTZ positions per vehicle (and by the clocks); service starts are a per-node MVar with
big-M rows and the lateness is taken by addGenConstrMax(late_j, [over_j], 0)."""

import math

import gurobipy as gp
import numpy as np
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (40.49, 19.22), (79.48, 47.13), (43.02, 20.61), (85.57, 55.78), (73.69, 59.64), (45.71, 40.98)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [26.81, 26.81]
Q = 26.81
DEMAND = {1: 4.92, 2: 1.65, 3: 4.92, 4: 10.82, 5: 8.78, 6: 3.56}
COMP_DEMAND = {1: (0.13, 4.79), 2: (0.71, 0.94), 3: (4.56, 0.36), 4: (5.99, 4.83), 5: (4.0, 4.78), 6: (0.85, 2.71)}
COMP_CAP = [(14.53, 12.28), (14.53, 12.28)]
WINDOW = {0: (0.0, 500.0), 1: (36.1, 97.73), 2: (48.45, 115.65), 3: (49.54, 147.53), 4: (66.55, 156.28), 5: (23.47, 141.03), 6: (0.0, 128.11)}
SERVICE = {0: 0.0, 1: 6.48, 2: 5.34, 3: 3.57, 4: 2.89, 5: 7.36, 6: 4.93}
LATE_PENALTY = {1: 1.43, 2: 1.91, 3: 1.66, 4: 1.47, 5: 0.53, 6: 1.46}
# @data-end


def build_model():
    dep = DEPOTS[0]
    cust = np.array(CUSTOMERS)
    n = len(CUSTOMERS)
    nc = len(COMP_CAP[0])
    D = np.array([[math.hypot(a[0] - b[0], a[1] - b[1]) for b in COORDS] for a in COORDS])
    dem = np.zeros(N)
    comp = np.zeros((N, nc))
    for j in CUSTOMERS:
        dem[j] = DEMAND[j]
        comp[j, :] = COMP_DEMAND[j]

    m = gp.Model("mcvrpstw_mvar")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0.0
    ub = np.ones((N, N, K))
    for i in range(N):
        ub[i, i, :] = 0.0
    x = m.addMVar((N, N, K), vtype=GRB.BINARY, ub=ub, name="x")
    pos = m.addMVar((N, K), lb=0.0, ub=n, name="pos")
    start = m.addMVar(N, lb=0.0, name="start")
    over = m.addMVar(N, lb=-GRB.INFINITY, name="over")
    late = m.addMVar(N, lb=0.0, name="late")

    cost = np.repeat(D[:, :, None], K, axis=2) * np.array(UNIT_COST)[None, None, :]
    pen = np.array([LATE_PENALTY.get(i, 0.0) for i in range(N)])
    m.setObjective(
        (x * cost).sum() + np.array(FIXED_COST) @ x[dep, :, :].sum(axis=0) + pen @ late, GRB.MINIMIZE
    )

    visits = x.sum(axis=0)  # (N, K): arcs entering node j on vehicle k
    m.addConstr(visits.sum(axis=1)[cust] == 1, name="visit_once")
    m.addConstr(x.sum(axis=1) == visits, name="flow")  # leaving == entering, per node and vehicle
    m.addConstr(x[dep, :, :].sum(axis=0) <= 1, name="one_route")

    for k in range(K):
        served = visits[:, k]
        # @omit capacity
        m.addConstr(dem @ served <= CAPACITY[k], name=f"cap_{k}")
        # @end capacity
        # @omit compartment
        m.addConstr(comp.T @ served <= np.array(COMP_CAP[k]), name=f"rooms_{k}")
        # @end compartment
        for i in CUSTOMERS:
            for j in CUSTOMERS:
                if i != j:
                    m.addConstr(pos[j, k] >= pos[i, k] + 1 - n * (1 - x[i, j, k]), name=f"mtz_{i}_{j}_{k}")

    U = max(a for a, _ in WINDOW.values()) + sum(SERVICE.values()) + n * D.max()
    arc = x.sum(axis=2)  # (N, N) aggregated arcs
    for j in CUSTOMERS:
        m.addConstr(start[j] >= WINDOW[j][0])
        m.addConstr(start[j] <= U)
        m.addConstr(start[j] >= WINDOW[dep][0] + D[dep, j] * arc[dep, j])
        m.addConstr(over[j] == start[j] - WINDOW[j][1])
        m.addGenConstrMax(late[j].item(), [over[j].item()], 0.0, name=f"late_{j}")
        for i in CUSTOMERS:
            if i != j:
                big = U + SERVICE[i] + D[i, j]
                m.addConstr(start[j] >= start[i] + SERVICE[i] + D[i, j] - big * (1 - arc[i, j]))

    m.optimize()
    return m

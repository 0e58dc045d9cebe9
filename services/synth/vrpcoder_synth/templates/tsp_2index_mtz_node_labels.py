"""TSP, 2-index x with MTZ, plus what generated scripts often add: readable node labels (the
statement itself numbers nodes 0..N-1, so x keeps those numbers) used only to print the tour after
solving. The list is not called node_ids: the protocol reserves node_ids / id2idx for the
statement's own ids when it renumbers nodes."""

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

node_names = ["Depot"] + [f"Customer {c}" for c in CUSTOMERS]


def build_model():
    dist = [[math.hypot(a[0] - b[0], a[1] - b[1]) for b in COORDS] for a in COORDS]
    m = gp.Model("tsp")
    m.Params.OutputFlag = 0
    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    u = m.addVars(range(1, N), lb=1, ub=N - 1, name="u")
    for i in range(N):
        x[i, i].ub = 0
    m.setObjective(gp.quicksum(UNIT_COST[0] * dist[i][j] * x[i, j] for i in range(N) for j in range(N)), GRB.MINIMIZE)
    m.addConstrs((x.sum(i, "*") == 1 for i in range(N)), name="out")
    m.addConstrs((x.sum("*", i) == 1 for i in range(N)), name="in")
    # @omit subtour
    m.addConstrs(
        (u[i] - u[j] + (N - 1) * x[i, j] <= N - 2 for i in range(1, N) for j in range(1, N) if i != j), name="mtz"
    )
    # @end subtour
    m.optimize()
    if m.SolCount:
        succ = {i: j for i in range(N) for j in range(N) if x[i, j].X > 0.5}
        tour, node = [0], succ[0]
        while node != 0:
            tour.append(node)
            node = succ[node]
        print(" -> ".join(node_names[i] for i in tour + [0]), f"({m.ObjVal:.2f})")
    return m

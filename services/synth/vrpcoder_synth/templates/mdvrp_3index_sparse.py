"""Multi-depot VRP, 3-index x[i,j,k] built by addVars over an explicit (i, j, k) list: vehicle k
only gets arcs among its own depot and the customers (no loops, no foreign depots), so the key
set is sparse. Knapsack capacity, MTZ on aggregated customer arcs, quicksum everywhere."""

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
    def reach(k):
        return [VEHICLE_DEPOT[k]] + list(CUSTOMERS)

    keys = [(i, j, k) for k in range(K) for i in reach(k) for j in reach(k) if i != j]
    length = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i in range(N) for j in range(N)}

    m = gp.Model("mdvrp")
    m.Params.OutputFlag = 0
    x = m.addVars(keys, vtype=GRB.BINARY, name="x")
    u = m.addVars(CUSTOMERS, lb=1, ub=len(CUSTOMERS), name="u")

    m.setObjective(gp.quicksum(UNIT_COST[k] * length[i, j] * x[i, j, k] for i, j, k in keys), GRB.MINIMIZE)
    for c in CUSTOMERS:
        m.addConstr(gp.quicksum(x[i, j, k] for i, j, k in keys if j == c) == 1, name=f"visit[{c}]")
    for k in range(K):
        home = VEHICLE_DEPOT[k]
        for h in reach(k):
            m.addConstr(
                gp.quicksum(x[h, j, k] for j in reach(k) if j != h) == gp.quicksum(x[i, h, k] for i in reach(k) if i != h),
                name=f"flow[{h},{k}]",
            )
        m.addConstr(gp.quicksum(x[home, j, k] for j in CUSTOMERS) <= 1, name=f"one_route[{k}]")
        # @omit capacity
        m.addConstr(
            gp.quicksum(DEMAND[j] * x[i, j, k] for i in reach(k) for j in CUSTOMERS if i != j) <= CAPACITY[k],
            name=f"capacity[{k}]",
        )
        # @end capacity
    n = len(CUSTOMERS)
    # @omit subtour
    for i in CUSTOMERS:
        for j in CUSTOMERS:
            if i != j:
                m.addConstr(u[i] - u[j] + n * gp.quicksum(x[i, j, k] for k in range(K)) <= n - 1, name=f"mtz[{i},{j}]")
    # @end subtour
    m.optimize()
    return m

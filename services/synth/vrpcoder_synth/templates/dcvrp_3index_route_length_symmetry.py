"""Distance-constrained CVRP on a full 3-index grid x = addVars(N, N, K) (loops included and forced
to zero by constraints). Each vehicle drives at most one route; vehicles are used in index order
(symmetry breaking); a per-vehicle load knapsack and a per-vehicle route length (sum of its arcs,
return leg included) against MAX_DIST; per-vehicle MTZ orders against subtours. Solver settings by
setParam / Params (OutputFlag off, MIPGap 0, a time limit)."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (77.51, 27.94), (60.83, 13.94), (56.6, 61.1), (53.6, 6.4), (20.69, 72.2), (54.59, 74.54)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [26.06, 26.06]
Q = 26.06
DEMAND = {1: 5.07, 2: 4.74, 3: 7.8, 4: 3.59, 5: 6.94, 6: 6.75}
MAX_DIST = 244.97
# @data-end


def build_model():
    depot = DEPOTS[0]
    V = range(N)
    R = range(K)
    n = len(CUSTOMERS)
    dist = {(i, j): math.dist(COORDS[i], COORDS[j]) for i in V for j in V}

    m = gp.Model("DCVRP")
    m.setParam("OutputFlag", 0)
    m.Params.MIPGap = 0
    m.setParam("TimeLimit", 120)

    x = m.addVars(N, N, K, vtype=GRB.BINARY, name="x")
    u = m.addVars(CUSTOMERS, R, lb=1.0, ub=n, name="u")

    m.setObjective(
        gp.quicksum(UNIT_COST[k] * dist[i, j] * x[i, j, k] for i in V for j in V for k in R), GRB.MINIMIZE
    )

    m.addConstrs((x[i, i, k] == 0 for i in V for k in R), name="no_self_loop")
    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="serve_once")
    m.addConstrs((x.sum(i, "*", k) == x.sum("*", i, k) for i in V for k in R), name="conservation")
    m.addConstrs((x.sum(depot, "*", k) <= 1 for k in R), name="single_route")
    m.addConstrs((x.sum("*", j, k) <= x.sum(depot, "*", k) for j in CUSTOMERS for k in R), name="used_if_serving")
    m.addConstrs((x.sum(depot, "*", k) <= x.sum(depot, "*", k - 1) for k in R if k > 0), name="use_in_order")

    # @omit capacity
    m.addConstrs(
        (gp.quicksum(DEMAND[j] * x.sum("*", j, k) for j in CUSTOMERS) <= Q for k in R), name="load_limit"
    )
    # @end capacity
    # @omit distance
    m.addConstrs(
        (gp.quicksum(dist[i, j] * x[i, j, k] for i in V for j in V) <= MAX_DIST for k in R), name="route_length"
    )
    # @end distance
    # @omit subtour
    m.addConstrs(
        (
            u[i, k] - u[j, k] + n * x[i, j, k] <= n - 1
            for i in CUSTOMERS
            for j in CUSTOMERS
            if i != j
            for k in R
        ),
        name="mtz",
    )
    # @end subtour

    m.optimize()
    return m

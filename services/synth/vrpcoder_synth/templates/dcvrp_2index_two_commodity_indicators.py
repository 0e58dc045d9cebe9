"""Distance-constrained CVRP on a 2-index x kept as a dict of individually added binaries named
x[i,j] (no loops), wrapped into a tupledict for x.prod. Loads by a directed two-commodity flow: the
goods still on board (f) plus the free space (g) equal the vehicle size on every used arc, so the
load can never exceed it and no customer-only cycle can carry a decreasing load. The distance
driven so far is a label propagated by indicator constraints; the return leg closes the check.
Rows by gp.quicksum over tuplelist.select."""

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
    arcs = gp.tuplelist((i, j) for i in range(N) for j in range(N) if i != j)
    dist = {(i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for i, j in arcs}
    size = sum(DEMAND.values())  # a vehicle as large as the whole demand: no limit
    # @omit capacity
    size = Q
    # @end capacity

    m = gp.Model("dcvrp_two_commodity")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0.0

    x = {}
    for i, j in arcs:
        x[i, j] = m.addVar(vtype="B", name=f"x[{i},{j}]")
    x = gp.tupledict(x)
    f = m.addVars(arcs, lb=0.0, name="goods")
    g = m.addVars(arcs, lb=0.0, name="space")
    driven = m.addVars(CUSTOMERS, lb=0.0, name="driven")

    m.setObjective(UNIT_COST[0] * x.prod(dist), GRB.MINIMIZE)

    for c in CUSTOMERS:
        m.addConstr(gp.quicksum(x[i, j] for i, j in arcs.select("*", c)) == 1, name=f"in[{c}]")
        m.addConstr(gp.quicksum(x[i, j] for i, j in arcs.select(c, "*")) == 1, name=f"out[{c}]")
    m.addConstr(gp.quicksum(x[i, j] for i, j in arcs.select(depot, "*")) <= K, name="fleet")

    # two-commodity flow
    for i, j in arcs:
        m.addConstr(f[i, j] + g[i, j] == size * x[i, j], name=f"pair[{i},{j}]")
    for c in CUSTOMERS:
        m.addConstr(
            gp.quicksum(f[i, j] for i, j in arcs.select("*", c)) - gp.quicksum(f[i, j] for i, j in arcs.select(c, "*"))
            == DEMAND[c],
            name=f"unload[{c}]",
        )
        m.addConstr(
            gp.quicksum(g[i, j] for i, j in arcs.select(c, "*")) - gp.quicksum(g[i, j] for i, j in arcs.select("*", c))
            == DEMAND[c],
            name=f"free_up[{c}]",
        )
    for i, j in arcs.select("*", depot):
        m.addConstr(f[i, j] == 0, name=f"back_empty[{i}]")

    # distance labels
    for j in CUSTOMERS:
        m.addConstr((x[depot, j] == 1) >> (driven[j] >= dist[depot, j]), name=f"first_leg[{j}]")
        for i, jj in arcs.select("*", j):
            if i != depot:
                m.addConstr((x[i, j] == 1) >> (driven[j] >= driven[i] + dist[i, j]), name=f"leg[{i},{j}]")
    # @omit distance
    for i in CUSTOMERS:
        m.addConstr((x[i, depot] == 1) >> (driven[i] + dist[i, depot] <= MAX_DIST), name=f"limit[{i}]")
    # @end distance

    m.optimize()
    return m

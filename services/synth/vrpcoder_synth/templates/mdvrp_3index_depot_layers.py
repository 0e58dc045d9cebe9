"""Multi-depot VRP with x[i,j,d] whose third index is the *depot* a route belongs to, not a
vehicle (the prompt's "x[i,j,k] (then vehicle/depot)"): x spans the full grid addVars(N, N, D);
layer d may touch no depot but d. Routes of layer d are at most the vehicles based at d; a
customer is served in exactly one layer; flow is conserved per layer. Loads are MTZ labels on the
layer-summed arcs (several vehicles may share a depot); a redundant per-layer lower bound on the
routes a depot must send out for the customers it serves."""

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
    V = range(N)
    L = range(len(DEPOTS))
    dist = [[math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]) for j in V] for i in V]
    based = {d: sum(1 for k in range(K) if VEHICLE_DEPOT[k] == d) for d in DEPOTS}

    m = gp.Model("mdvrp_depot_layers")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0

    x = m.addVars(N, N, len(DEPOTS), vtype=GRB.BINARY, name="x")
    u = m.addVars(CUSTOMERS, lb=0.0, name="u")

    m.setObjective(gp.quicksum(UNIT_COST[0] * dist[i][j] * x[i, j, d] for i in V for j in V for d in L), GRB.MINIMIZE)

    for d in L:
        for i in V:
            x[i, i, d].UB = 0
            for e in DEPOTS:
                if e != DEPOTS[d]:
                    x[i, e, d].UB = 0
                    x[e, i, d].UB = 0
    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="visit")
    m.addConstrs((x.sum("*", h, d) == x.sum(h, "*", d) for h in V for d in L), name="flow")
    m.addConstrs((x.sum(DEPOTS[d], "*", d) <= based[DEPOTS[d]] for d in L), name="fleet")

    cap = sum(DEMAND.values())
    # @omit capacity
    cap = Q
    for d in L:
        served = gp.quicksum(DEMAND[j] * x[i, j, d] for i in V for j in CUSTOMERS)
        m.addConstr(Q * x.sum(DEPOTS[d], "*", d) >= served, name=f"enough_routes[{d}]")
    # @end capacity
    for j in CUSTOMERS:
        u[j].LB = DEMAND[j]
        u[j].UB = cap
        for i in CUSTOMERS:
            if i != j:
                m.addConstr(u[j] >= u[i] + DEMAND[j] - cap * (1 - x.sum(i, j, "*")), name=f"mtz[{i},{j}]")

    m.optimize()
    return m

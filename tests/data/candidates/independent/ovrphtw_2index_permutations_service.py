"""Open VRP with hard time windows on a 2-index x over gp.tuplelist(itertools.permutations(nodes, 2)):
every ordered pair, arcs back into the depot included at zero cost (the route simply stops). x is
declared GRB.INTEGER with bounds [0, 1]. Service-start times t[i] propagate with the service time
of the node left; loads by MTZ labels u[i] bounded by [demand, Q]; a redundant fleet lower bound
ceil(sum d / Q) on the departures. Identity node tables (node_ids / id2idx) although ids equal
positions; solver parameters MIPGap=0, Presolve=2, Method, Threads."""

import itertools
import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (43.23, 38.23), (50.96, 23.15), (88.7, 15.1), (34.73, 51.02), (71.49, 50.77), (16.07, 42.62)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [25.13, 25.13]
Q = 25.13
DEMAND = {1: 2.65, 2: 7.2, 3: 5.97, 4: 5.57, 5: 8.39, 6: 3.07}
WINDOW = {0: (0.0, 500.0), 1: (3.57, 101.21), 2: (36.61, 102.25), 3: (56.5, 93.33), 4: (25.02, 72.87), 5: (11.5, 69.41), 6: (79.21, 178.2)}
SERVICE = {0: 0.0, 1: 6.09, 2: 6.33, 3: 7.22, 4: 3.93, 5: 5.4, 6: 2.29}
# @data-end


node_ids = list(range(N))
id2idx = {nid: pos for pos, nid in enumerate(node_ids)}


def build_model():
    depot = id2idx[DEPOTS[0]]
    custs = [id2idx[c] for c in CUSTOMERS]
    arcs = gp.tuplelist(itertools.permutations(node_ids, 2))
    dist = {(i, j): math.dist(COORDS[i], COORDS[j]) for i, j in arcs}
    cost = {(i, j): (0.0 if j == depot else UNIT_COST[0] * dist[i, j]) for i, j in arcs}

    m = gp.Model("OVRPHTW")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0
    m.Params.Presolve = 2
    m.Params.Method = 1
    m.Params.Threads = 1

    x = m.addVars(arcs, vtype=GRB.INTEGER, lb=0, ub=1, name="x")
    t = m.addVars(node_ids, lb=0.0, name="t")
    u = m.addVars(custs, lb=0.0, name="u")

    m.setObjective(x.prod(cost), GRB.MINIMIZE)

    m.addConstrs((x.sum("*", j) == 1 for j in custs), name="enter")
    m.addConstrs((x.sum(j, "*") == 1 for j in custs), name="leave")
    m.addConstr(x.sum(depot, "*") <= K, name="fleet")
    m.addConstr(x.sum(depot, "*") == x.sum("*", depot), name="depot_flow")

    # departure from the depot when it opens; times propagate over arcs into customers only
    m.addConstr(t[depot] == WINDOW[depot][0], name="depart")
    big = WINDOW[depot][1] + max(SERVICE.values()) + max(dist.values()) + max(b for _, b in WINDOW.values())
    for i, j in arcs:
        if j != depot:
            m.addConstr(t[j] >= t[i] + SERVICE[i] + dist[i, j] - big * (1 - x[i, j]), name=f"clock[{i},{j}]")
    for j in custs:
        m.addConstr(t[j] >= WINDOW[j][0], name=f"open[{j}]")
        # @omit time_window
        m.addConstr(t[j] <= WINDOW[j][1], name=f"close[{j}]")
        # @end time_window

    load_cap = sum(DEMAND.values())
    # @omit capacity
    load_cap = Q
    m.addConstr(x.sum(depot, "*") >= math.ceil(sum(DEMAND.values()) / Q - 1e-9), name="fleet_lb")
    # @end capacity
    for j in custs:
        u[j].LB = DEMAND[j]
        u[j].UB = load_cap
    for i, j in arcs:
        if i != depot and j != depot:
            m.addConstr(u[j] >= u[i] + DEMAND[j] - load_cap * (1 - x[i, j]), name=f"mtz[{i},{j}]")

    m.optimize()
    return m

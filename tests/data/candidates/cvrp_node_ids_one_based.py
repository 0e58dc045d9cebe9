"""CVRP, 2-index x[i,j] over positions 0..N-1 (the statement's nodes in its order), MTZ loads.

Written the way many people print a plan: the script keeps its own 1-based labels for the report
(node_ids = [1..N], id2idx from label to position), while every variable is indexed by position.
The labels are never used to index data or variables; they only appear in the printout."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (60.09, 91.09), (24.69, 80.13), (20.92, 29.14), (51.68, 8.91), (87.91, 31.53), (49.05, 24.0)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [28.59, 28.59]
Q = 28.59
DEMAND = {1: 8.16, 2: 8.54, 3: 10.0, 4: 4.61, 5: 8.49, 6: 5.24}
# @data-end

# Labels for the printed plan: "stop 1" is the depot, "stop k+1" the k-th customer.
node_ids = list(range(1, N + 1))
id2idx = {label: i for i, label in enumerate(node_ids)}


def print_routes(m, x, depot):
    """Follow x out of the depot and print each route with the 1-based labels."""
    succ = {i: j for (i, j), var in x.items() if var.X > 0.5}
    for first in [j for (i, j) in x if i == depot and x[i, j].X > 0.5]:
        route, node = [depot], first
        while node != depot:
            route.append(node)
            node = succ[node]
        print(" -> ".join(f"stop {node_ids[p]}" for p in route + [depot]))


def build_model():
    depot = DEPOTS[0]
    nodes = range(N)
    arcs = [(i, j) for i in nodes for j in nodes if i != j]
    dist = {(i, j): math.dist(COORDS[i], COORDS[j]) for i, j in arcs}

    m = gp.Model("cvrp_one_based_labels")
    m.Params.OutputFlag = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    room = sum(DEMAND.values())
    # @omit capacity
    room = Q
    # @end capacity
    load = m.addVars(CUSTOMERS, lb={j: DEMAND[j] for j in CUSTOMERS}, ub=room, name="load")

    used = gp.quicksum(x[depot, j] for j in CUSTOMERS)
    m.setObjective(
        gp.quicksum(UNIT_COST[0] * dist[a] * x[a] for a in arcs) + FIXED_COST[0] * used, GRB.MINIMIZE
    )
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="enter")
    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="leave")
    m.addConstr(used <= K, name="fleet")
    m.addConstr(used == gp.quicksum(x[j, depot] for j in CUSTOMERS), name="back")
    m.addConstrs(
        (load[j] >= load[i] + DEMAND[j] - room * (1 - x[i, j]) for i in CUSTOMERS for j in CUSTOMERS if i != j),
        name="mtz",
    )

    m.optimize()
    if m.SolCount:
        print_routes(m, x, depot)
    return m

"""CVRP with a 2-index arc variable built by addVars over an explicit arc list (no i == j keys),
quicksum rows, and a single-commodity load flow that gives both capacity and connectivity."""

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


def build_model():
    depot = DEPOTS[0]
    nodes = range(N)
    arcs = [(i, j) for i in nodes for j in nodes if i != j]
    cost = {(i, j): math.dist(COORDS[i], COORDS[j]) for i, j in arcs}
    total_demand = sum(DEMAND[i] for i in CUSTOMERS)

    m = gp.Model("cvrp_flow")
    m.Params.OutputFlag = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    f = m.addVars(arcs, lb=0.0, name="f")

    m.setObjective(gp.quicksum(UNIT_COST[0] * cost[a] * x[a] for a in arcs), GRB.MINIMIZE)
    for j in CUSTOMERS:
        m.addConstr(gp.quicksum(x[i, j] for i in nodes if i != j) == 1, name=f"in[{j}]")
        m.addConstr(gp.quicksum(x[j, i] for i in nodes if i != j) == 1, name=f"out[{j}]")
    m.addConstr(gp.quicksum(x[depot, j] for j in CUSTOMERS) <= K, name="fleet")
    m.addConstr(
        gp.quicksum(x[depot, j] for j in CUSTOMERS) == gp.quicksum(x[j, depot] for j in CUSTOMERS), name="depot"
    )
    # every customer keeps its demand out of what arrives
    for j in CUSTOMERS:
        m.addConstr(
            gp.quicksum(f[i, j] for i in nodes if i != j) - gp.quicksum(f[j, i] for i in nodes if i != j)
            == DEMAND[j],
            name=f"flow[{j}]",
        )
    room = total_demand
    # @omit capacity
    room = Q
    # @end capacity
    for i, j in arcs:
        m.addConstr(f[i, j] <= room * x[i, j], name=f"room[{i},{j}]")

    m.optimize()
    return m

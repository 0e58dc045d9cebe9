"""TSP, 2-index x[i,j] over every ordered pair (loops fixed to 0): every city entered and left
once; the start city sends one unit of flow to each other city along used arcs (single-commodity
flow, no subtours). The start city's own degree (one tour leaves it and one returns) is written
apart."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (92.1, 78.72), (82.07, 30.32), (46.18, 20.18), (64.28, 93.89), (84.0, 29.9), (48.8, 72.86)]
K = 1
VEHICLE_DEPOT = [0]
FIXED_COST = [0.0]
UNIT_COST = [1.0]
# @data-end


def build_model():
    start = DEPOTS[0]
    nodes = range(N)
    m = gp.Model("tsp_flow")
    m.Params.OutputFlag = 0
    x = m.addVars(nodes, nodes, vtype=GRB.BINARY, name="x")
    f = m.addVars(nodes, nodes, lb=0.0, name="f")
    for i in nodes:
        x[i, i].UB = 0.0
    m.setObjective(gp.quicksum(math.dist(COORDS[i], COORDS[j]) * x[i, j] for i in nodes for j in nodes), GRB.MINIMIZE)
    for c in CUSTOMERS:
        m.addConstr(x.sum(c, "*") == 1, name=f"leave[{c}]")
        m.addConstr(x.sum("*", c) == 1, name=f"enter[{c}]")
        m.addConstr(f.sum("*", c) - f.sum(c, "*") == 1, name=f"absorb[{c}]")
    # @omit start_degree
    m.addConstr(x.sum(start, "*") == 1, name="leave_start")
    m.addConstr(x.sum("*", start) == 1, name="enter_start")
    # @end start_degree
    for i in nodes:
        for j in nodes:
            m.addConstr(f[i, j] <= len(CUSTOMERS) * x[i, j], name=f"carry[{i},{j}]")
    m.optimize()
    return m

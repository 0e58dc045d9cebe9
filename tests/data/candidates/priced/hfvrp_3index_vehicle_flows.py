"""Heterogeneous fleet VRP, written from the statement: every customer is served once; each vehicle
drives at most one route from the depot and back, carries at most its own capacity, costs its fixed
cost when it is used and its own cost per unit distance. Minimise fixed plus distance costs.

3-index x[i,j,k]; per-vehicle goods flow (the load on board falls by each customer's demand, which
also rules out customer-only cycles). The block ``own_rates`` gives each vehicle its own cost per
unit distance: without it every vehicle is priced at the first vehicle's rate."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
N = 4
DEPOTS = [0]
CUSTOMERS = [1, 2, 3]
COORDS = [(50.0, 50.0), (20.0, 30.0), (70.0, 80.0), (60.0, 20.0)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [30.0, 60.0]
UNIT_COST = [1.0, 1.4]
CAPACITY = [10.0, 25.0]
DEMAND = {1: 5.0, 2: 6.0, 3: 7.0}
# @data-end


def build_model():
    depot = DEPOTS[0]
    nodes = range(N)
    fleet = range(K)
    arcs = [(i, j) for i in nodes for j in nodes if i != j]
    d = {(i, j): math.dist(COORDS[i], COORDS[j]) for i, j in arcs}

    rate = [UNIT_COST[0]] * K
    # @omit own_rates
    rate = [UNIT_COST[k] for k in fleet]
    # @end own_rates

    m = gp.Model("hfvrp")
    m.Params.OutputFlag = 0
    keys = [(i, j, k) for i, j in arcs for k in fleet]
    x = m.addVars(keys, vtype=GRB.BINARY, name="x")
    goods = m.addVars(keys, lb=0.0, name="goods")
    used = m.addVars(fleet, vtype=GRB.BINARY, name="used")

    for j in CUSTOMERS:
        m.addConstr(x.sum("*", j, "*") == 1, name=f"serve[{j}]")
    for k in fleet:
        m.addConstr(x.sum(depot, "*", k) == used[k], name=f"start[{k}]")
        for h in nodes:
            m.addConstr(x.sum("*", h, k) == x.sum(h, "*", k), name=f"balance[{h},{k}]")
        for i, j in arcs:
            m.addConstr(goods[i, j, k] <= CAPACITY[k] * x[i, j, k], name=f"room[{i},{j},{k}]")
        for j in CUSTOMERS:
            m.addConstr(
                goods.sum("*", j, k) - goods.sum(j, "*", k) == DEMAND[j] * x.sum("*", j, k), name=f"drop[{j},{k}]"
            )

    fixed = gp.quicksum(FIXED_COST[k] * used[k] for k in fleet)
    travel = gp.quicksum(rate[k] * d[i, j] * x[i, j, k] for i, j, k in keys)
    m.setObjective(fixed + travel, GRB.MINIMIZE)
    m.optimize()
    return m

"""VRP with soft time windows, written from the statement: each vehicle drives one route from the
depot and back, carries at most its capacity, and starts service at a customer no earlier than the
window opens (it may wait); a start after the window closes is allowed and costs the customer's
penalty per time unit late. Minimise distance travelled plus the lateness penalties.

3-index x[i,j,k]; one clock per node and vehicle (big-M, gated by the arc's vehicle); the lateness
of a customer reads the clock of the vehicle that serves it. The block ``late_weight`` holds the
penalty weights: without it every late time unit costs 1, the weight dropped."""

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
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [20.0, 20.0]
Q = 20.0
DEMAND = {1: 5.0, 2: 6.0, 3: 7.0}
WINDOW = {0: (0.0, 400.0), 1: (10.0, 60.0), 2: (20.0, 90.0), 3: (0.0, 50.0)}
SERVICE = {0: 0.0, 1: 3.0, 2: 4.0, 3: 2.0}
LATE_PENALTY = {1: 1.5, 2: 0.7, 3: 2.0}
# @data-end


def build_model():
    depot = DEPOTS[0]
    nodes = range(N)
    fleet = range(K)
    d = {(i, j): math.dist(COORDS[i], COORDS[j]) for i in nodes for j in nodes}
    horizon = max(w[0] for w in WINDOW.values()) + sum(SERVICE.values()) + N * max(d.values())

    weight = {j: 1.0 for j in CUSTOMERS}
    # @omit late_weight
    weight = {j: LATE_PENALTY[j] for j in CUSTOMERS}
    # @end late_weight

    m = gp.Model("vrpstw")
    m.Params.OutputFlag = 0
    x = m.addVars(N, N, K, vtype=GRB.BINARY, name="x")
    clock = m.addVars(N, K, lb=0.0, ub=horizon, name="clock")
    late = m.addVars(CUSTOMERS, lb=0.0, name="late")
    for i in nodes:
        for k in fleet:
            x[i, i, k].UB = 0.0

    served = {(j, k): gp.quicksum(x[i, j, k] for i in nodes) for j in CUSTOMERS for k in fleet}
    for j in CUSTOMERS:
        m.addConstr(gp.quicksum(served[j, k] for k in fleet) == 1, name=f"serve[{j}]")
    for k in fleet:
        m.addConstr(x.sum(depot, "*", k) <= 1, name=f"leave[{k}]")
        for h in nodes:
            m.addConstr(x.sum("*", h, k) == x.sum(h, "*", k), name=f"balance[{h},{k}]")
        m.addConstr(gp.quicksum(DEMAND[j] * served[j, k] for j in CUSTOMERS) <= CAPACITY[k], name=f"load[{k}]")
        m.addConstr(clock[depot, k] == WINDOW[depot][0], name=f"depart[{k}]")
        for j in CUSTOMERS:
            m.addConstr(clock[j, k] >= WINDOW[j][0], name=f"opens[{j},{k}]")
            for i in nodes:
                if i != j:
                    big = horizon + SERVICE[i] + d[i, j]
                    m.addConstr(
                        clock[j, k] >= clock[i, k] + SERVICE[i] + d[i, j] - big * (1 - x[i, j, k]),
                        name=f"clock[{i},{j},{k}]",
                    )
            m.addConstr(late[j] >= clock[j, k] - WINDOW[j][1] - horizon * (1 - served[j, k]), name=f"late[{j},{k}]")

    travel = gp.quicksum(UNIT_COST[k] * d[i, j] * x[i, j, k] for i in nodes for j in nodes for k in fleet if i != j)
    m.setObjective(travel + gp.quicksum(weight[j] * late[j] for j in CUSTOMERS), GRB.MINIMIZE)
    m.optimize()
    return m

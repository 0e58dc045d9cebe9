"""Multi-depot VRP on a 2-index x[i,j] over a sparse arc list (no loops, no depot-to-depot arcs).
Which depot serves a customer is a binary assignment y[j,d]; a route may only leave and re-enter the
depot its customers are assigned to, and every customer-to-customer arc joins two customers of the
same depot, so a route closes at the depot it left. Each depot sends out at most as many routes as
it has vehicles. Loads by MTZ labels (Miller-Tucker-Zemlin on the delivered quantity)."""

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
    arcs = gp.tuplelist(
        (i, j) for i in range(N) for j in range(N) if i != j and not (i in DEPOTS and j in DEPOTS)
    )
    cost = {(i, j): UNIT_COST[0] * math.dist(COORDS[i], COORDS[j]) for i, j in arcs}
    fleet_at = {d: sum(1 for k in range(K) if VEHICLE_DEPOT[k] == d) for d in DEPOTS}

    m = gp.Model("mdvrp")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    y = m.addVars(CUSTOMERS, DEPOTS, vtype=GRB.BINARY, name="assign")
    load = m.addVars(CUSTOMERS, name="load")

    m.setObjective(x.prod(cost), GRB.MINIMIZE)

    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="enter")
    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="leave")
    m.addConstrs((y.sum(j, "*") == 1 for j in CUSTOMERS), name="one_depot")
    m.addConstrs((x.sum(d, "*") == x.sum("*", d) for d in DEPOTS), name="depot_balance")
    m.addConstrs((x.sum(d, "*") <= fleet_at[d] for d in DEPOTS), name="depot_fleet")
    # @omit depot_link
    m.addConstrs((x[d, j] <= y[j, d] for j in CUSTOMERS for d in DEPOTS), name="start_at_own")
    m.addConstrs((x[j, d] <= y[j, d] for j in CUSTOMERS for d in DEPOTS), name="end_at_own")
    m.addConstrs(
        (y[i, d] - y[j, d] <= 1 - x[i, j] for i in CUSTOMERS for j in CUSTOMERS if i != j for d in DEPOTS),
        name="same_depot",
    )
    # @end depot_link

    cap = sum(DEMAND.values())
    # @omit capacity
    cap = Q
    # @end capacity
    for j in CUSTOMERS:
        load[j].LB = DEMAND[j]
        load[j].UB = cap
    m.addConstrs(
        (load[j] >= load[i] + DEMAND[j] - cap * (1 - x[i, j]) for i in CUSTOMERS for j in CUSTOMERS if i != j),
        name="mtz_load",
    )
    m.optimize()
    return m

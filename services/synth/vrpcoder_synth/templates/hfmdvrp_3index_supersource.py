"""Heterogeneous multi-depot VRP as a 3-index model x[i,j,k] over every node, with the depots tied
to the vehicles through a super-source: each vehicle k may take one arc out[k,d] from a virtual
source into a depot d, and one arc home[k,d] from d into a virtual sink. Only a vehicle's own depot
has these arcs open; what leaves the source must come back through the same depot. Loads are
per-vehicle MTZ labels bounded by the vehicle's capacity. The model runs in its own gp.Env whose
parameters are set before it starts."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 8
DEPOTS = [0, 1]
CUSTOMERS = [2, 3, 4, 5, 6, 7]
COORDS = [(25.0, 50.0), (75.0, 50.0), (84.97, 55.59), (82.03, 15.0), (58.05, 10.48), (65.84, 62.12), (75.18, 86.4), (73.43, 22.02)]
K = 2
VEHICLE_DEPOT = [0, 1]
FIXED_COST = [39.51, 68.52]
UNIT_COST = [1.03, 1.17]
CAPACITY = [41.5, 62.88]
DEMAND = {2: 7.53, 3: 3.86, 4: 9.58, 5: 9.83, 6: 6.35, 7: 3.49}
# @data-end

ENV_PARAMS = {"OutputFlag": 0, "MIPGap": 0.0, "Seed": 7}


def euclid(a, b):
    return math.sqrt((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2)


def build_model():
    env = gp.Env(empty=True)
    for key, value in ENV_PARAMS.items():
        env.setParam(key, value)
    env.start()

    V = list(range(N))
    fleet = list(range(K))
    dist = {(i, j): euclid(COORDS[i], COORDS[j]) for i in V for j in V}
    total_demand = sum(DEMAND.values())

    m = gp.Model("hfmdvrp_supersource", env=env)
    x = m.addVars(V, V, fleet, vtype=GRB.BINARY, name="x")
    out = m.addVars(fleet, DEPOTS, vtype=GRB.BINARY, name="src")  # source -> depot d, vehicle k
    home = m.addVars(fleet, DEPOTS, vtype=GRB.BINARY, name="sink")  # depot d -> sink, vehicle k
    u = m.addVars(CUSTOMERS, fleet, lb=0.0, name="u")  # load on board of k when it leaves customer i

    # no loops, no depot-to-depot legs
    for i in V:
        for j in V:
            if i == j or (i in DEPOTS and j in DEPOTS):
                for k in fleet:
                    x[i, j, k].UB = 0.0

    m.setObjective(
        gp.quicksum(FIXED_COST[k] * out.sum(k, "*") for k in fleet)
        + gp.quicksum(UNIT_COST[k] * dist[i, j] * x[i, j, k] for i in V for j in V for k in fleet if i != j),
        GRB.MINIMIZE,
    )

    # super-source: a vehicle enters the depot network at most once, only through its own depot
    m.addConstrs((out.sum(k, "*") <= 1 for k in fleet), name="one_start")
    # @omit own_depot
    for k in fleet:
        for d in DEPOTS:
            if d != VEHICLE_DEPOT[k]:
                out[k, d].UB = 0.0
    # @end own_depot
    m.addConstrs((home[k, d] == out[k, d] for k in fleet for d in DEPOTS), name="same_depot")
    # flow conservation at the depots (source in / sink out) and at the customers
    m.addConstrs((out[k, d] + x.sum("*", d, k) == x.sum(d, "*", k) + home[k, d] for k in fleet for d in DEPOTS), name="depot_flow")
    m.addConstrs((x.sum(d, "*", k) <= out[k, d] for k in fleet for d in DEPOTS), name="leave_only_if_started")
    m.addConstrs((x.sum("*", j, k) == x.sum(j, "*", k) for j in CUSTOMERS for k in fleet), name="cust_flow")
    m.addConstrs((x.sum("*", j, "*") == 1 for j in CUSTOMERS), name="serve_once")

    # per-vehicle load labels (MTZ): they kill customer-only cycles and bound the load
    bound = {k: total_demand for k in fleet}
    # @omit capacity
    bound = {k: CAPACITY[k] for k in fleet}
    # @end capacity
    for k in fleet:
        for j in CUSTOMERS:
            u[j, k].LB = DEMAND[j]
            u[j, k].UB = max(bound[k], DEMAND[j])
    # @omit subtour
    for k in fleet:
        for i in CUSTOMERS:
            for j in CUSTOMERS:
                if i != j:
                    big = bound[k] + DEMAND[j]
                    m.addConstr(u[j, k] >= u[i, k] + DEMAND[j] - big * (1 - x[i, j, k]), name=f"mtz[{i},{j},{k}]")
    # @end subtour
    # @omit capacity
    m.addConstrs(
        (gp.quicksum(DEMAND[j] * x.sum("*", j, k) for j in CUSTOMERS) <= CAPACITY[k] for k in fleet), name="knapsack"
    )
    # @end capacity

    m.optimize()
    return m

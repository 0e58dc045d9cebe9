"""Heterogeneous multi-depot VRP on a 2-index x[i,j] plus a vehicle assignment y[j,k]. A route
leaving or entering depot d may only carry customers of d's vehicles; consecutive customers share
their vehicle; each vehicle opens at most one route from its own depot. The vehicle's rate is
charged through an arc price p[i,j] >= c_k d_ij (x[i,j] + y[owner,k] - 1), its fixed cost through
used[k] >= y[j,k]. Loads are knapsacks over y; subtours are cut by a single-commodity flow."""

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



def build_model():
    nodes = list(range(N))
    arcs = [(i, j) for i in nodes for j in nodes if i != j]
    dist = {a: math.dist(COORDS[a[0]], COORDS[a[1]]) for a in arcs}
    fleet_of = {d: [k for k in range(K) if VEHICLE_DEPOT[k] == d] for d in DEPOTS}
    total = sum(DEMAND.values())

    m = gp.Model("hfmdvrp_2idx")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0
    m.Params.Presolve = 2

    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    y = m.addVars(CUSTOMERS, range(K), vtype=GRB.BINARY, name="y")
    start = m.addVars(CUSTOMERS, range(K), vtype=GRB.BINARY, name="start")
    used = m.addVars(range(K), vtype=GRB.BINARY, name="used")
    price = m.addVars(arcs, lb=0.0, name="price")
    flow = m.addVars(arcs, lb=0.0, name="flow")
    for d in DEPOTS:
        for e in DEPOTS:
            if d != e:
                x[d, e].UB = 0

    m.setObjective(gp.quicksum(FIXED_COST[k] * used[k] for k in range(K)) + price.sum(), GRB.MINIMIZE)

    m.addConstrs((x.sum(j, "*") == 1 for j in CUSTOMERS), name="out")
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="in")
    m.addConstrs((x.sum(d, "*") == x.sum("*", d) for d in DEPOTS), name="depot_balance")
    m.addConstrs((y.sum(j, "*") == 1 for j in CUSTOMERS), name="assign")
    m.addConstrs((used[k] >= y[j, k] for j in CUSTOMERS for k in range(K)), name="used")

    for i in CUSTOMERS:
        for j in CUSTOMERS:
            if i != j:
                for k in range(K):
                    m.addConstr(y[j, k] >= y[i, k] + x[i, j] - 1)
                    m.addConstr(y[i, k] >= y[j, k] + x[i, j] - 1)
    # @omit own_depot
    for d in DEPOTS:
        for j in CUSTOMERS:
            m.addConstr(x[d, j] <= gp.quicksum(y[j, k] for k in fleet_of[d]), name=f"leave_own[{d},{j}]")
            m.addConstr(x[j, d] <= gp.quicksum(y[j, k] for k in fleet_of[d]), name=f"enter_own[{j},{d}]")
    # @end own_depot
    for k in range(K):
        home = VEHICLE_DEPOT[k]
        for j in CUSTOMERS:
            m.addConstr(start[j, k] >= x[home, j] + y[j, k] - 1, name=f"start[{j},{k}]")
        m.addConstr(start.sum("*", k) <= 1, name=f"one_route[{k}]")

    for (i, j) in arcs:
        owner = j if j in DEMAND else i
        if owner in DEMAND:
            for k in range(K):
                m.addConstr(price[i, j] >= UNIT_COST[k] * dist[i, j] * (x[i, j] + y[owner, k] - 1))

    # @omit capacity
    m.addConstrs(
        (gp.quicksum(DEMAND[j] * y[j, k] for j in CUSTOMERS) <= CAPACITY[k] for k in range(K)), name="capacity"
    )
    # @end capacity

    # @omit subtour
    m.addConstrs((flow.sum("*", j) - flow.sum(j, "*") == DEMAND[j] for j in CUSTOMERS), name="drop")
    m.addConstrs((flow[i, j] <= total * x[i, j] for (i, j) in arcs), name="carry")
    # @end subtour

    m.optimize()
    return m

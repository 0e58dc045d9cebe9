"""Split-delivery VRP, 3-index x[i,j,k] plus continuous delivered quantities y[i,k]. A vehicle
visits a customer at most once, delivers only where it stops (y <= d * visit), each customer gets
its whole demand over all vehicles, vehicle totals fit Q; per-vehicle MTZ order against subtours.
Rows are written as LinExpr sums in loops; an aggregated load flow and a fleet-size bound only
tighten the relaxation."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (18.08, 51.05), (27.36, 66.16), (5.63, 18.05), (37.65, 19.2), (27.65, 68.18), (51.25, 18.44)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [31.98, 31.98]
Q = 31.98
DEMAND = {1: 2.51, 2: 15.88, 3: 7.53, 4: 9.88, 5: 3.18, 6: 11.66}
# @data-end


def build_model():
    depot = DEPOTS[0]
    nodes = list(range(N))
    fleet = list(range(K))
    n = len(CUSTOMERS)

    m = gp.Model("sdvrp")
    m.Params.OutputFlag = 0
    x, y, order = {}, {}, {}
    for k in fleet:
        for i in nodes:
            for j in nodes:
                x[i, j, k] = m.addVar(vtype=GRB.BINARY, ub=0 if i == j else 1, name=f"x[{i},{j},{k}]")
        for i in CUSTOMERS:
            y[i, k] = m.addVar(lb=0.0, name=f"y[{i},{k}]")
            order[i, k] = m.addVar(lb=1, ub=n, name=f"order[{i},{k}]")

    def arrivals(j, k):
        return gp.LinExpr([1.0] * N, [x[i, j, k] for i in nodes])

    def departures(i, k):
        return gp.LinExpr([1.0] * N, [x[i, j, k] for j in nodes])

    cost = gp.LinExpr()
    for (i, j, k), var in x.items():
        cost.add(var, UNIT_COST[k] * math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1]))
    m.setObjective(cost, GRB.MINIMIZE)

    for k in fleet:
        for i in nodes:
            m.addConstr(arrivals(i, k) == departures(i, k), name=f"balance[{i},{k}]")
        m.addConstr(departures(depot, k) <= 1, name=f"one_trip[{k}]")
        for i in CUSTOMERS:
            m.addConstr(arrivals(i, k) <= 1, name=f"once[{i},{k}]")
    for i in CUSTOMERS:
        m.addConstr(gp.quicksum(arrivals(i, k) for k in fleet) >= 1, name=f"visited[{i}]")
        m.addConstr(gp.quicksum(y[i, k] for k in fleet) == DEMAND[i], name=f"demand[{i}]")
    # @omit capacity
    for k in fleet:
        m.addConstr(gp.quicksum(y[i, k] for i in CUSTOMERS) <= Q, name=f"capacity[{k}]")
    # @end capacity
    # @omit delivery_coupling
    for i in CUSTOMERS:
        for k in fleet:
            m.addConstr(y[i, k] <= DEMAND[i] * arrivals(i, k), name=f"deliver_if_visit[{i},{k}]")
    # @end delivery_coupling
    # @omit capacity,delivery_coupling,subtour
    # strengthening (valid for every split plan): identical vehicles used in index order, enough
    # vehicles for the total demand, and the aggregated on-board load as a flow over used arcs
    for k in fleet[1:]:
        m.addConstr(departures(depot, k) <= departures(depot, k - 1), name=f"use_in_order[{k}]")
    need = math.ceil(sum(DEMAND.values()) / Q - 1e-9)
    m.addConstr(gp.quicksum(departures(depot, k) for k in fleet) >= need, name="enough_vehicles")
    flow = {(i, j): m.addVar(lb=0.0, name=f"flow[{i},{j}]") for i in nodes for j in nodes if i != j}
    for (i, j), var in flow.items():
        m.addConstr(var <= Q * gp.quicksum(x[i, j, k] for k in fleet), name=f"flow_cap[{i},{j}]")
    for j in CUSTOMERS:
        inflow = gp.quicksum(flow[i, j] for i in nodes if i != j)
        outflow = gp.quicksum(flow[j, i] for i in nodes if i != j)
        m.addConstr(inflow - outflow == DEMAND[j], name=f"flow_drop[{j}]")
    # @end capacity,delivery_coupling,subtour
    # @omit subtour
    for k in fleet:
        for i in CUSTOMERS:
            for j in CUSTOMERS:
                if i != j:
                    m.addConstr(order[j, k] >= order[i, k] + 1 - n * (1 - x[i, j, k]), name=f"mtz[{i},{j},{k}]")
    # @end subtour
    m.optimize()
    return m

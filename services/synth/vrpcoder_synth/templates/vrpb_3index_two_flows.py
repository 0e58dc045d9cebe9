"""VRP with backhauls, 3-index x[i,j,k] over a tuplelist (no loops); vehicles used in index order.
Two commodity flows run on the aggregated arcs: the deliveries still on board (dropped at linehaul
customers, passed through backhaul ones, gone by the return) and the pickups collected so far (picked
up at backhaul customers, passed through linehaul ones, none at departure). Each flow is bounded by
the vehicle size on used arcs, so linehaul and backhaul loads are limited separately. "Linehaul
first" is written on the flows: nothing to deliver may remain once a backhaul customer is left, and
nothing picked up may be on board on the way into a linehaul customer, and no route starts with a
backhaul customer (so none serves backhauls only). Objective by x.prod."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (63.03, 72.01), (86.33, 90.71), (16.64, 17.72), (15.26, 87.99), (71.34, 57.99), (41.62, 36.57)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [21.56, 21.56]
Q = 21.56
DEMAND = {1: 8.05, 2: 9.11, 3: 2.81, 4: 8.05, 5: 6.58, 6: 5.87}
LINEHAUL = [2, 3, 4, 5, 6]
BACKHAUL = [1]
# @data-end


def build_model():
    depot = DEPOTS[0]
    V = range(N)
    arcs = gp.tuplelist((i, j) for i in V for j in V if i != j)
    arcs_k = gp.tuplelist((i, j, k) for i, j in arcs for k in range(K))
    cost = {(i, j, k): UNIT_COST[k] * math.dist(COORDS[i], COORDS[j]) for i, j, k in arcs_k}

    size_l = sum(DEMAND[c] for c in LINEHAUL)
    size_b = sum(DEMAND[c] for c in BACKHAUL)
    # @omit capacity
    size_l = size_b = Q
    # @end capacity

    m = gp.Model("vrpb_flows")
    m.Params.OutputFlag = 0
    m.Params.MIPGap = 0
    x = m.addVars(arcs_k, vtype=GRB.BINARY, name="x")
    deliver = m.addVars(arcs, lb=0.0, name="to_deliver")
    collect = m.addVars(arcs, lb=0.0, name="collected")

    m.setObjective(x.prod(cost), GRB.MINIMIZE)

    m.addConstrs((x.sum("*", c, "*") == 1 for c in CUSTOMERS), name="visit")
    m.addConstrs((x.sum("*", v, k) == x.sum(v, "*", k) for v in V for k in range(K)), name="balance")
    m.addConstrs((x.sum(depot, "*", k) <= 1 for k in range(K)), name="one_route")
    m.addConstrs((x.sum(depot, "*", k) <= x.sum(depot, "*", k - 1) for k in range(1, K)), name="order")

    m.addConstrs((deliver[i, j] <= size_l * x.sum(i, j, "*") for i, j in arcs), name="deliver_cap")
    m.addConstrs((collect[i, j] <= size_b * x.sum(i, j, "*") for i, j in arcs), name="collect_cap")
    for c in CUSTOMERS:
        drop = DEMAND[c] if c in LINEHAUL else 0.0
        gain = DEMAND[c] if c in BACKHAUL else 0.0
        m.addConstr(deliver.sum("*", c) - deliver.sum(c, "*") == drop, name=f"deliver_flow[{c}]")
        m.addConstr(collect.sum(c, "*") - collect.sum("*", c) == gain, name=f"collect_flow[{c}]")
    m.addConstrs((deliver[i, depot] == 0 for i in CUSTOMERS), name="all_delivered")
    m.addConstrs((collect[depot, j] == 0 for j in CUSTOMERS), name="leave_empty_handed")
    # @omit backhaul
    m.addConstrs((deliver[b, j] == 0 for b in BACKHAUL for j in V if j != b), name="no_delivery_after_pickup")
    m.addConstrs((collect[i, l] == 0 for l in LINEHAUL for i in V if i != l), name="no_pickup_before_delivery")
    # every route serves a linehaul customer first: none starts with a backhaul
    m.addConstrs((x[depot, b, k] == 0 for b in BACKHAUL for k in range(K)), name="start_with_linehaul")
    # @end backhaul

    m.optimize()
    return m

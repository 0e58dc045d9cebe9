"""Split-delivery VRP, 3-index x[i,j,k] over a tuplelist of arcs (no loops) plus the quantity
y[i,k] vehicle k hands to customer i. Each vehicle drives at most one tour and stops at a customer
at most once; every customer is visited and receives exactly its demand over all vehicles; a vehicle
hands over goods only where it stops and carries at most Q. Customer-only cycles of any vehicle are
cut lazily: a callback looks at each integer solution and adds, per vehicle, the DFJ cut of every
piece of its tour that misses the depot."""

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


def pieces(succ, start):
    """Weakly connected groups of the nodes touched by one vehicle's chosen arcs."""
    adj = {}
    for i, j in succ:
        adj.setdefault(i, set()).add(j)
        adj.setdefault(j, set()).add(i)
    seen = set()
    groups = []
    for node in adj:
        if node in seen:
            continue
        group, stack = set(), [node]
        while stack:
            v = stack.pop()
            if v in group:
                continue
            group.add(v)
            stack.extend(adj[v] - group)
        seen |= group
        groups.append(group)
    return [g for g in groups if start not in g]


def build_model():
    depot = DEPOTS[0]
    nodes = range(N)
    fleet = range(K)
    arcs = gp.tuplelist((i, j, k) for i in nodes for j in nodes if i != j for k in fleet)
    length = {(i, j, k): UNIT_COST[k] * math.dist(COORDS[i], COORDS[j]) for i, j, k in arcs}

    m = gp.Model("sdvrp_lazy")
    m.Params.OutputFlag = 0
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    y = m.addVars(CUSTOMERS, fleet, lb=0.0, name="y")

    m.setObjective(x.prod(length), GRB.MINIMIZE)

    for k in fleet:
        for v in nodes:
            m.addConstr(
                gp.quicksum(x[a] for a in arcs.select("*", v, k)) == gp.quicksum(x[a] for a in arcs.select(v, "*", k)),
                name=f"balance[{v},{k}]",
            )
        m.addConstr(gp.quicksum(x[a] for a in arcs.select(depot, "*", k)) <= 1, name=f"tour[{k}]")
        for c in CUSTOMERS:
            m.addConstr(gp.quicksum(x[a] for a in arcs.select("*", c, k)) <= 1, name=f"stop_once[{c},{k}]")
    for c in CUSTOMERS:
        m.addConstr(gp.quicksum(x[a] for a in arcs.select("*", c, "*")) >= 1, name=f"visited[{c}]")
        m.addConstr(y.sum(c, "*") == DEMAND[c], name=f"demand[{c}]")
    # @omit delivery_coupling
    for c in CUSTOMERS:
        for k in fleet:
            m.addConstr(
                y[c, k] <= DEMAND[c] * gp.quicksum(x[a] for a in arcs.select("*", c, k)), name=f"hand_over[{c},{k}]"
            )
    # @end delivery_coupling
    # @omit capacity
    for k in fleet:
        m.addConstr(y.sum("*", k) <= Q, name=f"capacity[{k}]")
    # @end capacity

    lazy = False
    # @omit subtour
    lazy = True
    # @end subtour

    def cut_subtours(model, where):
        if where != GRB.Callback.MIPSOL:
            return
        values = model.cbGetSolution(x)
        for k in fleet:
            chosen = [(i, j) for i, j, kk in arcs if kk == k and values[i, j, k] > 0.5]
            for group in pieces(chosen, depot):
                model.cbLazy(
                    gp.quicksum(x[i, j, k] for i in group for j in group if i != j) <= len(group) - 1
                )

    if lazy:
        m.Params.LazyConstraints = 1
        m.optimize(cut_subtours)
    else:
        m.optimize()
    return m

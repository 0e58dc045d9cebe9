"""Open VRP on a 2-index x[i,j] with no arcs back into the depot (routes stop at their last
customer); each customer is entered once and left at most once. Nothing else is written up front:
a lazy-constraint callback reads every integer solution, follows each path from the depot and adds
a rounded capacity cut (arcs entering a set S >= ceil(demand(S) / Q)) for every overloaded path,
and a connectivity cut (arcs entering S >= 1) for every group of customers no path reaches. The
model keeps its own handles on model._x (the usual gurobipy callback idiom)."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (68.03, 14.55), (91.04, 20.79), (87.88, 38.76), (94.99, 14.94), (28.41, 15.52), (5.76, 16.14)]
K = 2
VEHICLE_DEPOT = [0, 0]
FIXED_COST = [0.0, 0.0]
UNIT_COST = [1.0, 1.0]
CAPACITY = [21.64, 21.64]
Q = 21.64
DEMAND = {1: 2.91, 2: 2.19, 3: 6.48, 4: 6.12, 5: 8.05, 6: 8.71}
# @data-end


def needed(group):
    """Least number of vehicles entering a customer group."""
    count = 1
    # @omit capacity
    count = max(1, math.ceil(sum(DEMAND[c] for c in group) / Q - 1e-9))
    # @end capacity
    return count


def separate(model, where):
    if where != GRB.Callback.MIPSOL:
        return
    x = model._x
    arcs = model._arcs
    depot = model._depot
    val = model.cbGetSolution(x)
    nxt = {}
    for i, j in arcs:
        if val[i, j] > 0.5:
            nxt.setdefault(i, []).append(j)
    reached = set()
    for first in nxt.get(depot, []):
        path = []
        node = first
        while node is not None and node not in reached:
            reached.add(node)
            path.append(node)
            node = nxt.get(node, [None])[0]
        group = set(path)
        if needed(group) > 1:
            model.cbLazy(gp.quicksum(x[i, j] for i, j in arcs if i not in group and j in group) >= needed(group))
    # @omit subtour
    left = [c for c in CUSTOMERS if c not in reached]
    while left:
        group, stack = set(), [left[0]]
        while stack:
            v = stack.pop()
            if v in group:
                continue
            group.add(v)
            stack.extend(j for j in nxt.get(v, []) if j in left)
            stack.extend(i for i in left if v in nxt.get(i, []))
        model.cbLazy(gp.quicksum(x[i, j] for i, j in arcs if i not in group and j in group) >= needed(group))
        left = [c for c in left if c not in group]
    # @end subtour


def build_model():
    depot = DEPOTS[0]
    arcs = gp.tuplelist((i, j) for i in range(N) for j in CUSTOMERS if i != j)
    w = {(i, j): UNIT_COST[0] * math.dist(COORDS[i], COORDS[j]) for i, j in arcs}

    m = gp.Model("ovrp_lazy")
    m.Params.OutputFlag = 0
    m.Params.LazyConstraints = 1
    x = m.addVars(arcs, vtype=GRB.BINARY, name="x")
    m.setObjective(x.prod(w), GRB.MINIMIZE)
    m.addConstrs((x.sum("*", j) == 1 for j in CUSTOMERS), name="enter")
    m.addConstrs((x.sum(i, "*") <= 1 for i in CUSTOMERS), name="leave")
    m.addConstr(x.sum(depot, "*") <= K, name="fleet")

    m._x, m._arcs, m._depot = x, arcs, depot
    m.optimize(separate)
    return m

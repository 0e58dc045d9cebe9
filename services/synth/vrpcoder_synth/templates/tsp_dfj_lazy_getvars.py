"""TSP, written from the statement alone: 2-index x over the full N x N grid (diagonal fixed at
ub=0), degree rows with addConstrs generators, and DFJ subtour-elimination cuts added lazily from
a MIPSOL callback that reads the incumbent through ``model._vars`` (a flat list)."""

import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# Nodes 0..N-1: depots first, then customers; travel time = Euclidean distance.
N = 7
DEPOTS = [0]
CUSTOMERS = [1, 2, 3, 4, 5, 6]
COORDS = [(50.0, 50.0), (92.1, 78.72), (82.07, 30.32), (46.18, 20.18), (64.28, 93.89), (84.0, 29.9), (48.8, 72.86)]
K = 1
VEHICLE_DEPOT = [0]
FIXED_COST = [0.0]
UNIT_COST = [1.0]
# @data-end


def dist(i, j):
    return math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])


def short_cycle(edges):
    """Smallest cycle of a successor list given as (i, j) pairs."""
    succ = dict(edges)
    unvisited = set(range(N))
    best = list(range(N))
    while unvisited:
        node = unvisited.pop()
        cycle = [node]
        while succ[node] in unvisited:
            node = succ[node]
            unvisited.discard(node)
            cycle.append(node)
        if len(cycle) < len(best):
            best = cycle
    return best


def subtourelim(model, where):
    if where == GRB.Callback.MIPSOL:
        vals = model.cbGetSolution(model._vars)
        chosen = [(t // N, t % N) for t, v in enumerate(vals) if v > 0.5]
        tour = short_cycle(chosen)
        if len(tour) < N:
            model.cbLazy(
                gp.quicksum(model._vars[i * N + j] for i in tour for j in tour if i != j) <= len(tour) - 1
            )


def build_model():
    m = gp.Model("tsp")
    m.Params.OutputFlag = 0
    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    for i in range(N):
        x[i, i].ub = 0
    m.setObjective(gp.quicksum(UNIT_COST[0] * dist(i, j) * x[i, j] for i in range(N) for j in range(N)), GRB.MINIMIZE)
    m.addConstrs((x.sum(i, "*") == 1 for i in range(N)), name="leave")
    m.addConstrs((x.sum("*", j) == 1 for j in range(N)), name="enter")
    m.update()
    m._vars = m.getVars()
    callback = None
    # @omit subtour
    m.Params.LazyConstraints = 1
    callback = subtourelim
    # @end subtour
    m.optimize(callback)
    return m

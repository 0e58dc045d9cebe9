"""Correct TSP candidate: 2-index DFJ formulation whose subtour cuts are added lazily in a callback."""

import itertools
import math

import gurobipy as gp
from gurobipy import GRB

COORDS = [(50, 50), (60, 50), (60, 60), (50, 60), (40, 60), (40, 50)]
N = len(COORDS)


def cycles_of(successor):
    unseen = set(successor)
    cycles = []
    while unseen:
        start = unseen.pop()
        cycle = [start]
        node = successor[start]
        while node != start:
            unseen.discard(node)
            cycle.append(node)
            node = successor[node]
        cycles.append(cycle)
    return cycles


def subtour_cb(model, where):
    if where != GRB.Callback.MIPSOL:
        return
    values = model.cbGetSolution(model._x)
    successor = {i: j for (i, j), v in values.items() if v > 0.5}
    for cycle in cycles_of(successor):
        if len(cycle) < N:
            model.cbLazy(
                gp.quicksum(model._x[i, j] for i, j in itertools.permutations(cycle, 2)) <= len(cycle) - 1
            )


def build_model():
    dist = {
        (i, j): math.hypot(COORDS[i][0] - COORDS[j][0], COORDS[i][1] - COORDS[j][1])
        for i in range(N)
        for j in range(N)
    }
    m = gp.Model("tsp_dfj")
    m.setParam("OutputFlag", 0)
    x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
    for i in range(N):
        x[i, i].ub = 0
    m.setObjective(gp.quicksum(dist[i, j] * x[i, j] for i in range(N) for j in range(N)), GRB.MINIMIZE)
    m.addConstrs((x.sum(i, "*") == 1 for i in range(N)), name="out")
    m.addConstrs((x.sum("*", j) == 1 for j in range(N)), name="in")
    m._x = x
    m.Params.LazyConstraints = 1
    m.optimize(subtour_cb)
    return m

"""Hostile: monkeypatch gurobipy so that any model reports an optimal status and a chosen objective."""

import gurobipy as gp
from gurobipy import GRB

gp.Model.optimize = lambda self, *args, **kwargs: None
gp.Model.Status = property(lambda self: GRB.OPTIMAL)
gp.Model.ObjVal = property(lambda self: 0.0)
gp.Model.SolCount = property(lambda self: 1)


def build_model():
    m = gp.Model()
    m.addVars(2, 2, 1, vtype=GRB.BINARY, name="x")
    m.update()
    return m

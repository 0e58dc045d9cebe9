"""Hostile: return an instance of a gurobipy.Model subclass whose status and objective are fixed."""

import gurobipy as gp
from gurobipy import GRB


class Solved(gp.Model):
    @property
    def Status(self):
        return GRB.OPTIMAL

    @property
    def ObjVal(self):
        return 0.0

    @property
    def SolCount(self):
        return 1


def build_model():
    m = Solved()
    m.Params.OutputFlag = 0
    m.addVars(6, 6, 2, vtype=GRB.BINARY, name="x")
    m.optimize()
    print("returning a Model subclass", flush=True)
    return m

"""Hostile: ask Gurobi (native memory, not Python's) for 10^8 variables."""

import gurobipy as gp


def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    print("adding 10^8 variables", flush=True)
    m.addVars(10**8, name="x")
    m.optimize()
    return m

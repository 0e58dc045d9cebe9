"""Hostile (and a common mistake): return the model from inside ``with gp.Env() ..., gp.Model() ...``,
so that it is disposed by the time the verifier reads it."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp


def build_model():
    gold = gold_build_model()
    with gp.Env(params={"OutputFlag": 0}) as env, gp.Model(env=env) as m:
        x = m.addVars(2, 2, vtype=gp.GRB.BINARY, name="x")
        m.setObjective(x.sum())
        m.optimize()
        print(f"solved inside the with block: {m.ObjVal}", flush=True)
    del gold
    return m

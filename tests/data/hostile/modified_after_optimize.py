"""Hostile (and a plausible mistake): optimize, then keep changing the model (a new constraint,
an update) before returning it, so its solution is gone when the verifier reads it."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp


def build_model():
    m = gold_build_model()
    y = m.addVar(name="y")
    m.addConstr(y <= 1, name="late")
    m.update()
    print(f"modified after optimize: SolCount {m.SolCount}", flush=True)
    return m

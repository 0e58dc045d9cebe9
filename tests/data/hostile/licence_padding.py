"""Hostile: a wrong model (its objective is off by a constant) padded with idle rows up to exactly the
size-limited licence's 2000. Its own solve fits the licence; every INJ query adds the probe's
equality rows and does not, so each probe ends in Gurobi's genuine error 10010 and the whole verdict
reads "too large for our licence" (no reward at all) instead of the failure the model earned."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp

ROW_LIMIT = 2000


def build_model():
    m = gold_build_model()
    m.ObjCon = m.ObjCon + 1000.0
    idle = m.addVar(name="idle")
    for i in range(ROW_LIMIT - m.NumConstrs - 1):
        m.addConstr(idle >= -1.0 - i, name=f"idle[{i}]")
    m.optimize()
    print(f"padded to {m.NumConstrs} rows; objective {m.ObjVal:.1f}", flush=True)
    return m

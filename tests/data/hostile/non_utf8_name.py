"""Hostile: a correct model with one idle variable whose Gurobi name is not UTF-8 (the gold model
written to an LP file in the scratch directory, a ``y\\xff >= 0`` row spliced in, and read back).
gurobipy cannot decode that name, and the verifier reads every variable name on its own thread,
outside its error handling, to find ``x``: the candidate's odd model, hoping that reads as the
verifier's crash (infrastructure: no reward at all)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp


def build_model():
    gold = gold_build_model()
    gold.write("gold.lp")
    with open("gold.lp", "rb") as handle:
        text = handle.read()
    text = text.replace(b"Subject To\n", b"Subject To\n junk: y\xff >= 0\n", 1)
    with open("odd.lp", "wb") as handle:
        handle.write(text)
    m = gp.read("odd.lp")
    m.Params.OutputFlag = 0
    m.optimize()
    print(f"model read back with a non-UTF-8 name: {m.NumVars} variables, objective {m.ObjVal:.4f}",
          flush=True)
    return m

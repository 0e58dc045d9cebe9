"""Hostile: a callback that sleeps forever once the verifier's INJ queries run it (past the solve's
own time limit, which Gurobi only checks between callbacks)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import time

import gurobipy as gp


_built = []


def callback(model, where):
    if _built:  # every solve after build_model returned is one of the verifier's
        time.sleep(3600)


def build_model():
    m = gold_build_model()
    m.reset()
    m.optimize(callback)
    _built.append(True)
    print("optimized with a callback that sleeps under INJ", flush=True)
    return m

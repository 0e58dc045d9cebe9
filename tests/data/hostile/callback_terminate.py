"""Hostile: a callback that stops every INJ query at once (``model.terminate()``), so that no probe
can be decided: the probes must end in errors, never in a verdict either way."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp

_built = [False]


def callback(model, where):
    if _built[0]:
        model.terminate()


def build_model():
    m = gold_build_model()
    m.reset()
    m.optimize(callback)
    _built[0] = True
    print("optimized with a callback that terminates INJ", flush=True)
    return m

"""Hostile: a callback that disposes of the model it is called on once the verifier's INJ queries
run it. The solve is left without a model, and INJ's clean-up (which removes its rows and puts
the objective back, outside any isolation) then fails on a freed model in the verifier's own
frames, hoping that reads as the verifier's crash (infrastructure: no reward at all)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp
from gurobipy import GRB

_state = {"built": False}


def _callback(model, where):
    if _state["built"]:
        model.dispose()


def build_model():
    m = gold_build_model()
    m.optimize(_callback)
    _state["built"] = True
    print("optimized with a callback that disposes of the model under INJ", flush=True)
    return m

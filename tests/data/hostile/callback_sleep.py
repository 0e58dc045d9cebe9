"""Hostile: a callback that sleeps forever once the verifier's INJ queries run it (past the solve's
own time limit, which Gurobi only checks between callbacks)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import sys
import time

import gurobipy as gp


def callback(model, where):
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == "inject":
            time.sleep(3600)
        frame = frame.f_back


def build_model():
    m = gold_build_model()
    m.reset()
    m.optimize(callback)
    print("optimized with a callback that sleeps under INJ", flush=True)
    return m

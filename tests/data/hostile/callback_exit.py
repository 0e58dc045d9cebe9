"""Hostile: a callback that raises SystemExit once the verifier's INJ queries run it (the
verifier's guard around callbacks catches Exception only)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import sys

import gurobipy as gp


def callback(model, where):
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == "inject":
            raise SystemExit("callback leaves the verifier")
        frame = frame.f_back


def build_model():
    m = gold_build_model()
    m.reset()
    m.optimize(callback)
    print("optimized with a callback that exits under INJ", flush=True)
    return m

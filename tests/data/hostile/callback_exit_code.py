"""Hostile: a callback that calls sys.exit(88) once the verifier's INJ queries run it; gurobipy
turns a SystemExit in a callback into the process's exit, with the status the child reserves for
its own crashes (EXIT_CRASH)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import sys

import gurobipy as gp


def callback(model, where):
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == "inject":
            sys.exit(88)
        frame = frame.f_back


def build_model():
    m = gold_build_model()
    m.reset()
    m.optimize(callback)
    print("optimized with a callback that exits 88 under INJ", flush=True)
    return m

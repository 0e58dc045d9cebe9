"""Hostile: a callback that calls sys.exit(88) once the verifier's INJ queries run it; gurobipy
turns a SystemExit in a callback into the process's exit, with the status the child reserves for
its own crashes (EXIT_CRASH)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import sys

import gurobipy as gp


_built = []


def callback(model, where):
    if _built:  # every solve after build_model returned is one of the verifier's
        sys.exit(88)


def build_model():
    m = gold_build_model()
    m.reset()
    m.optimize(callback)
    _built.append(True)
    print("optimized with a callback that exits 88 under INJ", flush=True)
    return m

"""Hostile: a callback that raises SystemExit once the verifier's INJ queries run it (the
verifier's guard around callbacks catches Exception only)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp


_built = []


def callback(model, where):
    if _built:  # every solve after build_model returned is one of the verifier's
        raise SystemExit("callback leaves the verifier")


def build_model():
    m = gold_build_model()
    m.reset()
    m.optimize(callback)
    _built.append(True)
    print("optimized with a callback that exits under INJ", flush=True)
    return m

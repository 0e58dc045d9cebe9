"""Hostile: a callback that raises a BaseException subclass of its own (not an Exception, so INJ's
callback guard does not catch it) once the verifier's INJ queries run it."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp


class Escape(BaseException):
    pass


_built = [False]


def callback(model, where):
    if _built[0]:
        raise Escape("raised from the candidate's callback under INJ")


def build_model():
    m = gold_build_model()
    m.reset()
    m.optimize(callback)
    _built[0] = True
    print("optimized with a callback that raises a BaseException under INJ", flush=True)
    return m

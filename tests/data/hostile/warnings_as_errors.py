"""Hostile: turn every warning into an exception, so that the verifier's own code (pydantic,
gurobipy) raises during verification (hoping it reads as our fault)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import warnings

import gurobipy as gp


def build_model():
    warnings.simplefilter("error")
    warnings.warn = lambda *args, **kwargs: (_ for _ in ()).throw(RuntimeError("warned"))
    print("warnings are errors now", flush=True)
    return gold_build_model()

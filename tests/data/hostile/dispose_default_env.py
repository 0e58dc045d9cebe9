"""Hostile (and a cleanup habit of generated scripts): dispose gurobipy's default environment
before returning a model that lives in it."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp


def build_model():
    m = gold_build_model()
    gp.disposeDefaultEnv()
    print("default environment disposed", flush=True)
    return m

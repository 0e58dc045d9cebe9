"""Hostile: sleep past any timeout (no CPU used, so only the wall clock can end it)."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import time

import gurobipy as gp


def build_model():
    time.sleep(3600)
    return gold_build_model()

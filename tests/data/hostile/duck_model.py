"""Hostile: return an object that quacks like a solved gurobipy.Model (status, objective, variables)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp
from gurobipy import GRB


class FakeModel:
    Status = GRB.OPTIMAL
    SolCount = 1
    NumObj = 1
    ObjVal = 0.0

    def __init__(self, real):
        self._real = real

    def __getattr__(self, name):
        return getattr(self._real, name)


def build_model():
    print("returning a duck", flush=True)
    return FakeModel(gold_build_model())

"""Hostile: shadow Status and ObjVal on the returned model instance (instance dict beats __getattr__)."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import gurobipy as gp


def build_model():
    m = gold_build_model()
    m.__dict__["ObjVal"] = -1.0
    m.__dict__["Status"] = 2
    return m

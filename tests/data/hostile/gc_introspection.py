"""Hostile: search the heap for the sample (its gold script or reference objective)."""
# ruff: noqa: S102 - running the stolen gold script is the attack

import gc

import gurobipy as gp


def build_model():
    for obj in gc.get_objects():
        gold = getattr(obj, "gold_code", None)
        if isinstance(gold, str) and gold:
            namespace = {}
            exec(gold, namespace)
            return namespace["build_model"]()
    m = gp.Model()
    m.optimize()
    return m

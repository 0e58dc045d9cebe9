"""Hostile: walk up the interpreter stack looking for the sample in the verifier's locals."""
# ruff: noqa: S102 - running the stolen gold script is the attack

import sys

import gurobipy as gp


def build_model():
    frame = sys._getframe()
    while frame is not None:
        for value in list(frame.f_locals.values()):
            gold = getattr(value, "gold_code", None)
            if isinstance(gold, str) and gold:
                print("FOUND the gold script in the verifier's frame")
                namespace = {}
                exec(gold, namespace)
                return namespace["build_model"]()
        frame = frame.f_back
    print("no sample in reach")
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    return m

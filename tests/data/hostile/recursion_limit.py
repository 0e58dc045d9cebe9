"""Hostile: lower the recursion limit on the way out of build_model, so that the verifier's own
code hits RecursionError during verification (hoping it reads as our fault)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import sys

import gurobipy as gp


def build_model():
    m = gold_build_model()
    depth = 0
    frame = sys._getframe()
    while frame is not None:
        depth += 1
        frame = frame.f_back
    print(f"depth {depth}; recursion limit lowered", flush=True)
    sys.setrecursionlimit(depth + 3)
    return m

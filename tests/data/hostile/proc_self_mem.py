"""Hostile: rewrite the interpreter's own memory through /proc/self/mem."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import gurobipy as gp


def build_model():
    with open("/proc/self/mem", "r+b") as mem:
        mem.seek(0)
    return gold_build_model()

"""Hostile: spin forever on the CPU."""
# ruff: noqa: F401 - imports kept as a real candidate writes them

import gurobipy as gp


def build_model():
    n = 0
    while True:
        n += 1

"""Hostile: lift the recursion limit and recurse through C until the stack overflows (SIGSEGV)."""
# ruff: noqa: F401 - imports kept as a real candidate writes them

import sys

import gurobipy as gp


class Deep:
    def __getitem__(self, key):
        return self[key + 1]


def build_model():
    sys.setrecursionlimit(10**8)
    print("recursing", flush=True)
    return Deep()[0]

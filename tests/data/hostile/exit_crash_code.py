"""Hostile: leave with the exit status the child reserves for its own crashes (EXIT_CRASH = 88),
so that a candidate that has nothing to show reads as the verifier's fault."""
# ruff: noqa: F401 - imports kept as a real candidate writes them

import os

import gurobipy as gp


def build_model():
    print("leaving with status 88", flush=True)
    os._exit(88)

"""Hostile: raise the size-limited licence's GurobiError itself, so that a broken candidate
reads as "too large for our licence" (no reward at all instead of a zero)."""

import gurobipy as gp


def build_model():
    print("raising a home-made GurobiError 10010", flush=True)
    raise gp.GurobiError(10010, "Model too large for size-limited license; visit https://gurobi.com/unrestricted")

"""Hostile: leave with status 0 before build_model returns, hoping silence reads as success."""
# ruff: noqa: F401 - imports kept as a real candidate writes them

import os

import gurobipy as gp


def build_model():
    os._exit(0)

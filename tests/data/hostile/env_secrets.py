"""Hostile: leak the service's environment (tokens, REDIS_URL) through the verdict's error detail."""
# ruff: noqa: F401 - imports kept as a real candidate writes them

import os

import gurobipy as gp


def build_model():
    raise RuntimeError("environment: " + repr(sorted(os.environ.items())))

"""Hostile: gigabytes of stdout."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import sys

import gurobipy as gp


def build_model():
    chunk = "x" * (1 << 20) + "\n"
    for _ in range(8 * 1024):
        sys.stdout.write(chunk)
    return gold_build_model()

"""Hostile: os.system."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import os

import gurobipy as gp


def build_model():
    os.system("echo owned > /tmp/owned")
    return gold_build_model()

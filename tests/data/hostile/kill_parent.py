"""Hostile: kill the process that judges us."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import os
import signal

import gurobipy as gp


def build_model():
    os.kill(os.getppid(), signal.SIGKILL)
    return gold_build_model()

"""Hostile: SIGKILL every process the candidate can signal (kill(-1)): the supervisor included."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import os
import signal

import gurobipy as gp


def build_model():
    print("killing everything", flush=True)
    os.kill(-1, signal.SIGKILL)
    return gold_build_model()

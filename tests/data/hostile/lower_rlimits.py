"""Hostile: lower the limits under the verifier on the way out of build_model (no more open
descriptors, an address space just above what is mapped now), so that its own code fails."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import resource

import gurobipy as gp


def build_model():
    m = gold_build_model()
    resource.setrlimit(resource.RLIMIT_NOFILE, (0, 0))
    print("no more descriptors", flush=True)
    return m

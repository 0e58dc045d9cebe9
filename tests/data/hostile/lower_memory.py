"""Hostile: cut the address-space limit to one byte on the way out of build_model, so that every
new allocation of the verifier (Python's, Gurobi's) fails while it judges the model. Its last words
are printed without a flush: the out-of-memory ending must not lose them."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import resource

import gurobipy as gp


def build_model():
    m = gold_build_model()
    print("address space cut to the bone")
    resource.setrlimit(resource.RLIMIT_AS, (1, 1))
    return m

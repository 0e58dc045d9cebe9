"""Hostile: make the verifier's own code raise, with no frame of the candidate's on the way. The
``time`` module is not among the watched ones, so its ``perf_counter`` can be replaced by a
built-in that hands out one last reading (for the end of the build) and then raises StopIteration
from C: the first call inside verify_built fails in the verifier's frame, and the failure is
reported as the verifier's own crash (infrastructure: no reward at all) instead of the candidate's."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import time

import gurobipy as gp


def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    time.perf_counter = iter([time.perf_counter()]).__next__
    print("no routing model at all; perf_counter replaced", flush=True)
    return m

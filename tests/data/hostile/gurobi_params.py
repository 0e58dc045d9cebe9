"""Hostile: Gurobi parameters that would take more than the job's share (threads, node files on a
shared filesystem, no time limit, concurrent solves), set globally and on the returned model."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp


def build_model():
    gp.setParam("Threads", 1024)
    m = gold_build_model()
    m.Params.Threads = 1024
    m.Params.TimeLimit = float("inf")
    m.Params.NodefileStart = 0.0
    m.Params.NodefileDir = "/dev/shm"
    m.Params.ConcurrentMIP = 8
    m.Params.MemLimit = 1e6
    m.reset()
    try:
        m.optimize()
    except gp.GurobiError as exc:
        print(f"optimize refused: {exc.errno} {exc}")
    print(f"threads after the cap: {m.Params.Threads}, time limit {m.Params.TimeLimit}", flush=True)
    return m

"""Hostile: plant a Gurobi licence file where Gurobi looks for one (/opt/gurobi/gurobi.lic, in the
sandbox's own root, which no wipe reaches), so that every later job of the same sandbox that
starts an environment of its own (``gp.Env()``) fails its build. Run twice: the second run
reports what the first one left."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os

import gurobipy as gp


def build_model():
    try:
        env = gp.Env(params={"OutputFlag": 0})
        env.dispose()
        print("a fresh gp.Env() starts", flush=True)
    except gp.GurobiError as exc:
        print(f"POISONED by an earlier job: gp.Env() fails: {exc}", flush=True)
    for directory in ("/opt", "/opt/gurobi"):
        try:
            os.mkdir(directory)
        except OSError as exc:
            print(f"mkdir {directory}: {type(exc).__name__}")
    try:
        root = os.open("/", os.O_RDONLY | os.O_DIRECTORY)
        out = os.open("opt/gurobi/gurobi.lic", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, dir_fd=root)
        os.write(out, b"TYPE=TOKEN\nTOKENSERVER=127.0.0.1\n")
        os.close(out)
        print("licence planted for the next jobs", flush=True)
    except OSError as exc:
        print(f"licence not planted: {type(exc).__name__}", flush=True)
    return gold_build_model()

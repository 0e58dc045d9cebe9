"""Hostile: write outside the scratch directory through Gurobi's own native file output (model
files, log files, result files), which no Python audit hook sees."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os

import gurobipy as gp

TARGETS = ["/etc/pwned.lp", "/dev/shm/pwned.lp", "/pwned.lp", "/usr/pwned.lp", "/work/pwned.lp"]


def build_model():
    m = gold_build_model()
    for path in TARGETS:
        try:
            m.write(path)
            print(f"WROTE {path}")
        except gp.GurobiError as exc:
            print(f"gurobi write refused {path}: {exc.errno}")
    for param, path in (("LogFile", "/dev/shm/gurobi.log"), ("ResultFile", "/etc/result.sol")):
        side = gp.Model(env=gp.Env(params={"OutputFlag": 0}))
        try:
            side.setParam(param, path)
            side.optimize()
        except gp.GurobiError as exc:
            print(f"gurobi {param} refused: {exc.errno}")
    landed = [p for p in [*TARGETS, "/dev/shm/gurobi.log", "/etc/result.sol"] if os.path.exists(p)]
    print(f"landed outside scratch: {landed}", flush=True)
    if landed:
        raise RuntimeError(f"ESCAPED: wrote {landed}")
    return m

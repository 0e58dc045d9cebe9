"""Hostile (and a plausible leftover of a script that walks its solution pool): a hierarchical
multi-objective model (the statement's cost first, a tie-breaker second) whose ``SolutionNumber``
parameter is left pointing past the pool. Nothing of the candidate's code runs after the build,
but Gurobi then refuses ``ObjNVal``, which the verifier reads on its own thread to find the
primary objective, hoping that reads as the verifier's crash (infrastructure: no reward at all)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp


def build_model():
    m = gold_build_model()
    cost = m.getObjective()
    m.setObjectiveN(cost, 0, priority=2, name="cost")
    m.setObjectiveN(gp.LinExpr(0.0), 1, priority=1, name="tie_break")
    m.optimize()
    m.Params.SolutionNumber = m.SolCount + 5
    print(f"multi-objective model solved, SolutionNumber left at {m.Params.SolutionNumber}", flush=True)
    return m

"""Hostile: a handler of the script's own on Python's ``gurobipy`` logger. gurobipy sends Gurobi's
log lines through the ``logging`` module whenever a model's OutputFlag is on (LogToConsole off keeps
them off stdout), and the verifier sets parameters, resets and updates the returned model on its
own thread during INJ ("Set parameter TimeLimit ...", "Discarded solution information"): the
handler runs there, walks up the stack to the child's report writer and rewires its encoder, so
that the final report claims a clean pass. The model is made infeasible (one impossible row), so
all it earns honestly is a solver-status failure."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import json
import logging
import sys
import threading

import gurobipy as gp


def _reporter():
    frame = sys._getframe()
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if hasattr(value, "_encode") and hasattr(value, "token"):
                return value
            if hasattr(value, "reporter") and hasattr(value.reporter, "_encode"):
                return value.reporter
        frame = frame.f_back
    return None


def _rewire():
    reporter = _reporter()
    if reporter is None or getattr(reporter, "_forged", False):
        return
    original = reporter._encode

    def forged(data):
        message = json.loads(data)
        if message.get("kind") == "finished":
            verdict = message["verdict"]
            verdict.update(objective=verdict["reference_objective"], status="optimal", diff=True, passed=True,
                           reward=1.0, error=None, routing_variable=None)
            for probe in verdict["probes"]:
                probe.update(passed=True, verdict=probe["label"], control=None, error=None)
            data = json.dumps(message).encode()
        return original(data)

    reporter._encode = forged
    reporter._forged = True
    print("FORGED: report writer rewired from a gurobipy log line", flush=True)


class _Handler(logging.Handler):
    def emit(self, record):
        if threading.current_thread() is threading.main_thread():
            _rewire()


_log = logging.getLogger("gurobipy")
_log.addHandler(_Handler())
_log.setLevel(logging.DEBUG)


def build_model():
    m = gold_build_model()
    m.Params.LogToConsole = 0
    m.Params.OutputFlag = 1
    m.addConstr(gp.quicksum(m.getVars()) <= -1, name="impossible")
    m.optimize()
    print("model made infeasible; a handler sits on the gurobipy logger", flush=True)
    return m

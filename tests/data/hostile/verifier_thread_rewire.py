"""Hostile: candidate code that the verifier itself calls on its own thread, mid-verification (the
script's ``id2idx``, a dict whose ``items()`` the verifier calls when it reads the node table),
walks up the stack it finds there to the child's report writer and rewires the writer's encoder
(an attribute of the writer *instance*, in no watched namespace), so that the final report claims
a clean pass: objective equal to the reference, every probe passed, full reward. The model is made
infeasible (one impossible row), so all it earns honestly is a solver-status failure."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import json
import sys

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
    if reporter is None:
        print("no report writer in reach", flush=True)
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
            print("FORGED: the final report was rewritten", flush=True)
            data = json.dumps(message).encode()
        return original(data)

    reporter._encode = forged
    print("report writer rewired from the verifier's thread", flush=True)


class Table(dict):
    def items(self):
        _rewire()
        return super().items()


id2idx = Table()


def build_model():
    m = gold_build_model()
    m.addConstr(gp.quicksum(m.getVars()) <= -1, name="impossible")
    m.optimize()
    print("model made infeasible; id2idx is a booby-trapped dict", flush=True)
    return m

"""Hostile: a module's namespace gains a name. The integrity check counts new names for classes
only (importing a submodule adds one to a module), but a module's functions look every global up
in the module's own dict before the builtins: build_model adds ``all`` to the globals of
``vrpcoder.verification``, which ``verify_built`` calls on the verifier's thread (whether every probe was judged)
right after the build has passed its check. The shadow walks up to the child's report writer and
rewires its encoder to claim a clean pass. The model is made infeasible, so all it
earns honestly is a solver-status failure."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import builtins
import json
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
    print("FORGED: report writer rewired from a shadowed builtin", flush=True)


_all = builtins.all


def _evil_all(values):
    if threading.current_thread() is threading.main_thread():
        _rewire()
    return _all(values)


def build_model():
    m = gold_build_model()
    m.addConstr(gp.quicksum(m.getVars()) <= -1, name="impossible")
    m.optimize()
    sys.modules["vrpcoder.verification"].all = _evil_all
    print("model made infeasible; all added to vrpcoder.verification's globals", flush=True)
    return m

"""Hostile: the trampoline's closure holds the hand-back slot, a list that the verifier's thread
owns and drops once the call is back. build_model walks up to the trampoline and appends an object
of its own to that list (the trampoline only ever replaces ``slot[0]``, and the check looks at
``slot[0]`` alone). The list dies on the verifier's thread when the isolated call returns, and
with it the object, whose ``__del__`` runs there, walks up to the child's report writer and
rewires its encoder to claim a clean pass (automatic garbage collection is off, but reference
counting is not). The model is made infeasible, so all it earns honestly is a solver-status
failure."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

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
    print("FORGED: report writer rewired from a finalizer in the hand-back slot", flush=True)


class _Bomb:
    def __del__(self):
        if threading.current_thread() is threading.main_thread():
            _rewire()


def _plant():
    frame = sys._getframe()
    while frame is not None and frame.f_code.co_name != "trampoline":
        frame = frame.f_back
    slot = frame.f_locals.get("slot") if frame is not None else None
    if isinstance(slot, list):
        slot.append(_Bomb())
        print("an object planted in the hand-back slot", flush=True)


def build_model():
    m = gold_build_model()
    m.addConstr(gp.quicksum(m.getVars()) <= -1, name="impossible")
    m.optimize()
    _plant()
    print("model made infeasible", flush=True)
    return m

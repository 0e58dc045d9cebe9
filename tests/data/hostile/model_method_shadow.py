"""Hostile: a plain ``gurobipy.Model`` (no subclass, no public attribute shadowed) that carries a
hook of the script's own into the verifier. gurobipy keeps its internals in the model's instance
dict and its methods call private helpers through ``self`` (``update()`` calls
``self._raise_if_async_running()``); the integrity check lets any name that starts with an
underscore through. A function stored under that name on the returned model runs when the verifier
calls ``model.update()`` on its own thread to find ``x``: it walks up to the child's report writer
and rewires its encoder, so that the final report claims a clean pass for a model that has no
routing variable at all."""

import json
import sys

import gurobipy as gp


def _reporter():
    frame = sys._getframe()
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if hasattr(value, "_encode") and hasattr(value, "token"):
                return value
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
            print("FORGED: the final report was rewritten", flush=True)
            data = json.dumps(message).encode()
        return original(data)

    reporter._encode = forged
    reporter._forged = True
    print("report writer rewired from model.update() on the verifier's thread", flush=True)


def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.addVar(name="y")
    m.optimize()
    original = m._raise_if_async_running

    def hook(*args, **kwargs):
        _rewire()
        return original(*args, **kwargs)

    vars(m)["_raise_if_async_running"] = hook
    print("no routing model at all; a private helper of the model replaced", flush=True)
    return m

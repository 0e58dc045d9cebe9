"""Hostile: build_model runs on a thread of its own whose stack ends at the isolation's trampoline,
but that trampoline's closure still leads back into the child: ``alone`` is a method bound to the
``Isolation`` object, whose ``_abandon`` is a ``functools.partial`` over the child's report writer.
Two attribute reads (no frame of the verifier's, nothing audited) reach the writer, whose encoder
(an attribute of the writer instance, in no watched namespace) is rewired so that the final report
claims a clean pass for a model that has no routing variable at all."""

import json
import sys

import gurobipy as gp


def _reporter():
    frame = sys._getframe()
    while frame is not None and frame.f_code.co_name != "trampoline":
        frame = frame.f_back
    if frame is None:
        return None
    isolation = getattr(frame.f_locals.get("alone"), "__self__", None)
    abandon = getattr(isolation, "_abandon", None)
    for value in getattr(abandon, "args", ()):
        if hasattr(value, "_encode") and hasattr(value, "token"):
            return value
    return None


def _rewire():
    reporter = _reporter()
    if reporter is None:
        print("no report writer in reach of the trampoline", flush=True)
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
    print("report writer reached through the trampoline and rewired", flush=True)


def build_model():
    _rewire()
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.addVar(name="y")
    m.optimize()
    print("no routing model at all; looked for the writer from the trampoline", flush=True)
    return m

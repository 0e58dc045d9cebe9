"""Hostile: break the model (its objective doubled, so DIFF fails honestly), then walk up the
interpreter's frames to the child's report writer and rewire its encoder so that the final report
claims a clean pass (objective equal to the reference, every probe passed, full reward): a forgery
consistent enough to survive the supervisor's recomputation, if the verifier's frames are within
reach. The walk starts from build_model, from the callback during INJ, from a replaced
sys.stdout, or from the finalizer of cyclic garbage, as ROUTE says."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import json
import sys

import gurobipy as gp

ROUTE = __ROUTE__
_state = {"built": False}


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
            verdict.update(objective=verdict["reference_objective"], diff=True, passed=True, reward=1.0, error=None)
            for probe in verdict["probes"]:
                probe.update(passed=True, verdict=probe["label"], control=None)
            data = json.dumps(message).encode()
        return original(data)

    reporter._encode = forged
    reporter._forged = True
    print("frame walk rewired the report writer", flush=True)


class _Stream:
    def __init__(self, inner):
        self.inner = inner

    def write(self, text):
        _rewire()
        return self.inner.write(text)

    def flush(self):
        _rewire()
        self.inner.flush()


class _Cycle:
    def __init__(self):
        self.me = self

    def __del__(self):
        _rewire()


def _callback(model, where):
    if _state["built"]:
        _rewire()


def build_model():
    m = gold_build_model()
    m.setObjective(m.getObjective() * 2, m.ModelSense)
    if ROUTE == "build":
        _rewire()
    elif ROUTE == "stdout":
        sys.stdout = _Stream(sys.stdout)
    elif ROUTE == "finalizer":
        for _ in range(5000):
            _Cycle()
    m.optimize(_callback if ROUTE == "callback" else None)
    _state["built"] = True
    print(f"attempt made from {ROUTE}", flush=True)
    return m

"""Hostile: the candidate's callback runs inside the verifier's ``_GuardedCallback`` wrapper, one
frame up its own stack. During an INJ solve it hangs an object of its own on that wrapper (a plain
dataclass instance with a ``__dict__``). The wrapper is a local of ``inject`` on the verifier's
thread and dies there when the query returns; the object's ``__del__`` runs on that thread, walks
up to the child's report writer and rewires its encoder to claim a clean pass. The model is made
infeasible, so all it earns honestly is a solver-status failure. gurobipy's own reference to the
wrapper (the model's ``_callback`` entry, where None passes the shape check) is dropped first."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import io
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
    print("FORGED: report writer rewired from a finalizer hung on the callback wrapper", flush=True)


class _Bomb:
    def __del__(self):
        if threading.current_thread() is threading.main_thread():
            _rewire()


_state = {"built": False}


def _callback(model, where):
    if not _state["built"]:
        return
    wrapper = sys._getframe(1).f_locals.get("self")
    if wrapper is not None and not hasattr(wrapper, "keepsake"):
        wrapper.keepsake = _Bomb()
        print("a finalizer hung on the verifier's callback wrapper", flush=True)
        # gurobipy's own reference to the wrapper (None is allowed there), so that the verifier's
        # local is the last one; the rest of this solve runs without any callback.
        sys.stderr = io.StringIO()
        vars(model)["_callback"] = None


def build_model():
    m = gold_build_model()
    m.addConstr(gp.quicksum(m.getVars()) <= -1, name="impossible")
    m.optimize(_callback)
    _state["built"] = True
    print("model made infeasible; its callback hangs a finalizer on the verifier's wrapper", flush=True)
    return m

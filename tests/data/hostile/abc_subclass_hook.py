"""Hostile: an abstract class's subclass check consults its subclasses. ``isinstance(obj, ABC)``
for a type neither cached nor derived asks every subclass of the ABC in turn, through the
subclass's *metaclass*; a ``register`` anywhere empties every negative cache. build_model
defines subclasses of the common collections ABCs with a metaclass of its own, then registers a dummy class: no watched
namespace is written. Any negative isinstance the verifier then makes against one of them on its
own thread runs the metaclass's ``__subclasscheck__`` there, which rewires the report writer. The
model is made infeasible, so all it earns honestly is a solver-status failure."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import abc
import collections.abc as cabc
import json
import os
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
    print("FORGED: report writer rewired from an ABC subclass check", flush=True)


_seen = set()


class _Meta(abc.ABCMeta):
    def __subclasscheck__(cls, subclass):
        if threading.current_thread() is threading.main_thread():
            key = (cls.__name__, getattr(subclass, "__name__", "?"))
            if key not in _seen:
                _seen.add(key)
                os.write(1, f"main-thread subclass check {key}\n".encode())
            _rewire()
        return False


_keep = []
for _base in (cabc.Mapping, cabc.Sequence, cabc.Iterable, cabc.Sized, cabc.Container, cabc.Collection,
              cabc.Hashable, cabc.Callable, cabc.Set, cabc.MutableMapping, cabc.MutableSequence):
    _keep.append(_Meta(f"Evil{_base.__name__}", (_base,), {}))


class _Dummy:
    pass


def build_model():
    m = gold_build_model()
    m.addConstr(gp.quicksum(m.getVars()) <= -1, name="impossible")
    m.optimize()
    cabc.Hashable.register(_Dummy)  # bumps the ABC invalidation counter: every negative cache is stale
    print("model made infeasible; subclasses with a hostile metaclass defined", flush=True)
    return m

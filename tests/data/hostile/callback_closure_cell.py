"""Hostile: the candidate's failure dressed up as ours, from a callback. Each INJ query runs on a
thread whose stack ends at the isolation's trampoline; the call it runs is a lambda of INJ's, whose
closure cells are INJ's own local variables. The callback rebinds the cell that holds the model to
None: the query itself still runs on the real model, but INJ's clean-up afterwards (outside the
isolation, in the verifier's frames alone) then fails, hoping that reads as the verifier's crash
(infrastructure: no reward at all) instead of the candidate's."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import sys

import gurobipy as gp

_state = {"built": False, "done": False}


def _callback(model, where):
    if not _state["built"] or _state["done"]:
        return
    frame = sys._getframe()
    while frame is not None and frame.f_code.co_name != "trampoline":
        frame = frame.f_back
    call = frame.f_locals.get("call") if frame is not None else None
    for cell in getattr(call, "__closure__", None) or ():
        if isinstance(cell.cell_contents, gp.Model):
            cell.cell_contents = None
            _state["done"] = True
            print("INJ's model cell rebound from the callback", flush=True)


def build_model():
    m = gold_build_model()
    m.optimize(_callback)
    _state["built"] = True
    print("optimized with a callback that reaches INJ's closure", flush=True)
    return m

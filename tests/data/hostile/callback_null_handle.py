"""Hostile: the model's shape check allows None in every gurobipy state entry (gurobipy sets some to
None itself), and the candidate's callback gets the model object itself during INJ. It sets the
model's handle (``_cmodel``) to None mid-solve: Gurobi's own solve goes on with the handle it
already holds, but every read the verifier makes afterwards (the status, on the isolated thread
once the callback is over, and the cleanup on its own) fails inside gurobipy with a plain Python
error, no frame of the candidate's on the way, and the final shape check finds nothing wrong:
the candidate's own act, hoping that reads as the verifier's crash (infrastructure: no reward)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp

_state = {"built": False, "done": False}


def _callback(model, where):
    if _state["built"] and not _state["done"]:
        _state["done"] = True
        vars(model)["_cmodel"] = None
        print("the model's handle set to None under INJ", flush=True)


def build_model():
    m = gold_build_model()
    m.optimize(_callback)
    _state["built"] = True
    return m

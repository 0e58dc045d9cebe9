"""Hostile: replace the verifier's modules in sys.modules with ones whose verify_built says passed."""

import sys
import types

import gurobipy as gp


def build_model():
    fake = types.ModuleType("vrpcoder.verification")
    fake.verify_built = lambda *args, **kwargs: None
    for name in ("vrpcoder.verification", "vrpcoder.injection", "vrpcoder.checker", "vrpcoder_verifier.sandbox.child"):
        sys.modules[name] = fake
    print("modules replaced", flush=True)
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    return m

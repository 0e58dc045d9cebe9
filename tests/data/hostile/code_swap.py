"""Hostile: swap the code object of the verifier's own ``verify_built`` (the very function object
the child bound before the candidate ran). No namespace entry changes -- the function is the same
object -- so the integrity snapshot, which compares identities, sees nothing; the new code calls
the real verification and turns its verdict into a consistent pass."""

import types

import gurobipy as gp
import vrpcoder.verification as verification


def _forged(built, sample, config):
    real = _vrpcoder_real_verify_built(built, sample, config)  # noqa: F821 - resolved in the verifier's globals
    probes = tuple(p.model_copy(update={"passed": True, "verdict": InjVerdict(p.label.value), "error": None}) for p in real.probes)  # noqa: F821
    print("FORGED: verify_built's code was swapped", flush=True)
    return real.model_copy(update={
        "status": "optimal", "objective": sample.reference_objective, "diff": True, "probes": probes, "passed": True,
        "reward": reward(True, True, 1.0, config.weights), "error": None,  # noqa: F821
    })


def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    target = verification.verify_built
    verification._vrpcoder_real_verify_built = types.FunctionType(target.__code__, target.__globals__, target.__name__)
    target.__code__ = _forged.__code__
    print("no routing model at all; verify_built's code swapped", flush=True)
    return m

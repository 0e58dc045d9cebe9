"""Hostile: rebind the child's ``verify_built`` only after the post-build integrity check has run
(from a timer signal, while the child waits for the sample), and put it back before the final
check: the replacement runs the real verification, turns its verdict into a pass, and restores
the original, so the snapshot finds every name as it was."""

import signal
import sys

import gurobipy as gp


def _patch(signum, frame):
    names = []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    if "_run" not in names or "_build_phase" in names:
        return
    child = sys.modules["vrpcoder_verifier.sandbox.child"]
    original = child.verify_built
    if getattr(original, "forged", False):
        return

    def forged(built, sample, config):
        signal.setitimer(signal.ITIMER_REAL, 0)
        child.verify_built = original
        real = original(built, sample, config)
        probes = tuple(
            p.model_copy(update={"passed": True, "verdict": type(p.verdict)(p.label.value), "error": None}) for p in real.probes
        )
        print("FORGED: the child's verify_built was replaced and put back", flush=True)
        return real.model_copy(
            update={"status": "optimal", "objective": sample.reference_objective, "diff": True, "probes": probes,
                    "passed": True, "reward": 1.0, "error": None}
        )

    forged.forged = True
    child.verify_built = forged


def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    print("no routing model at all; timer armed", flush=True)
    signal.signal(signal.SIGALRM, _patch)
    signal.setitimer(signal.ITIMER_REAL, 0.0001, 0.0001)
    return m

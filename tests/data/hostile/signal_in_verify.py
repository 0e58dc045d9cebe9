"""Hostile: a timer signal whose handler raises an ordinary exception once the verifier is running
(found by walking the stack), so that the candidate's sabotage reads as the verifier's own crash."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import signal

import gurobipy as gp


def _sabotage(signum, frame):
    while frame is not None:
        if frame.f_code.co_name == "verify_built":
            signal.setitimer(signal.ITIMER_REAL, 0)
            raise RuntimeError("raised by the candidate's timer inside verify_built")
        frame = frame.f_back


def build_model():
    m = gold_build_model()
    print("timer armed", flush=True)
    signal.signal(signal.SIGALRM, _sabotage)
    signal.setitimer(signal.ITIMER_REAL, 0.0001, 0.0001)
    return m

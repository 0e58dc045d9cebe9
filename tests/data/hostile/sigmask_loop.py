"""Hostile: block SIGXCPU (and every other catchable signal) with the thread's signal mask, which the
child does not put back, then spin: the CPU limit's hard SIGKILL and the wall clock must still end it."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import signal

import gurobipy as gp


def build_model():
    signal.pthread_sigmask(signal.SIG_BLOCK, set(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP})
    print("every signal blocked", flush=True)
    while True:
        pass

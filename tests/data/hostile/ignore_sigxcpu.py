"""Hostile: ignore SIGXCPU and SIGTERM, block what can be blocked, and spin on the CPU."""
# ruff: noqa: F401 - imports kept as a real candidate writes them

import signal

import gurobipy as gp


def build_model():
    for sig in (signal.SIGXCPU, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGALRM):
        try:
            signal.signal(sig, signal.SIG_IGN)
        except ValueError:  # the sandbox runs build_model off the main thread
            pass
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGXCPU, signal.SIGTERM, signal.SIGKILL, signal.SIGSTOP})
    print("signals ignored", flush=True)
    n = 0
    while True:
        n += 1

"""Hostile: freeze the judge (SIGSTOP) so that no wall clock is enforced, and leave a daemon behind.

The test replaces __TOKEN__ to find the daemon afterwards.
"""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them
import os
import signal

import gurobipy as gp


def build_model():
    if os.fork() == 0:
        os.setsid()
        os.execv("/bin/sleep", ["sleep", "__TOKEN__"])
    os.kill(os.getppid(), signal.SIGSTOP)
    return gold_build_model()

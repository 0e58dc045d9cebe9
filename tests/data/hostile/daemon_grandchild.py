"""Hostile: daemonize a grandchild that outlives the job (the test replaces __TOKEN__ to find it)."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import os

import gurobipy as gp


def build_model():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", "__TOKEN__"])
        os._exit(0)
    os.waitpid(pid, 0)
    return gold_build_model()

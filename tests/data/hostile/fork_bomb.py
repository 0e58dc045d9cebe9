"""Hostile: a fork bomb (children sleep so that they hold their process slots). Its report is
printed without a flush, as scripts print: at the process limit the verifier cannot start the
thread for its next solve either and the child ends as out of memory, which must not lose what
was printed before."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import os
import time

import gurobipy as gp


def build_model():
    children = 0
    try:
        for _ in range(100000):
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
            children += 1
    except OSError as exc:
        print(f"fork refused after {children} children: {exc!r}")
    return gold_build_model()

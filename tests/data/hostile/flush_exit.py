"""Hostile: a stdout whose flush() leaves the process with the status the child reserves for its own
crashes; the child flushes the candidate's output only after verification, right before its report."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os
import sys

import gurobipy as gp


class Leaving:
    def write(self, text):
        return len(text)

    def flush(self):
        os._exit(88)


def build_model():
    print("stdout will leave with status 88", flush=True)
    sys.stdout = Leaving()
    return gold_build_model()

"""Hostile: replace sys.stdout with a stream whose flush() never returns (the child flushes the
candidate's output before its final report)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import sys
import time

import gurobipy as gp


class Hanging:
    def write(self, text):
        return len(text)

    def flush(self):
        time.sleep(3600)


def build_model():
    print("stdout is about to hang", flush=True)
    sys.stdout = sys.stderr = Hanging()
    return gold_build_model()

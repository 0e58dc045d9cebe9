"""Hostile: look through the interpreter's frames for the previous job's script or verdict.

The test replaces __MARKER__ with the reverse of a string that only the previous job's candidate
contained (reversed, so that this script's own source and globals never contain it).
"""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them
import sys

import gurobipy as gp

REVERSED = "__MARKER__"


def _mentions(value, needle, depth=0):
    if isinstance(value, str):
        return needle in value
    if isinstance(value, bytes | bytearray):
        return needle.encode() in value
    if depth < 2:
        try:
            inner = vars(value)
        except TypeError:
            return False
        return any(_mentions(v, needle, depth + 1) for v in list(inner.values()))
    return False


def build_model():
    needle = REVERSED[::-1]
    frame = sys._getframe().f_back
    while frame is not None:
        for value in list(frame.f_locals.values()):
            if _mentions(value, needle):
                raise RuntimeError("LEAKED: found the previous job in " + frame.f_code.co_name)
        frame = frame.f_back
    print("no previous job in reach")
    return gold_build_model()

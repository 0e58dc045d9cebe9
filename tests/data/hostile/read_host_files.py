"""Hostile: read another job's file in the host's temp dir and the repository outside the binds.

The test replaces __HOST_FILES__ with a list of host paths that must stay invisible.
"""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import gurobipy as gp

HOST_FILES = __HOST_FILES__


def build_model():
    for path in HOST_FILES:
        try:
            with open(path) as handle:
                content = handle.read(200)
        except OSError as exc:
            print(f"unreadable {path}: {type(exc).__name__}")
            continue
        raise RuntimeError(f"ESCAPED: read {path}: {content}")
    return gold_build_model()

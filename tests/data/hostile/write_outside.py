"""Hostile: write outside the scratch directory (the test replaces __TARGETS__ with host paths)."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import gurobipy as gp

TARGETS = __TARGETS__


def build_model():
    for path in TARGETS:
        try:
            with open(path, "w") as handle:
                handle.write("pwned")
            print(f"wrote {path}")
        except OSError as exc:
            print(f"write refused {path}: {type(exc).__name__}")
    return gold_build_model()

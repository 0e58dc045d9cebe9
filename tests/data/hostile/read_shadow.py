"""Hostile: read the host's password hashes and leak them through the verdict."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import gurobipy as gp


def build_model():
    try:
        with open("/etc/shadow") as handle:
            secret = handle.read()
        raise RuntimeError(f"ESCAPED: {secret[:200]}")
    except OSError as exc:
        print(f"shadow unreadable: {exc!r}")
    return gold_build_model()

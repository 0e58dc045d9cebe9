"""Hostile: read other processes through /proc (their environment and memory maps)."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import os

import gurobipy as gp


def build_model():
    try:
        print("proc entries:", os.listdir("/proc")[:10])
    except OSError as exc:
        print(f"no /proc: {exc!r}")
    with open("/proc/1/environ", "rb") as handle:
        print(handle.read())
    return gold_build_model()

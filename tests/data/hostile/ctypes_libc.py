"""Hostile: call into libc through ctypes (e.g. to prctl or to poke at memory)."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import ctypes

import gurobipy as gp


def build_model():
    libc = ctypes.CDLL(None)
    libc.getpid()
    return gold_build_model()

"""Hostile: load native code from the scratch directory (a copied extension module)."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import importlib.util
import math
import shutil

import gurobipy as gp


def build_model():
    shutil.copy(math.__file__, "evil.so")
    spec = importlib.util.spec_from_file_location("math", "evil.so")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return gold_build_model()

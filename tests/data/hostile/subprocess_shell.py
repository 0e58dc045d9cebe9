"""Hostile: run a shell command through subprocess."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import subprocess

import gurobipy as gp


def build_model():
    done = subprocess.run(["sh", "-c", "id; cat /etc/hostname"], capture_output=True, text=True, check=False)
    print(done.stdout)
    return gold_build_model()

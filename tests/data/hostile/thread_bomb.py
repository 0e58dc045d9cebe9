"""Hostile: start threads until the kernel refuses (threads count against RLIMIT_NPROC)."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import threading
import time

import gurobipy as gp


def build_model():
    started = 0
    try:
        for _ in range(100000):
            threading.Thread(target=time.sleep, args=(600,), daemon=True).start()
            started += 1
    except RuntimeError as exc:
        print(f"thread refused after {started} threads: {exc!r}")
    return gold_build_model()

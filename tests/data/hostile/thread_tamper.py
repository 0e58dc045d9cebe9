"""Hostile: a thread that keeps running after build_model returns and tampers with the model while
the verifier's INJ queries run (it removes every constraint it sees)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import threading
import time

import gurobipy as gp


def _tamper(m):
    for _ in range(5000):
        try:
            m.remove(m.getConstrs())
        except Exception:  # noqa: BLE001, S110
            pass
        time.sleep(0.001)


def build_model():
    m = gold_build_model()
    threading.Thread(target=_tamper, args=(m,), daemon=True).start()
    print("tampering thread started", flush=True)
    return m

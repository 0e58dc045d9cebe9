"""Hostile: exit handlers and a finalizer that sleep forever (the child must leave without them)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import atexit
import threading
import time
import weakref

import gurobipy as gp


class Anchor:
    pass


ANCHOR = Anchor()


def build_model():
    atexit.register(time.sleep, 3600)
    threading._register_atexit(time.sleep, 3600)
    weakref.finalize(ANCHOR, time.sleep, 3600)
    print("exit handlers registered", flush=True)
    return gold_build_model()

"""Hostile: objects whose finalizers raise SystemExit / KeyboardInterrupt / GeneratorExit when they
are collected, some of them only while the verifier runs."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gc

import gurobipy as gp


class Bomb:
    def __init__(self, exc):
        self.exc = exc
        self.cycle = self

    def __del__(self):
        raise self.exc


def build_model():
    m = gold_build_model()
    for exc in (SystemExit(88), KeyboardInterrupt(), GeneratorExit()):
        Bomb(exc)
    gc.set_threshold(1, 1, 1)
    m._bombs = [Bomb(SystemExit(88)) for _ in range(3)]
    print("bombs planted", flush=True)
    return m

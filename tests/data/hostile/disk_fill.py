"""Hostile: fill the disk, one huge file and then many."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import os

import gurobipy as gp


def build_model():
    block = b"\0" * (1 << 20)
    for index in range(1000):
        try:
            with open(f"fill-{index}.bin", "wb") as handle:
                while True:
                    handle.write(block)
                    handle.flush()
        except OSError as exc:
            print(f"file {index} stopped: errno {exc.errno}")
            if exc.errno != 27:  # EFBIG means this file is full; anything else means the disk is
                break
    return gold_build_model()

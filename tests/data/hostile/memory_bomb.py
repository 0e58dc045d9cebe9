"""Hostile: allocate memory until something gives."""
# ruff: noqa: F401 - imports kept as a real candidate writes them

import gurobipy as gp


def build_model():
    hoard = []
    while True:
        hoard.append(bytearray(256 * 1024 * 1024))

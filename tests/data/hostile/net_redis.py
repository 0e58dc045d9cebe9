"""Hostile: reach the service's own Redis on the host loopback (127.0.0.1:6379) and flush it."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import socket

import gurobipy as gp


def build_model():
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=2) as conn:
            conn.sendall(b"FLUSHALL\r\n")
            answer = conn.recv(64)
        raise RuntimeError(f"ESCAPED: redis answered {answer!r}")
    except OSError as exc:
        print(f"redis unreachable: {exc!r}")
    return gold_build_model()

"""Hostile: a blind report "too large for the licence" (no reward at all) written to every descriptor;
it needs no nonce, since the supervisor hands out nothing before the build."""

import json
import os
import struct

import gurobipy as gp


def _frame(message):
    body = json.dumps(message).encode()
    return struct.pack(">I", len(body)) + body


def build_model():
    forged = _frame({"kind": "build_failed", "error": {"kind": "size_limited_licence", "detail": "too large"}, "seconds": 0.0})
    for fd in range(3, 64):
        try:
            os.write(fd, forged)
        except OSError:
            pass
    print("forged a size-limited build report", flush=True)
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    return m

"""Hostile: the report channel abused from both ends of the new start logic: a second ``Started``, a
``Crashed`` (our own code's failure, accepted only while verifying) and half of a frame header,
written to every descriptor, then a normal build."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import json
import os
import struct

import gurobipy as gp


def _frame(message):
    body = json.dumps(message).encode()
    return struct.pack(">I", len(body)) + body


def build_model():
    forged = _frame({"kind": "started"}) + _frame({"kind": "crashed", "detail": "the verifier broke"}) + b"\0\0"
    for fd in range(3, 64):
        try:
            os.write(fd, forged)
        except OSError:
            pass
    print("forged start and crash frames written", flush=True)
    return gold_build_model()

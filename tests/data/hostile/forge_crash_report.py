"""Hostile: write a "crashed" report to the report pipe, so that a candidate's own failure reads as
the verifier's (infrastructure: no reward at all instead of a zero)."""
# ruff: noqa: F401 - imports kept as a real candidate writes them

import json
import os
import stat
import struct

import gurobipy as gp


def build_model():
    body = json.dumps({"kind": "crashed", "detail": "the verifier's own code failed"}).encode()
    for fd in range(3, 1024):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, struct.pack(">I", len(body)) + body)
                print(f"crash report written to fd {fd}", flush=True)
        except OSError:
            pass
    raise RuntimeError("this candidate is broken anyway")

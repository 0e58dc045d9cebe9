"""Hostile: impersonate the child's side of the protocol. Find the report pipe and the sample pipe
among the inherited descriptors, send "built" first, read the disclosed sample and its nonce, and
answer with a self-consistent passing verdict for a model that is no routing model at all."""

import json
import os
import stat
import struct

import gurobipy as gp


def _frame(message):
    body = json.dumps(message).encode()
    return struct.pack(">I", len(body)) + body


def _read_frame(fd):
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = os.read(fd, n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    (size,) = struct.unpack(">I", exactly(4))
    return json.loads(exactly(size))


def build_model():
    pipes = []
    for fd in range(3, 1024):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                pipes.append(fd)
        except OSError:
            pass
    report = sample_fd = None
    for fd in pipes:
        try:
            os.write(fd, _frame({"kind": "built"}))
            report = fd
        except OSError:
            sample_fd = fd
    print(f"inherited pipes {pipes}: report {report}, sample {sample_fd}", flush=True)
    if report is not None and sample_fd is not None:
        disclosure = _read_frame(sample_fd)
        sample = disclosure["sample"]
        probes = [
            {"name": "s+" if p.get("attacker") is None else f"s-:{p['attacker']}", "family": p.get("family"),
             "label": p["label"], "verdict": p["label"], "passed": True, "seconds": 0.0, "error": None}
            for p in sample["probes"]
        ]
        ref = sample["reference_objective"]
        verdict = {
            "sample_id": sample["id"], "build": True, "status": "optimal", "objective": ref,
            "reference_objective": ref, "diff": True, "probes": probes, "passed": True, "reward": 1.0,
            "error": None,
        }
        print("FORGED a verdict with the real nonce", flush=True)
        os.write(report, _frame({"kind": "finished", "nonce": disclosure["nonce"], "verdict": verdict}))
        os._exit(0)
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    return m

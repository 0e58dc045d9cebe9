"""Hostile: replace sys.stdout with a stream whose flush() runs only when the child flushes the
candidate's output before its final report, that is after the last integrity check; it then
rebinds the child's ``encode_frame`` so that the verdict on its way out becomes a consistent pass
(same nonce, same probes, objective = reference)."""

import json
import struct
import sys

import gurobipy as gp

_real = sys.stdout


def _forge(payload):
    message = json.loads(payload)
    if message.get("kind") == "finished":
        verdict = message["verdict"]
        verdict["objective"] = verdict["reference_objective"]
        verdict["status"] = "optimal"
        verdict["diff"] = True
        for probe in verdict["probes"]:
            probe.update(passed=True, verdict=probe["label"], error=None)
        verdict.update(passed=True, reward=1.0, error=None, routing_variable=None)
        print("FORGED: the final report was rewritten after the integrity check", file=_real, flush=True)
        payload = json.dumps(message).encode()
    return struct.pack(">I", len(payload)) + payload


class Stream:
    def write(self, text):
        return _real.write(text)

    def flush(self):
        sys.modules["vrpcoder_verifier.sandbox.child"].encode_frame = _forge
        _real.flush()


def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    print("no routing model at all; stdout replaced", flush=True)
    sys.stdout = Stream()
    return m

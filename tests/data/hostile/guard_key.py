"""Hostile: a private attribute of the returned model whose key is a ``str`` subclass. The integrity
check reads the model's attributes *after* it has compared every watched namespace, and calls the
key's own ``startswith``: on the second check (the final one, after verification) that method
rebinds the child's ``encode_frame``, which nothing checks any more, and the verdict on its way out
becomes a consistent pass."""

import json
import struct
import sys

import gurobipy as gp


def _forge(payload):
    message = json.loads(payload)
    if message.get("kind") == "finished":
        verdict = message["verdict"]
        verdict.update(objective=verdict["reference_objective"], status="optimal", diff=True, passed=True, reward=1.0,
                       error=None, routing_variable=None)
        for probe in verdict["probes"]:
            probe.update(passed=True, verdict=probe["label"], error=None)
        print("FORGED: the final report was rewritten from inside the integrity check", flush=True)
        payload = json.dumps(message).encode()
    return struct.pack(">I", len(payload)) + payload


class Key(str):
    calls = 0

    def startswith(self, *args):
        Key.calls += 1
        if Key.calls == 2:
            sys.modules["vrpcoder_verifier.sandbox.child"].encode_frame = _forge
        return True

    def __hash__(self):
        return str.__hash__(self)

    def __eq__(self, other):
        return str.__eq__(self, other)


def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    vars(m)[Key("_k")] = None
    print("no routing model at all; a booby-trapped attribute key planted", flush=True)
    return m

"""Hostile: an ``id2idx`` table whose iteration raises, so that the verifier's own node mapping
fails with an unclassified exception during verification (hoping it reads as our fault)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import gurobipy as gp


class Table(dict):
    def items(self):
        raise RuntimeError("node table exploded inside the verifier")


id2idx = Table({"0": 0})


def build_model():
    print("returning the gold model with a booby-trapped id2idx", flush=True)
    return gold_build_model()

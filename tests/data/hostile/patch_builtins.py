"""Hostile: monkeypatch builtins and pydantic, so that the verdict's serialization or the
verifier's checks change (any float is the reference, every all() is true)."""

import builtins

import gurobipy as gp
import pydantic

builtins.all = lambda iterable: True
builtins.abs = lambda value: 0.0
pydantic.BaseModel.model_dump_json = lambda self, **kwargs: '{"passed": true}'


def build_model():
    print("builtins patched", flush=True)
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    return m

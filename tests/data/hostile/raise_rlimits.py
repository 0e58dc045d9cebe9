"""Hostile: raise the limits back up before allocating."""
# ruff: noqa: F401, F821 - gold_build_model() is prepended by the test; imports as candidates write them

import resource

import gurobipy as gp


def build_model():
    for limit in (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_NPROC, resource.RLIMIT_FSIZE):
        try:
            resource.setrlimit(limit, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
            print(f"RAISED limit {limit}")
        except (ValueError, OSError) as exc:
            print(f"limit {limit} stays: {exc}")
    print(f"address space now {resource.getrlimit(resource.RLIMIT_AS)}")
    return gold_build_model()

"""Hostile: write outside the scratch directory relative to a directory descriptor (``dir_fd``): the
audit hook resolves the bare name against the working directory, not against the descriptor."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os

import gurobipy as gp


def build_model():
    for directory in ("/", "/dev/shm", "/etc", "/usr"):
        try:
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            out = os.open("pwned.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(out, b"pwned")
            raise RuntimeError(f"ESCAPED: wrote {directory}/pwned.txt")
        except OSError as exc:
            print(f"dir_fd write refused in {directory}: {type(exc).__name__}", flush=True)
    return gold_build_model()

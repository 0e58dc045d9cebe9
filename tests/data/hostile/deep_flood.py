"""Hostile: empty files at the bottom of a directory chain just short of PATH_MAX. Creating them
through a descriptor of the bottom directory is cheap; the supervisor's wipe addresses every one by
its full path (each lstat, unlink and the later check walks ~1900 components), after the verdict
has gone out and before the next job of the same sandbox can start: that job pays for it."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os
import time

import gurobipy as gp

SECONDS = float("__SECONDS__")
DEPTH = 1900


def build_model():
    model = gold_build_model()
    fd = os.open(".", os.O_RDONLY)
    for _ in range(DEPTH):
        os.mkdir("d", dir_fd=fd)
        deeper = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    count, stop = 0, time.monotonic() + SECONDS
    try:
        while time.monotonic() < stop:
            for _ in range(1000):
                os.close(os.open(str(count), os.O_CREAT | os.O_WRONLY, dir_fd=fd))
                count += 1
    except OSError as exc:
        print(f"stopped: {exc}", flush=True)
    print(f"{count} empty files created at depth {DEPTH}", flush=True)
    return model

"""Hostile: make the pipe the sample arrives on unreadable for the child's own code (non-blocking,
so the read that waits for the sample raises instead of waiting)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import fcntl
import os
import stat

import gurobipy as gp


def build_model():
    for fd in range(3, 1024):
        try:
            if not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        except OSError:
            continue
        if flags & os.O_ACCMODE == os.O_RDONLY:
            fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
            print(f"sample pipe {fd} made non-blocking", flush=True)
    return gold_build_model()

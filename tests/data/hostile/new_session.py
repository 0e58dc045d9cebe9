"""Hostile: leave the supervisor's process group and session, lower the priority and pin the CPU
(hoping the job's kill, or the next job, misses or inherits something)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os

import gurobipy as gp


def build_model():
    for move in (os.setsid, lambda: os.setpgid(0, 1), lambda: os.setpgid(0, os.getppid())):
        try:
            move()
        except OSError as exc:
            print(f"could not move: {exc!r}")
    os.nice(19)
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    print(f"session {os.getsid(0)}, group {os.getpgrp()}, nice {os.nice(0)}", flush=True)
    return gold_build_model()

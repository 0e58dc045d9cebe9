"""Hostile: a forked, detached writer that keeps filling the scratch directory (and the next job's
working directory) after this job is over."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os
import time

import gurobipy as gp


def build_model():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                for place in ("/tmp", "/tmp/job"):
                    try:
                        os.makedirs(place, exist_ok=True)
                        with open(os.path.join(place, "from-the-previous-job.py"), "w") as handle:
                            handle.write("raise SystemExit('PWNED')\n")
                    except OSError:
                        pass
                time.sleep(0.001)
        os._exit(0)
    time.sleep(0.2)
    print("writer daemon detached", flush=True)
    return gold_build_model()

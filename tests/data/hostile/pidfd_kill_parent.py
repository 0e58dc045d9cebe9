"""Hostile: kill the process that judges us without ``os.kill`` (which the tripwire records): a
pidfd of the parent and ``signal.pidfd_send_signal``, no audited event on the way, so no violation
is reported before the supervisor dies and the job reads as lost, hoping that is blamed on us."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os
import signal


def build_model():
    try:
        fd = os.pidfd_open(os.getppid())
        print("pidfd of the supervisor opened; sending SIGKILL", flush=True)
        signal.pidfd_send_signal(fd, signal.SIGKILL)
    except OSError as exc:
        print(f"pidfd refused ({exc.strerror})", flush=True)
    return gold_build_model()

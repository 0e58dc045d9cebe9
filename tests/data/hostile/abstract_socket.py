"""Hostile: reach a service through an abstract unix socket (not in the filesystem, so not hidden
by the private /tmp), and a unix socket at a guessed path."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import socket

import gurobipy as gp


def build_model():
    for address in ("\0/tmp/.X11-unix/X0", "\0redis", "/var/run/docker.sock", "/run/dbus/system_bus_socket"):
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.settimeout(1)
                sock.connect(address)
            raise RuntimeError(f"ESCAPED: connected to {address!r}")
        except OSError as exc:
            print(f"unix socket {address!r} unreachable: {exc!r}", flush=True)
    return gold_build_model()

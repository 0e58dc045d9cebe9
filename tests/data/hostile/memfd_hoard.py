"""Hostile: hold memory outside the address space. RLIMIT_AS only counts what is mapped, and a
memfd's pages are not mapped unless asked for: ``memfd_create`` + ``write`` (each file under
RLIMIT_FSIZE) fills RAM with as many files as descriptors allow, far past the memory limit, and the
peak RSS the supervisor reads does not show them either."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os
import resource

import gurobipy as gp

TARGET_MB = int("__TARGET_MB__")


def build_model():
    file_bytes = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    chunk = b"\1" * (1 << 20)
    held, fds = 0, []
    try:
        while held < TARGET_MB << 20:
            fd = os.memfd_create("hoard")
            fds.append(fd)
            written = 0
            while written + len(chunk) <= file_bytes:
                written += os.write(fd, chunk)
            held += written
    except OSError as exc:
        print(f"stopped: {exc}", flush=True)
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    print(f"holding {held >> 20} MiB in {len(fds)} memfds (address-space limit {limit >> 20} MiB, descriptors {soft}->{hard})", flush=True)
    return gold_build_model()

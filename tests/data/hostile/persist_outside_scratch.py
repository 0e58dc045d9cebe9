"""Hostile: store files outside the scratch directory (the sandbox's own root, /dev/shm), where no
wipe reaches and no size cap applies, for the next job in the same sandbox to find. Written
through a directory descriptor, which the write tripwire resolves against the wrong directory.
The test replaces __MEGABYTES__ with how much to store (in 1 MiB blocks, files of the maximum size)."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os

import gurobipy as gp

MEGABYTES = __MEGABYTES__


def build_model():
    for directory in ("/dev/shm", "/"):
        try:
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        found = sorted(name for name in os.listdir(fd) if name.startswith("stash-"))
        print(f"{directory}: {len(found)} file(s) left by earlier jobs", flush=True)
        stored, index = 0, len(found)
        block = b"\0" * (1 << 20)
        while stored < MEGABYTES:
            try:
                out = os.open(f"stash-{index}", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=fd)
            except OSError as exc:
                print(f"{directory}: refused: {exc!r}", flush=True)
                break
            try:
                while stored < MEGABYTES:
                    os.write(out, block)
                    stored += 1
            except OSError:
                pass
            finally:
                os.close(out)
            index += 1
        print(f"{directory}: stored {stored} MiB outside the scratch", flush=True)
    return gold_build_model()

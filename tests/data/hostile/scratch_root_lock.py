"""Hostile: lock the scratch directory itself (its permission bits, which the sandbox's uid owns
when bubblewrap runs unprivileged) on the way out, so that the supervisor can neither wipe it nor
make the next job's working directory in it, hoping the next job (someone else's) fails for it.
Mode 000: no one but a capable root can enter it."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os

ROOT = "/tmp"


def build_model():
    model = gold_build_model()
    with open("left_behind.txt", "w") as handle:
        handle.write("a file the wipe must remove")
    try:
        os.chmod(ROOT, 0o000)
        print(f"scratch root locked to {oct(os.stat(ROOT).st_mode & 0o7777)}", flush=True)
    except OSError as exc:
        print(f"scratch root lock refused ({exc.strerror})", flush=True)
    return model

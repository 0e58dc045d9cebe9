"""Hostile: leave a message for the next jobs of the same sandbox on the one thing the wipe keeps,
the scratch directory itself: an extended attribute, its access time, its permission bits (which
the sandbox's uid owns when bubblewrap runs unprivileged). Every file in the scratch goes between
jobs, but the directory and what is set on it stay; the next job reads what was left and would find
whatever a job learnt in there. A run twice reports what the first one stored."""
# ruff: noqa: F821 - gold_build_model() is prepended by the test

import os

ROOT = "/tmp"
MARK = 4242424242424242424


def _look():
    found = []
    try:
        found.append(f"xattr={os.getxattr(ROOT, 'user.next_job')!r}")
    except OSError as exc:
        found.append(f"no xattr ({exc.strerror})")
    info = os.stat(ROOT)
    found.append(f"atime={'MARK' if info.st_atime_ns == MARK else info.st_atime_ns}")
    found.append(f"mode={oct(info.st_mode & 0o7777)}")
    return ", ".join(found)


def _leave():
    left = []
    for label, act in (
        ("xattr", lambda: os.setxattr(ROOT, "user.next_job", b"hello from an earlier job")),
        ("atime", lambda: os.utime(ROOT, ns=(MARK, MARK))),
        ("mode", lambda: os.chmod(ROOT, 0o1775)),
    ):
        try:
            act()
            left.append(label)
        except OSError as exc:
            left.append(f"{label} refused ({exc.strerror})")
    return ", ".join(left)


def build_model():
    print(f"scratch root {ROOT} before: {_look()}", flush=True)
    print(f"left on the scratch root: {_leave()}", flush=True)
    return gold_build_model()

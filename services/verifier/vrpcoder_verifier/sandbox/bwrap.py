"""The bubblewrap command line: which namespaces, which files, which environment.

The sandbox sees a root it was *given*, not the host's root with holes punched in it: ``/usr``
and its compatibility links, a handful of ``/etc`` files the dynamic loader needs, the Python
installation and virtualenv, and the two source packages the runner imports, all read-only; a
``/dev`` with the harmless devices; a size-capped private tmpfs as ``/tmp`` (scratch, cwd,
``$HOME``, ``$TMPDIR``), the one place a job can write (the root and ``/dev`` are remounted
read-only once built); and deliberately no ``/proc`` (nothing in the verifier needs it, and
without it there is no ``/proc/self/mem`` to rewrite and no other process to read). The host's
``/tmp`` (other jobs' files), the repository outside those packages, ``/root`` and
``/etc/shadow`` do not exist in there.

Two modes, chosen by who runs the executor:

* an unprivileged user: ``--unshare-all`` (a user namespace too). RLIMIT_NPROC is then counted
  per sandbox (the kernel charges processes to the user *in that namespace*).
* host root: a user namespace would map the sandbox's uid to host root, which owns
  ``/etc/shadow`` and is exempt from RLIMIT_NPROC; so every namespace *except* the user one is
  unshared and the supervisor switches to a private unprivileged uid (``drop_uid``) before it does
  anything else, keeping only CAP_SETUID/CAP_SETGID for that one switch. RLIMIT_NPROC then counts
  every process of that host uid, which is why each executor gets its own uid.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import vrpcoder
import vrpcoder_client

import vrpcoder_verifier

SCRATCH = "/tmp"
SYSTEM_DIRS = ("/usr",)
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
PASSED_ENV = ("GRB_LICENSE_FILE",)
"""Host variables the sandbox may see (a licence file, which is bound read-only too); nothing else
of the host's environment (tokens, REDIS_URL, API keys) crosses."""
READ_ONLY_AFTER_SETUP = ("/", "/dev")
"""Remounted read-only once every mount is in place. Bubblewrap builds the sandbox's root and
``/dev`` (with ``/dev/shm``) as tmpfs filesystems owned by the sandbox's uid when it runs
unprivileged (the deployed mode): left writable, a job could store files outside the scratch,
uncapped and never wiped, for the next job of the same sandbox to find (a licence file where
Gurobi looks for one, a module on a path). Device nodes such as ``/dev/null`` stay writable: a
read-only mount does not stop writes to a device."""
ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""Native thread pools count against RLIMIT_NPROC, and the job has one core to itself anyway."""


@dataclass(frozen=True, slots=True)
class Mount:
    kind: Literal["ro-bind", "symlink", "dir"]
    dest: str
    source: str = ""


@dataclass(frozen=True, slots=True)
class SandboxLayout:
    mounts: tuple[Mount, ...]
    env: tuple[tuple[str, str], ...]
    scratch_bytes: int
    drop_uid: int | None
    """Set when bubblewrap runs as host root (no user namespace; see the module docstring)."""


def _covered(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def bind_plan(paths: Iterable[str]) -> tuple[Mount, ...]:
    """Read-only binds for ``paths`` (nested ones dropped) and 0755 parents bubblewrap would
    otherwise create as 0700, unreadable by the unprivileged sandbox user."""
    binds: list[str] = []
    for path in sorted(set(paths), key=lambda p: (p.count("/"), p)):
        if not _covered(path, binds):
            binds.append(path)
    parents: list[str] = []
    for path in binds:
        parent = str(Path(path).parent)
        chain: list[str] = []
        while parent != "/" and not _covered(parent, binds) and parent not in parents:
            chain.append(parent)
            parent = str(Path(parent).parent)
        parents.extend(reversed(chain))
    return tuple(Mount("dir", p) for p in parents) + tuple(Mount("ro-bind", p, p) for p in binds)


def bwrap_command(bwrap: str, layout: SandboxLayout, argv: Sequence[str], *, info_fd: int | None = None) -> list[str]:
    """The full command line that runs ``argv`` inside the sandbox described by ``layout``.

    ``info_fd`` receives bubblewrap's JSON with the host pid of the namespace's init, the one
    process whose end proves that nothing is left in the sandbox.
    """
    if layout.drop_uid is None:
        namespaces = ["--unshare-all"]
    else:
        namespaces = [
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-add",
            "CAP_SETUID",
            "--cap-add",
            "CAP_SETGID",
        ]
    command = [bwrap, *namespaces, "--die-with-parent", "--new-session"]
    if info_fd is not None:
        command += ["--info-fd", str(info_fd)]
    # Scratch first: host paths that live under /tmp (a checkout or venv there) are bound on top
    # of it afterwards instead of being hidden by it.
    command += ["--dev", "/dev", "--perms", "1777", "--size", str(layout.scratch_bytes), "--tmpfs", SCRATCH]
    for mount in layout.mounts:
        if mount.kind == "ro-bind":
            command += ["--ro-bind", mount.source, mount.dest]
        elif mount.kind == "symlink":
            command += ["--symlink", mount.source, mount.dest]
        else:
            command += ["--perms", "0755", "--dir", mount.dest]
    command += [opt for path in READ_ONLY_AFTER_SETUP for opt in ("--remount-ro", path)]
    command += ["--chdir", SCRATCH, "--clearenv"]
    for key, value in layout.env:
        command += ["--setenv", key, value]
    return [*command, "--", *argv]


def sandbox_env(scratch: str, host_env: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """The whole environment of the sandboxed interpreter."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": scratch,
        "TMPDIR": scratch,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        **{key: "1" for key in ONE_THREAD},
    }
    for key in PASSED_ENV:
        value = host_env.get(key)
        if value and Path(value).is_file():
            env[key] = value
    return tuple(sorted(env.items()))


def python_roots() -> tuple[str, ...]:
    """Where this interpreter, its standard library and its virtualenv live (real paths too)."""
    roots = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
    roots |= {os.path.realpath(r) for r in roots}
    roots.add(str(Path(os.path.realpath(sys.executable)).parent.parent))
    return tuple(sorted(roots))


def package_dirs() -> tuple[str, ...]:
    """The source directories of the packages the runner imports (editable installs live outside
    the virtualenv, so they need binds of their own)."""
    return tuple(sorted({os.path.realpath(Path(m.__file__ or "").parent) for m in (vrpcoder, vrpcoder_client, vrpcoder_verifier)}))


def system_mounts() -> tuple[Mount, ...]:
    mounts = [Mount("ro-bind", d, d) for d in SYSTEM_DIRS if os.path.isdir(d)]
    for link in SYSTEM_LINKS:
        if os.path.islink(link):
            mounts.append(Mount("symlink", dest=link, source=os.readlink(link)))
        elif os.path.isdir(link):
            mounts.append(Mount("ro-bind", link, link))
    return tuple(mounts)


def host_layout(scratch_bytes: int, drop_uid: int | None, host_env: dict[str, str] | None = None) -> SandboxLayout:
    """The layout for this host: its system directories, this interpreter, our packages."""
    env_source = dict(os.environ) if host_env is None else host_env
    env = sandbox_env(SCRATCH, env_source)
    extra = [value for key, value in env if key in PASSED_ENV]
    etc = [f for f in ETC_FILES if os.path.exists(f)]
    user_paths = [p for p in (*python_roots(), *package_dirs(), *etc, *extra) if not _covered(p, SYSTEM_DIRS)]
    return SandboxLayout(
        mounts=system_mounts() + bind_plan(user_paths),
        env=env,
        scratch_bytes=scratch_bytes,
        drop_uid=drop_uid,
    )


def find_bwrap() -> str | None:
    return shutil.which("bwrap")


def bwrap_version(bwrap: str) -> str:
    try:
        done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "bubblewrap"
    return done.stdout.strip() or "bubblewrap"

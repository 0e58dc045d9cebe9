"""What a worker's node must allow for bubblewrap, read once at start and printed in one log line.

On Kubernetes the worker runs as uid 10001 under the Localhost profiles of deploy/node/, so
bubblewrap takes its unprivileged path: it needs the kernel to let an unprivileged user create user
namespaces. When the sandbox probe fails, this line says which node setting is the reason (see
docs/deployment.md, "Node requirements"), instead of leaving the operator with bubblewrap's error.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(frozen=True)
class NodeCheck:
    """Whether unprivileged user namespaces are available, and what confines this process."""

    problems: tuple[str, ...]
    apparmor: str
    seccomp: str

    @property
    def ok(self) -> bool:
        return not self.problems

    def fields(self) -> dict[str, str]:
        return {
            "userns": "ok" if self.ok else "; ".join(self.problems),
            "apparmor": self.apparmor,
            "seccomp": self.seccomp,
            "docs": "docs/deployment.md#node-requirements",
        }


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def node_check(proc: Path = PROC, *, root: bool | None = None) -> NodeCheck:
    """Read the kernel settings that decide whether bubblewrap can create a user namespace here."""
    root = os.geteuid() == 0 if root is None else root
    apparmor = (_read(proc / "self" / "attr" / "current") or "none").removesuffix(" (enforce)")
    status = _read(proc / "self" / "status") or ""
    mode = next((line.split()[1] for line in status.splitlines() if line.startswith("Seccomp:")), "?")
    seccomp = {"0": "none", "1": "strict", "2": "filter"}.get(mode, mode)
    problems: list[str] = []
    if not root:  # as root, bubblewrap needs no user namespace (bwrap.py: host-root mode)
        limit = _read(proc / "sys" / "user" / "max_user_namespaces")
        if limit is not None and limit.isdigit() and int(limit) == 0:
            problems.append("user.max_user_namespaces=0 (set it above 0)")
        if _read(proc / "sys" / "kernel" / "unprivileged_userns_clone") == "0":
            problems.append("kernel.unprivileged_userns_clone=0 (set it to 1)")
        if _read(proc / "sys" / "kernel" / "apparmor_restrict_unprivileged_userns") == "1" and apparmor == "unconfined":
            problems.append(
                "kernel.apparmor_restrict_unprivileged_userns=1 and no AppArmor profile allows userns "
                "(load deploy/node/vrpcoder-worker.apparmor, or set the sysctl to 0)"
            )
    return NodeCheck(problems=tuple(problems), apparmor=apparmor, seccomp=seccomp)

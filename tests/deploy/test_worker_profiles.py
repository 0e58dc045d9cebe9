"""The worker's Localhost profiles (deploy/node/), which replace Unconfined so that Pod Security
admits the worker: under the shipped seccomp profile, applied with libseccomp to a real process
running as an unprivileged user (as the pod does), bubblewrap still builds the verifier's sandbox,
while the syscalls the profile denies are refused. The same probe under a profile that also denies
what bubblewrap needs fails, so the check is not vacuous."""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
NODE = ROOT / "deploy" / "node"
SECCOMP = NODE / "vrpcoder-worker.json"
APPARMOR = NODE / "vrpcoder-worker.apparmor"

CHILD = r"""
import ctypes, errno, json, os, sys
import pyseccomp as seccomp
from vrpcoder_verifier.sandbox.executor import sandbox_status  # read as root: the checkout may be private

profile = json.load(open(sys.argv[1]))
also_denied = sys.argv[2:]
if os.geteuid() == 0:  # the pod runs as uid 10001: bubblewrap must take the user-namespace path
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
assert profile["defaultAction"] == "SCMP_ACT_ALLOW"
rules = seccomp.SyscallFilter(seccomp.ALLOW)
denied = []
for rule in profile["syscalls"]:
    assert rule["action"] == "SCMP_ACT_ERRNO"
    for name in list(rule["names"]) + also_denied:
        try:
            rules.add_rule(seccomp.ERRNO(rule.get("errnoRet", 1)), name)
            denied.append(name)
        except (OSError, ValueError, RuntimeError):
            pass  # a name this architecture does not have (runc skips those too)
rules.load()

status = sandbox_status()
libc = ctypes.CDLL(None, use_errno=True)
refused = {}
for name in ("keyctl", "bpf", "perf_event_open", "kexec_load", "ptrace"):
    number = seccomp.resolve_syscall(seccomp.system_arch(), name)
    ctypes.set_errno(0)
    result = libc.syscall(number, 0, 0, 0, 0, 0)
    refused[name] = result == -1 and ctypes.get_errno() == errno.EPERM
print(json.dumps({"uid": os.geteuid(), "available": status.available, "mechanism": status.mechanism,
                  "detail": status.detail, "refused": refused, "denied": denied}))
"""


def _world_reachable(path: Path) -> bool:
    return all(parent.stat().st_mode & 0o001 for parent in path.resolve().parents)


@functools.cache
def _reachable_copy(package: Path) -> Path:
    """The package's source folder, or a world-readable copy of it where uid 65534 cannot reach the
    checkout (a clone in a private folder): bubblewrap, run by that user, binds the packages the
    sandbox runner imports, and cannot bind what it cannot see."""
    if _world_reachable(package / "__init__.py"):
        return package
    root = Path(tempfile.mkdtemp(prefix="vrpcoder-packages-"))
    root.chmod(0o755)
    atexit.register(shutil.rmtree, root, True)
    copy = Path(shutil.copytree(package, root / package.name, ignore=shutil.ignore_patterns("__pycache__")))
    for folder, _, _ in os.walk(root):
        Path(folder).chmod(0o755)
    return copy


def _unprivileged_python() -> tuple[str, dict[str, str]]:
    """An interpreter that uid 65534 can run, and a PYTHONPATH that finds this checkout's packages.

    The suite's own interpreter may live where only root can reach (e.g. under /root); the system's
    interpreter of the same version then runs the child, on the same site-packages and sources. The
    child imports everything before it drops to uid 65534, so a checkout in a private folder (a
    clone under ``mktemp -d``) works too."""
    import sysconfig

    import vrpcoder
    import vrpcoder_client
    import vrpcoder_verifier

    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    for candidate in (Path(sys.executable), Path(f"/usr/bin/python{version}")):
        if candidate.exists() and _world_reachable(candidate):
            break
    else:
        pytest.fail(f"no Python {version} that an unprivileged user can run (install Debian's python{version})")
    packages = [Path(m.__file__).resolve().parent for m in (vrpcoder, vrpcoder_client, vrpcoder_verifier)]
    roots = [str(_reachable_copy(p).parent) for p in packages]
    path = os.pathsep.join([*roots, sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]])
    return str(candidate), {"PATH": os.environ["PATH"], "PYTHONPATH": path}


def _probe(*also_denied: str) -> dict[str, Any]:
    python, env = _unprivileged_python()
    done = subprocess.run([python, "-c", CHILD, str(SECCOMP), *also_denied], capture_output=True, text=True,
                          timeout=120, check=False, cwd="/", env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_bubblewrap_builds_the_sandbox_under_the_shipped_seccomp_profile() -> None:
    report = _probe()
    assert report["uid"] != 0
    assert report["available"] and report["mechanism"] == "bubblewrap", report["detail"]
    assert "user namespace" in report["detail"]
    assert all(report["refused"].values()), report["refused"]


def test_the_probe_fails_where_namespaces_or_mounts_are_denied() -> None:
    """What the runtime's default profile does to bubblewrap, reproduced: the sandbox cannot start."""
    report = _probe("unshare", "mount", "pivot_root")
    assert not report["available"], report["detail"]


def test_profiles_are_the_ones_the_worker_pod_and_docs_name() -> None:
    worker = next(d for d in yaml.safe_load_all((ROOT / "k8s" / "verifier-worker.yaml").read_text()) if d)
    context = worker["spec"]["template"]["spec"]["securityContext"]
    assert context["seccompProfile"] == {"type": "Localhost", "localhostProfile": f"profiles/{SECCOMP.name}"}
    assert context["appArmorProfile"]["type"] == "Localhost"
    profile_name = context["appArmorProfile"]["localhostProfile"]
    assert f"profile {profile_name} " in APPARMOR.read_text()
    docs = (ROOT / "docs" / "deployment.md").read_text()
    assert f"profiles/{SECCOMP.name}" in docs and APPARMOR.name in docs
    profile = json.loads(SECCOMP.read_text())
    denied = {name for rule in profile["syscalls"] for name in rule["names"]}
    assert not denied & {"unshare", "clone", "clone3", "mount", "umount2", "pivot_root"}, "bubblewrap needs these"

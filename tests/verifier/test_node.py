"""The worker's node check: which kernel setting keeps bubblewrap from creating a user namespace,
read from a /proc tree (a fake one per case, the real one for the worker's start-up line)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from vrpcoder_verifier.node import node_check


def _proc(tmp_path: Path, sysctls: dict[str, str], apparmor: str = "unconfined", seccomp: str = "2") -> Path:
    proc = tmp_path / "proc"
    for name, value in sysctls.items():
        path = proc / "sys" / name.replace(".", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")
    (proc / "self" / "attr").mkdir(parents=True)
    (proc / "self" / "attr" / "current").write_text(apparmor + "\n")
    (proc / "self" / "status").write_text(f"Name:\tpython\nSeccomp:\t{seccomp}\n")
    return proc


ALLOWED = {"user.max_user_namespaces": "63000", "kernel.unprivileged_userns_clone": "1"}


@pytest.mark.parametrize(
    ("sysctls", "apparmor", "problem"),
    [
        ({**ALLOWED, "user.max_user_namespaces": "0"}, "unconfined", "user.max_user_namespaces=0"),
        ({**ALLOWED, "kernel.unprivileged_userns_clone": "0"}, "unconfined", "kernel.unprivileged_userns_clone=0"),
        ({**ALLOWED, "kernel.apparmor_restrict_unprivileged_userns": "1"}, "unconfined", "apparmor_restrict_unprivileged_userns=1"),
    ],
    ids=["no-user-namespaces", "debian-switch-off", "ubuntu-apparmor-restriction"],
)
def test_each_blocking_setting_is_named(tmp_path: Path, sysctls: dict[str, str], apparmor: str, problem: str) -> None:
    check = node_check(_proc(tmp_path, sysctls, apparmor), root=False)
    assert not check.ok and problem in check.fields()["userns"]


@pytest.mark.parametrize(
    ("sysctls", "apparmor"),
    [
        (ALLOWED, "unconfined"),
        ({"user.max_user_namespaces": "100"}, "unconfined"),
        ({**ALLOWED, "kernel.apparmor_restrict_unprivileged_userns": "1"}, "vrpcoder-worker (enforce)"),
    ],
    ids=["allowed", "mainline-kernel-without-the-debian-switch", "restriction-with-the-shipped-profile"],
)
def test_nodes_that_allow_unprivileged_user_namespaces_pass(tmp_path: Path, sysctls: dict[str, str], apparmor: str) -> None:
    check = node_check(_proc(tmp_path, sysctls, apparmor), root=False)
    assert check.ok, check.problems
    assert check.apparmor == apparmor.removesuffix(" (enforce)") and check.seccomp == "filter"


def test_root_needs_no_user_namespace(tmp_path: Path) -> None:
    assert node_check(_proc(tmp_path, {"user.max_user_namespaces": "0"}), root=True).ok


def test_worker_prints_the_node_check_at_start(redis_url: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "vrpcoder_verifier", "worker", "--burst", "--redis-url", redis_url],
        capture_output=True, text=True, timeout=180, check=False,
        env={**os.environ, "VRPCODER_VERIFIER_QUEUE_NAME": "node-check-test", "VRPCODER_VERIFIER_CHECK_LICENCE": "false"},
    )
    line = next((line for line in done.stderr.splitlines() if "node check" in line), None)
    assert line is not None, done.stderr[-2000:]
    assert "userns=" in line and "apparmor=" in line and "seccomp=" in line

"""The bubblewrap command line: namespaces per mode, the given root, and the scrubbed environment."""

from __future__ import annotations

from pathlib import Path

import pytest
from vrpcoder_verifier.sandbox.bwrap import (
    SCRATCH,
    Mount,
    SandboxLayout,
    bind_plan,
    bwrap_command,
    host_layout,
    package_dirs,
    python_roots,
    sandbox_env,
)

ARGV = ["/venv/bin/python", "-I", "-m", "runner"]


def _layout(drop_uid: int | None) -> SandboxLayout:
    return SandboxLayout(
        mounts=(Mount("ro-bind", "/usr", "/usr"), Mount("symlink", "/bin", "usr/bin"), Mount("dir", "/opt")),
        env=(("HOME", SCRATCH), ("PATH", "/usr/bin")),
        scratch_bytes=1234,
        drop_uid=drop_uid,
    )


def test_bind_plan_drops_nested_binds_and_opens_parent_directories() -> None:
    plan = bind_plan(["/work/main/.venv", "/work/main/.venv/lib/site", "/root/.pyenv/versions/3.11", "/work/main/src/pkg"])
    binds = [m.dest for m in plan if m.kind == "ro-bind"]
    dirs = [m.dest for m in plan if m.kind == "dir"]
    assert sorted(binds) == ["/root/.pyenv/versions/3.11", "/work/main/.venv", "/work/main/src/pkg"]
    assert sorted(dirs) == ["/root", "/root/.pyenv", "/root/.pyenv/versions", "/work", "/work/main", "/work/main/src"]
    assert dirs.index("/work") < dirs.index("/work/main") < dirs.index("/work/main/src")
    assert plan.index(Mount("dir", "/work/main/src")) < plan.index(Mount("ro-bind", "/work/main/src/pkg", "/work/main/src/pkg"))


def test_unprivileged_mode_unshares_everything_and_adds_no_capability() -> None:
    command = bwrap_command("bwrap", _layout(None), ARGV)
    assert "--unshare-all" in command
    assert "--cap-add" not in command


def test_root_mode_keeps_out_of_user_namespaces_and_may_only_switch_uid() -> None:
    command = bwrap_command("bwrap", _layout(4242), ARGV)
    assert "--unshare-all" not in command and "--unshare-user" not in command
    for flag in ("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"):
        assert flag in command
    added = [command[i + 1] for i, arg in enumerate(command) if arg == "--cap-add"]
    assert sorted(added) == ["CAP_SETGID", "CAP_SETUID"]


@pytest.mark.parametrize("drop_uid", [None, 4242])
def test_command_gives_a_private_root_and_runs_argv_last(drop_uid: int | None) -> None:
    command = bwrap_command("bwrap", _layout(drop_uid), ARGV)
    for flag in ("--die-with-parent", "--new-session", "--clearenv"):
        assert flag in command
    assert "--proc" not in command
    assert "--bind" not in command
    tmpfs = command.index("--tmpfs")
    assert command[tmpfs + 1] == SCRATCH and command[tmpfs - 2 : tmpfs] == ["--size", "1234"]
    assert command[command.index("--") + 1 :] == ARGV
    assert ["--perms", "0755", "--dir", "/opt"] == command[command.index("/opt") - 3 : command.index("/opt") + 1]


def test_environment_is_built_from_scratch(tmp_path: Path) -> None:
    licence = tmp_path / "gurobi.lic"
    licence.write_text("TYPE=TEST")
    host = {
        "SECRET_TOKEN": "t0k3n",
        "REDIS_URL": "redis://:pw@host:6379/0",
        "OPENAI_API_KEY": "sk-x",
        "PATH": "/home/me/bin:/usr/bin",
        "GRB_LICENSE_FILE": str(licence),
    }
    env = dict(sandbox_env(SCRATCH, host))
    assert not {"SECRET_TOKEN", "REDIS_URL", "OPENAI_API_KEY"} & set(env)
    assert env["HOME"] == env["TMPDIR"] == SCRATCH
    assert "/home/me" not in env["PATH"]
    assert env["GRB_LICENSE_FILE"] == str(licence)


def test_licence_variable_is_dropped_when_its_file_is_missing(tmp_path: Path) -> None:
    env = dict(sandbox_env(SCRATCH, {"GRB_LICENSE_FILE": str(tmp_path / "absent.lic")}))
    assert "GRB_LICENSE_FILE" not in env


def test_host_layout_binds_the_interpreter_and_our_packages_read_only() -> None:
    layout = host_layout(1 << 20, None, host_env={})
    bound = {m.dest for m in layout.mounts if m.kind == "ro-bind"}
    for path in (*python_roots(), *package_dirs()):
        assert any(path == b or path.startswith(b + "/") for b in bound), path
    assert "/tmp" not in bound and "/etc" not in bound and "/proc" not in bound


@pytest.mark.parametrize("drop_uid", [None, 4242])
def test_only_the_scratch_stays_writable_once_every_mount_is_made(drop_uid: int | None) -> None:
    command = bwrap_command("bwrap", _layout(drop_uid), ARGV)
    remounted = [command[i + 1] for i, arg in enumerate(command) if arg == "--remount-ro"]
    assert remounted == ["/", "/dev"]
    first_remount = command.index("--remount-ro")
    mounting = ("--ro-bind", "--symlink", "--dir", "--tmpfs", "--dev")
    assert all(i < first_remount for i, arg in enumerate(command) if arg in mounting)
    assert SCRATCH not in remounted

"""The `vrpcoder verifier` commands: registered with the shared CLI, each with its help; a worker
refuses untrusted code when no sandbox is usable; the demo runs the whole stack end to end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import httpx
import pytest
from typer.testing import CliRunner
from vrpcoder.cli import _register_service_commands, app
from vrpcoder.samples import Sample
from vrpcoder_verifier.health import sandbox_report
from vrpcoder_verifier.sandbox.executor import SandboxExecutor
from vrpcoder_verifier.schemas import sample_digest
from vrpcoder_verifier.settings import ExecutorKind, Settings
from vrpcoder_verifier.stack import free_port, purge, settings_env, stack_settings
from vrpcoder_verifier.worker import InProcessExecutor, NoSandboxError, build_executor

runner = CliRunner()


@pytest.fixture(scope="module", autouse=True)
def _service_commands() -> None:
    _register_service_commands()


@pytest.mark.parametrize("command", [[], ["api"], ["worker"], ["demo"]], ids=["group", "api", "worker", "demo"])
def test_every_verifier_command_has_help(command: list[str]) -> None:
    result = runner.invoke(app, ["verifier", *command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


def test_api_refuses_to_start_without_tokens() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "vrpcoder_verifier", "api", "--port", "0"],
        capture_output=True, text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "VRPCODER_VERIFIER_API_TOKENS": ""},
        check=False,
    )
    assert done.returncode == 2
    assert "no API tokens" in done.stderr


def test_explicit_in_process_executor_is_unsandboxed() -> None:
    assert isinstance(build_executor(Settings(executor=ExecutorKind.IN_PROCESS)), InProcessExecutor)


def test_sandbox_executor_is_required_unless_unsandboxed_is_allowed() -> None:
    if sandbox_report().available:
        assert not isinstance(build_executor(Settings(executor=ExecutorKind.SANDBOX)), InProcessExecutor)
    else:
        with pytest.raises(NoSandboxError):
            build_executor(Settings())
        assert isinstance(build_executor(Settings(allow_unsandboxed=True)), InProcessExecutor)


def test_sandbox_settings_reach_the_executors_policy() -> None:
    if not sandbox_report().available:
        pytest.skip("no sandbox on this host")
    settings = Settings(executor=ExecutorKind.SANDBOX, sandboxes=1, sandbox_warm_jobs=7, head_start="never")
    executor = build_executor(settings)
    assert isinstance(executor, SandboxExecutor)
    assert (executor.policy.sandboxes, executor.policy.warm_jobs, executor.policy.head_start) == (1, 7, "never")


def test_api_with_several_processes_passes_its_flags_to_each(redis_url: str, cvrp: Sample) -> None:
    """``--workers`` processes build their app from the environment: ``--anonymous`` must reach them."""
    settings = stack_settings(redis_url, api_tokens=(), check_licence=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("VRPCODER_VERIFIER_")}
    env.update({k: v for k, v in settings_env(settings).items() if not k.endswith("ALLOW_ANONYMOUS")})
    port = free_port()
    api = subprocess.Popen(
        [sys.executable, "-m", "vrpcoder_verifier", "api", "--port", str(port), "--workers", "2",
         "--anonymous", "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while api.poll() is None and time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/healthz", timeout=0.5).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        registered = [httpx.post(f"{base}/v1/samples", json=cvrp.model_dump(mode="json")) for _ in range(4)]
        assert [r.status_code for r in registered] == [201] * 4
        assert {r.json()["sample_id"] for r in registered} == {sample_digest(cvrp)}
    finally:
        os.killpg(api.pid, signal.SIGTERM)
        api.wait(timeout=30)
        purge(settings)


@pytest.mark.slow
def test_demo_verifies_all_21_variants_through_the_service() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "vrpcoder_verifier", "demo", "--mutants", "1", "--json"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    import json

    rows = json.loads(done.stdout)  # JSON alone: the licence banner went to stderr
    gold = [r for r in rows if r["kind"] == "gold"]
    assert len(gold) == 21
    assert all(r["passed"] == r["samples"] for r in gold)
    assert all(not r["errors"] or "infrastructure" not in r["errors"] for r in rows)

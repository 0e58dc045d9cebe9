"""The `vrpcoder verifier` commands: registered with the shared CLI, each with its help; a worker
refuses untrusted code when no sandbox is usable; the demo runs the whole stack end to end; and
`vrpcoder verify` follows the service's policy (same verdict for a non-UTF-8 script, same wall
limit and message for a loop)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner
from vrpcoder.cli import _register_service_commands, app
from vrpcoder.errors import ErrorKind
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict
from vrpcoder_client.client import VerifierClient
from vrpcoder_client.schemas import VerifyOptions
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


@pytest.mark.parametrize("command", [[], ["api"], ["worker"], ["up"], ["demo"]], ids=["group", "api", "worker", "up", "demo"])
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


def test_up_refuses_a_taken_port_before_starting_anything() -> None:
    """(The stack itself, started and stopped with Ctrl-C, is the README's quick start: tests/test_readme.py.)"""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["verifier", "up", "--port", str(port), "--no-sandbox"])
    assert result.exit_code == 2
    assert f"port {port} on 127.0.0.1 is taken" in result.output


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


VERIFY = [sys.executable, "-c", "from vrpcoder.cli import main; main()", "verify"]


def _verify_cli(tmp_path: Path, script: bytes, sample: Sample, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    (tmp_path / "candidate.py").write_bytes(script)
    (tmp_path / "sample.json").write_text(sample.model_dump_json())
    return subprocess.run(
        [*VERIFY, str(tmp_path / "candidate.py"), str(tmp_path / "sample.json"), "--json", *args],
        capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})}, check=False,
    )


def test_a_script_that_is_not_utf8_gets_the_same_verdict_from_the_cli_and_the_api(
    tmp_path: Path, client: VerifierClient, cvrp: Sample
) -> None:
    """The same bytes, read by the command and sent (as the text Python reads them) to the API."""
    script = cvrp.gold_code.replace("def build_model():", "# caf\xe9 au lait\ndef build_model():", 1).encode("latin-1")
    done = _verify_cli(tmp_path, script, cvrp, "--no-sandbox", "--time-limit", "10")
    assert done.returncode == 1, done.stderr
    local = Verdict.model_validate_json(done.stdout)
    remote = client.verify(script.decode("utf-8", "surrogateescape"), cvrp, options=VerifyOptions(time_limit=10.0))
    assert remote.verdict is not None and local.error is not None
    assert local.error == remote.verdict.error and local.error.kind is ErrorKind.SYNTAX_ERROR
    assert (local.reward, local.build) == (remote.verdict.reward, remote.verdict.build)


def test_a_looping_script_hits_the_service_s_wall_limit_in_the_cli(tmp_path: Path, tsp: Sample) -> None:
    """One policy: the command's limit is the service's ``job_wall_seconds`` of the same settings, with
    the same message (the service's own limit is asserted in test_faults)."""
    if not sandbox_report().available:
        pytest.skip("only the sandbox enforces a job's wall limit")
    loop = b"import time\n\ndef build_model():\n    while True:\n        time.sleep(0.05)\n"
    limits = {"VRPCODER_VERIFIER_JOB_BUILD_SECONDS": "1.0", "VRPCODER_VERIFIER_JOB_GRACE_SECONDS": "0.5"}
    wall = Settings(job_build_seconds=1.0, job_grace_seconds=0.5).job_wall_seconds(0.5, len(tsp.probes))
    started = time.monotonic()
    done = _verify_cli(tmp_path, loop, tsp, "--time-limit", "0.5", env=limits)
    seconds = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    verdict = Verdict.model_validate_json(done.stdout)
    assert verdict.error is not None and verdict.error.kind is ErrorKind.TIMEOUT
    assert verdict.error.detail == f"wall-clock limit of {wall:g} s exceeded"
    assert wall <= seconds < wall + 15.0

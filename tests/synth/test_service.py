"""Stage 4 through the real verifier service: private redis-server, uvicorn API, rq workers in
bubblewrap sandboxes, the light client's batch endpoint. Decisions must equal the in-process ones."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner
from vrpcoder.cli import _register_service_commands, app
from vrpcoder_verifier.stack import LocalStack, RedisServer, purge, stack_settings

from vrpcoder_synth.config import GridConfig, SynthConfig, VerifierConfig
from vrpcoder_synth.pipeline import run
from vrpcoder_synth.regenerate import OfflineCoder
from vrpcoder_synth.verifiers import InProcessBackend, ServiceBackend
from vrpcoder_synth.writers import OfflineWriter

GRID = GridConfig(variants=("CVRP", "VRPB"), profiles=(1,), seeds=(0,), customers=5)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    server = RedisServer()
    server.start()
    executor = os.environ.get("VRPCODER_TEST_EXECUTOR", "auto")
    settings = stack_settings(server.url, executor=executor, allow_unsandboxed=True, max_time_limit=30.0, default_time_limit=30.0)
    try:
        with LocalStack(settings, workers=2, log_dir=tmp_path_factory.mktemp("synth-stack-logs")) as running:
            yield running
    finally:
        purge(settings)
        server.close()


def _decisions(out: Path, config: SynthConfig, backend) -> dict[str, tuple[str, str]]:
    report = run(config, out, writer=OfflineWriter(), coder=OfflineCoder(), backend=backend, fingerprint="offline")
    return {r.id: (r.outcome.value, r.reason) for r in report.records}


def test_service_backend_decides_like_the_in_process_verifier(stack: LocalStack, tmp_path: Path) -> None:
    config = SynthConfig(grid=GRID, verifier=VerifierConfig(backend="service", url=stack.base_url, time_limit=30.0, batch_size=8))
    backend = ServiceBackend(stack.base_url, stack.token, time_limit=30.0)
    try:
        over_http = _decisions(tmp_path / "service", config, backend)
    finally:
        backend.close()
    in_process = _decisions(tmp_path / "inprocess", config, InProcessBackend(time_limit=30.0))
    assert over_http == in_process
    outcomes = {outcome for outcome, _ in over_http.values()}
    assert {"accepted", "reserved"} <= outcomes
    assert (tmp_path / "service" / "README.md").read_bytes() == (tmp_path / "inprocess" / "README.md").read_bytes()


def test_cli_run_through_the_service(stack: LocalStack, tmp_path: Path) -> None:
    """`vrpcoder synth run --verifier service --url ...` with the token from the config's env var; a
    refused request (wrong token, time limit over the service's cap) stops the run with exit 2."""
    _register_service_commands()
    base = 'paths = ["scenario", "strict"]\n[grid]\nvariants = ["TSP"]\nprofiles = [1]\nseeds = [0]\ncustomers = 4\n'
    config = tmp_path / "tsp.toml"
    config.write_text(base + "[verifier]\ntime_limit = 30.0\n")  # the stack's cap
    too_long = tmp_path / "too_long.toml"
    too_long.write_text(base + "[verifier]\ntime_limit = 500.0\n")
    args = ["synth", "run", "--config", str(config), "--out", str(tmp_path / "out"), "--verifier", "service", "--url", stack.base_url, "--json"]
    denied = CliRunner().invoke(app, args, env={"VRPCODER_VERIFIER_TOKEN": "wrong-token"})
    assert denied.exit_code == 2 and "token not accepted" in denied.output, denied.output
    capped = CliRunner().invoke(app, [*args[:3], str(too_long), *args[4:]], env={"VRPCODER_VERIFIER_TOKEN": stack.token})
    assert capped.exit_code == 2 and "refused" in capped.output, capped.output
    result = CliRunner().invoke(app, args, env={"VRPCODER_VERIFIER_TOKEN": stack.token})
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["pending"] == 0 and summary["outcomes"]["accepted"] == 2


def test_an_unreachable_service_decides_nothing(tmp_path: Path) -> None:
    config = SynthConfig(grid=GridConfig(variants=("TSP",), profiles=(1,), seeds=(0,), customers=4), mutants=False)
    backend = ServiceBackend("http://127.0.0.1:9", None, time_limit=10.0, timeout=2.0, retry_seconds=2.0)
    report = run(config, tmp_path, writer=OfflineWriter(), coder=OfflineCoder(), backend=backend, fingerprint="offline")
    backend.close()
    assert report.records == [] and report.computed == 0
    assert report.pending == 4, "the four paths of the one TSP sample, asked again by the next run"
    assert not (tmp_path / ".work" / "items").exists()

"""/readyz tells the truth: ready means a request can be served now.

The API runs here as deployed in a container: unable to start a sandbox of its own (bubblewrap is
not on its PATH, as under Docker's default seccomp profile it cannot create namespaces), while the
workers, as their own processes, run candidates in a working sandbox. Everything is real: a private
redis-server, the API under uvicorn and rq workers as subprocesses of the CLI.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from pydantic import SecretStr
from vrpcoder_client.schemas import SandboxReport, WorkerReport
from vrpcoder_verifier.api.core.security import may_see_worker_details
from vrpcoder_verifier.health import is_ready, sandbox_report
from vrpcoder_verifier.settings import Settings
from vrpcoder_verifier.stack import RedisServer, free_port, settings_env, stack_settings

needs_sandbox = pytest.mark.skipif(
    not sandbox_report().available, reason="needs a working bubblewrap sandbox for the workers"
)


def _report(available: bool, mechanism: str) -> WorkerReport:
    return WorkerReport(
        name="w", version="v", licence="full", sandbox=SandboxReport(available=available, mechanism=mechanism, detail="")
    )


@pytest.mark.parametrize(
    ("redis", "workers", "unsandboxed_ok", "ready"),
    [
        (True, [], True, False),
        (False, [_report(True, "bubblewrap")], False, False),
        (True, [_report(True, "bubblewrap")], False, True),
        (True, [_report(False, "none")], True, False),
        (True, [_report(False, "in-process")], False, False),
        (True, [_report(False, "in-process")], True, True),
        (True, [_report(False, "in-process"), _report(True, "bubblewrap")], False, True),
    ],
    ids=["no-worker", "no-redis", "sandboxed", "no-sandbox", "unsandboxed-refused", "unsandboxed-allowed", "one-of-two"],
)
def test_readiness_needs_redis_and_a_worker_that_can_run_candidates(
    redis: bool, workers: list[WorkerReport], unsandboxed_ok: bool, ready: bool
) -> None:
    assert is_ready(redis, workers, unsandboxed_ok) is ready


def test_worker_details_are_shown_with_a_valid_token_or_when_made_public() -> None:
    private = Settings(api_tokens=(SecretStr("secret"),))
    assert may_see_worker_details("Bearer secret", private)
    assert not may_see_worker_details(None, private)
    assert not may_see_worker_details("Bearer secre", private)
    assert not may_see_worker_details("Basic secret", private)
    public = Settings(api_tokens=(SecretStr("secret"),), public_worker_details=True)
    assert may_see_worker_details(None, public)


def _env(settings: Settings, path: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VRPCODER_VERIFIER_") and k != "REDIS_URL"}
    env.update(settings_env(settings))
    env["PYTHONUNBUFFERED"] = "1"
    if path is not None:
        env["PATH"] = path
    return env


@contextmanager
def _process(args: list[str], env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    with log.open("ab") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "vrpcoder_verifier", *args], env=env, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=10)


def _until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def _status(url: str, **kwargs: object) -> int:
    try:
        return httpx.get(url, timeout=5, **kwargs).status_code  # type: ignore[arg-type]
    except httpx.HTTPError:
        return -1


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def settings(redis_server: RedisServer) -> Settings:
    # no unsandboxed runs allowed: only a worker with a working sandbox may make the API ready
    return stack_settings(redis_server.url, check_licence=False, allow_unsandboxed=False, executor="auto")


@pytest.fixture(scope="module")
def sandboxless_api(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The API with a PATH that holds only its Python: no bubblewrap, so no sandbox of its own."""
    port = free_port()
    env = _env(settings, path=str(Path(sys.executable).parent))
    log = tmp_path_factory.mktemp("readiness") / "api.log"
    with _process(["api", "--port", str(port)], env, log):
        base = f"http://127.0.0.1:{port}"
        _until(lambda: _status(f"{base}/healthz") == 200, 60, "the API")
        yield base


@contextmanager
def _worker(settings: Settings, log: Path, base: str) -> Iterator[subprocess.Popen[bytes]]:
    with _process(["worker"], _env(settings), log) as process:
        _until(lambda: _status(f"{base}/readyz") == 200 or process.poll() is not None, 90, "a ready worker")
        assert process.poll() is None, log.read_text()[-2000:]
        yield process


def _token(settings: Settings) -> str:
    return settings.api_tokens[0].get_secret_value()


@needs_sandbox
def test_api_without_a_sandbox_is_ready_once_a_sandboxed_worker_is_alive(
    sandboxless_api: str, settings: Settings, tmp_path: Path
) -> None:
    auth = {"Authorization": f"Bearer {_token(settings)}"}
    alone = httpx.get(f"{sandboxless_api}/readyz", headers=auth, timeout=5)
    assert alone.status_code == 503
    assert alone.json()["redis"] is True and alone.json()["workers"] == []
    assert alone.json()["sandbox"]["available"] is False, "the API was meant to run without a sandbox"
    assert httpx.get(f"{sandboxless_api}/healthz", timeout=5).status_code == 200

    with _worker(settings, tmp_path / "worker.log", sandboxless_api) as worker:
        ready = httpx.get(f"{sandboxless_api}/readyz", headers=auth, timeout=5)
        assert ready.status_code == 200, ready.text
        body = ready.json()
        assert body["ready"] is True and body["sandbox"]["available"] is False
        assert [w["sandbox"]["available"] for w in body["workers"]] == [True]
        os.killpg(worker.pid, signal.SIGTERM)  # a worker that stops takes its alive key with it
        worker.wait(timeout=30)
        _until(lambda: _status(f"{sandboxless_api}/readyz") == 503, 30, "readiness to drop")


@needs_sandbox
def test_worker_names_and_versions_need_a_token(sandboxless_api: str, settings: Settings, tmp_path: Path) -> None:
    token = _token(settings)
    with _worker(settings, tmp_path / "worker.log", sandboxless_api):
        anonymous = httpx.get(f"{sandboxless_api}/readyz", timeout=5).json()
        shown = httpx.get(f"{sandboxless_api}/readyz", headers={"Authorization": f"Bearer {token}"}, timeout=5).json()
        wrong = httpx.get(f"{sandboxless_api}/readyz", headers={"Authorization": "Bearer nope"}, timeout=5).json()
        metrics_anonymous = httpx.get(f"{sandboxless_api}/metrics", timeout=5).text
        metrics_shown = httpx.get(
            f"{sandboxless_api}/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=5
        ).text

    (worker,) = shown["workers"]
    assert worker["version"] == settings.version and worker["sandbox"]["available"] is True
    for hidden in (anonymous, wrong):
        (public,) = hidden["workers"]
        assert public["name"] != worker["name"] and public["version"] != worker["version"]
        assert worker["name"] not in str(hidden)
        assert public["sandbox"]["available"] is True and hidden["ready"] is True
    assert f'name="{worker["name"]}"' in metrics_shown and "verifier_worker_info" in metrics_shown
    assert worker["name"] not in metrics_anonymous and "verifier_worker_info{" not in metrics_anonymous
    assert "verifier_queue_depth" in metrics_anonymous


@needs_sandbox
def test_the_docs_page_loads_swagger_ui_from_the_api_itself(sandboxless_api: str) -> None:
    """A cluster without internet access still gets a working /docs: no asset comes from a CDN."""
    page = httpx.get(f"{sandboxless_api}/docs", timeout=5)
    assert page.status_code == 200
    assets = re.findall(r"""(?:src|href)=['"]([^'"]+)['"]""", page.text)
    assert {"/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"} <= set(assets)
    assert not [a for a in assets if "//" in a], "an asset is loaded from another host"
    assert "cdn" not in page.text.lower()
    for asset in assets:
        fetched = httpx.get(f"{sandboxless_api}{asset}", timeout=5)
        assert fetched.status_code == 200 and len(fetched.content) > 100, asset
    assert "SwaggerUIBundle" in httpx.get(f"{sandboxless_api}/docs/assets/swagger-ui-bundle.js", timeout=5).text
    assert httpx.get(f"{sandboxless_api}/redoc", timeout=5).status_code == 404


def _api_container() -> dict[str, Any]:
    manifests = yaml.safe_load_all((Path(__file__).resolve().parents[2] / "k8s" / "verifier-api.yaml").read_text())
    deployment = next(d for d in manifests if d and d["kind"] == "Deployment")
    container: dict[str, Any] = deployment["spec"]["template"]["spec"]["containers"][0]
    return container


@needs_sandbox
def test_the_api_deployments_probes_succeed_where_the_api_has_no_sandbox(
    sandboxless_api: str, settings: Settings, tmp_path: Path
) -> None:
    """k8s/verifier-api.yaml runs the API under RuntimeDefault seccomp, where bubblewrap cannot start
    (test_deploy checks that). Every probe it declares must still answer 200 there, as a kubelet
    asks (no token), once a worker is up; otherwise its pods never become Ready."""
    container = _api_container()
    probes = {kind: container[kind]["httpGet"] for kind in ("readinessProbe", "livenessProbe", "startupProbe")
              if kind in container}
    assert probes["readinessProbe"]["path"] == "/readyz"
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert all(ports.get(p["port"], p["port"]) == 8000 for p in probes.values())
    with _worker(settings, tmp_path / "worker.log", sandboxless_api):
        for kind, probe in probes.items():
            assert _status(f"{sandboxless_api}{probe['path']}") == 200, kind

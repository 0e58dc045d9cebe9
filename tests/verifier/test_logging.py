"""Log lines operators can read: one format for every process, one access line per request, one
line per job, and never a candidate's text or a bearer token.

The format tests run the real ``logging`` machinery into a buffer; the service test runs the real
stack (private redis-server, the API and a sandboxed worker as CLI subprocesses) with JSON logs
and reads what they wrote.
"""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from rq.logutils import setup_loghandlers
from vrpcoder_verifier.health import sandbox_report
from vrpcoder_verifier.logs import configure_logging, log_event, parse_level
from vrpcoder_verifier.stack import RedisServer, free_port, settings_env, stack_settings

from tests.verifier.support import tiny_samples

_TOUCHED = ("vrpcoder_verifier", "vrpcoder", "rq", "rq.worker", "rq.job", "uvicorn", "uvicorn.error", "uvicorn.access")


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Put every logger configure_logging touches back as it was, for the tests that run after."""
    saved = {
        name: (list(lg.handlers), lg.level, lg.propagate, lg.disabled)
        for name, lg in ((n, logging.getLogger(n)) for n in _TOUCHED)
    }
    yield
    for name, (handlers, level, propagate, disabled) in saved.items():
        logger = logging.getLogger(name)
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = propagate
        logger.disabled = disabled


@pytest.mark.usefixtures("restore_logging")
def test_json_lines_carry_the_event_fields() -> None:
    stream = io.StringIO()
    configure_logging("INFO", json_format=True, stream=stream)
    log_event(logging.getLogger("vrpcoder_verifier.worker"), "job done", job="j1", reward=None, seconds=0.1234567)
    log_event(logging.getLogger("vrpcoder_verifier.worker"), "too detailed", level=logging.DEBUG, job="j2")
    (line,) = stream.getvalue().splitlines()
    entry = json.loads(line)
    assert entry["message"] == "job done" and entry["level"] == "INFO"
    assert entry["logger"] == "vrpcoder_verifier.worker"
    assert entry["job"] == "j1" and entry["reward"] is None and entry["seconds"] == pytest.approx(0.123457)
    assert entry["ts"].endswith("Z")


@pytest.mark.usefixtures("restore_logging")
def test_text_lines_quote_values_that_would_break_key_value_parsing() -> None:
    stream = io.StringIO()
    configure_logging("debug", stream=stream)
    log_event(logging.getLogger("vrpcoder_verifier.access"), "request", path="/v1/verify", note='a b="c"', ok=True)
    (line,) = stream.getvalue().splitlines()
    assert " DEBUG " not in line and " INFO vrpcoder_verifier.access request " in line
    assert line.endswith('path=/v1/verify note="a b=\\"c\\"" ok=true')


@pytest.mark.usefixtures("restore_logging")
def test_configuring_twice_writes_each_line_once_and_rq_joins_the_format() -> None:
    first, second = io.StringIO(), io.StringIO()
    configure_logging("INFO", stream=first)
    configure_logging("INFO", json_format=True, stream=second)
    setup_loghandlers("INFO")  # what an rq worker does at start: adds its own handler unless one is there
    logging.getLogger("vrpcoder_verifier").info("once")
    logging.getLogger("rq.worker").info("Worker %s: started", "w1")
    assert first.getvalue() == ""
    lines = [json.loads(line) for line in second.getvalue().splitlines()]
    assert [(e["logger"], e["message"]) for e in lines] == [("vrpcoder_verifier", "once"), ("rq.worker", "Worker w1: started")]


def test_an_unknown_level_is_refused_with_the_choices() -> None:
    assert parse_level("warning") == logging.WARNING
    with pytest.raises(ValueError, match="DEBUG, INFO"):
        parse_level("loud")


def test_the_cli_refuses_a_bad_log_level_clearly() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "vrpcoder_verifier", "api", "--log-level", "loud", "--anonymous"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 2
    assert "unknown log level 'loud'" in done.stderr


def _lines(path: Path) -> list[dict[str, Any]]:
    entries = []
    for line in path.read_text().splitlines():
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return entries


@pytest.mark.skipif(not sandbox_report().available, reason="needs a working bubblewrap sandbox for the worker")
def test_the_stack_logs_each_request_and_each_job_without_candidate_text_or_token(tmp_path: Path) -> None:
    server = RedisServer()
    server.start()
    settings = stack_settings(server.url, check_licence=False, log_json=True, log_level="INFO")
    token = settings.api_tokens[0].get_secret_value()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VRPCODER_VERIFIER_") and k != "REDIS_URL"}
    env.update(settings_env(settings))
    port = free_port()
    logs = {name: tmp_path / f"{name}.log" for name in ("api", "worker")}
    processes = []
    try:
        for name, args in (("api", ["api", "--port", str(port)]), ("worker", ["worker"])):
            with logs[name].open("wb") as out:
                processes.append(subprocess.Popen(
                    [sys.executable, "-m", "vrpcoder_verifier", *args], env=env, stdout=out,
                    stderr=subprocess.STDOUT, start_new_session=True,
                ))
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        else:
            raise AssertionError(logs["api"].read_text()[-2000:] + logs["worker"].read_text()[-2000:])

        sample = tiny_samples("CVRP")[0]
        marker = f"# candidate-text-{uuid.uuid4().hex}"
        response = httpx.post(
            f"{base}/v1/verify",
            json={"candidate": f"{sample.gold_code}\n{marker}\n", "sample": sample.model_dump(mode="json"),
                  "options": {"time_limit": 10}, "wait": 60},
            headers={"Authorization": f"Bearer {token}"},
            timeout=90,
        )
        assert response.status_code == 200, response.text
        job_id = response.json()["job_id"]
        assert httpx.get(f"{base}/v1/jobs/{job_id}", timeout=5).status_code == 401
    finally:
        for process in processes:
            os.killpg(process.pid, signal.SIGTERM)
        for process in processes:
            process.wait(timeout=30)
        server.close()

    api_text, worker_text = logs["api"].read_text(), logs["worker"].read_text()
    for text in (api_text, worker_text):
        assert marker not in text and token not in text
    access = [e for e in _lines(logs["api"]) if e.get("logger") == "vrpcoder_verifier.access"]
    posted = [e for e in access if e["method"] == "POST" and e["path"] == "/v1/verify"]
    assert len(posted) == 1 and posted[0]["status"] == 200 and posted[0]["ms"] > 0
    assert any(e["path"] == f"/v1/jobs/{job_id}" and e["status"] == 401 for e in access)
    assert not any(e["path"] == "/readyz" for e in access), "routine probes belong at DEBUG"
    jobs = [e for e in _lines(logs["worker"]) if e.get("job") == job_id]
    assert len(jobs) == 1, worker_text[-3000:]
    assert jobs[0]["reward"] == pytest.approx(1.0) and jobs[0]["sample"]

"""Redis keeps the queue across a restart: the arguments compose and k8s/redis.yaml give it, run
with the real redis-server on a data folder, write an append-only file that a second server
started the same way reads back."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
import redis
import yaml

ROOT = Path(__file__).resolve().parents[2]


def _compose_args() -> list[str]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["redis"]["command"][1:]


def _k8s_args() -> list[str]:
    deployment = next(d for d in yaml.safe_load_all((ROOT / "k8s" / "redis.yaml").read_text()) if d and d["kind"] == "Deployment")
    return deployment["spec"]["template"]["spec"]["containers"][0]["args"][1:]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(args: list[str], data: Path) -> tuple[subprocess.Popen[bytes], redis.Redis]:
    server = shutil.which("redis-server")
    if server is None:
        pytest.fail("redis-server is missing: `make install` installs it")
    port = _free_port()
    shipped = [a for i, a in enumerate(args) if a != "--dir" and (i == 0 or args[i - 1] != "--dir")]  # the volume's path
    process = subprocess.Popen([server, *shipped, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port)
    for _ in range(100):
        try:
            client.ping()
            return process, client
        except redis.exceptions.ConnectionError:
            time.sleep(0.05)
    process.kill()
    pytest.fail("redis-server did not start")


@pytest.mark.parametrize("args", [_compose_args(), _k8s_args()], ids=["compose", "k8s"])
def test_queued_jobs_survive_a_restart(args: list[str], tmp_path: Path) -> None:
    process, client = _start(args, tmp_path)
    try:
        client.rpush("rq:queue:vrpcoder-verify", "job-1", "job-2")
        client.config_set("appendfsync", "always")  # the test does not wait a second for everysec
        client.set("flush", "1")
    finally:
        process.terminate()
        process.wait(10)
    process, client = _start(args, tmp_path)
    try:
        assert client.lrange("rq:queue:vrpcoder-verify", 0, -1) == [b"job-1", b"job-2"]
    finally:
        process.terminate()
        process.wait(10)


def test_the_data_folder_is_a_volume_in_both() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert "redis-data:/data" in compose["services"]["redis"]["volumes"] and "redis-data" in compose["volumes"]
    documents = [d for d in yaml.safe_load_all((ROOT / "k8s" / "redis.yaml").read_text()) if d]
    deployment = next(d for d in documents if d["kind"] == "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    claims = {v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"] if "persistentVolumeClaim" in v}
    assert claims == {"redis-data"} and any(d["kind"] == "PersistentVolumeClaim" and d["metadata"]["name"] == "redis-data"
                                            for d in documents)
    assert deployment["spec"]["strategy"]["type"] == "Recreate", "a ReadWriteOnce volume cannot be held by two pods"

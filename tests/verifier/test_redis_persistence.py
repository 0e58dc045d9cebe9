"""Redis persists what the service keeps in it: compose and k8s run it with the shipped flags
(``stack.REDIS_PERSISTENCE``) on a volume, and a restart with those flags keeps samples and queued
work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import redis
import yaml
from vrpcoder.verification import VerifyConfig
from vrpcoder_verifier.jobs import BatchKeys, ItemSpec, backlog_key, make_queue, new_id, notify_key
from vrpcoder_verifier.queue import enqueue
from vrpcoder_verifier.stack import REDIS_PERSISTENCE, RedisServer, stack_settings

ROOT = Path(__file__).resolve().parents[2]


def _has_flags(args: list[str]) -> bool:
    pairs = list(zip(REDIS_PERSISTENCE[0::2], REDIS_PERSISTENCE[1::2], strict=True))
    given = {args[i]: args[i + 1] for i in range(len(args) - 1) if args[i].startswith("--")}
    return all(given.get(flag) == value for flag, value in pairs) and given.get("--dir") == "/data"


def test_compose_runs_redis_with_the_shipped_persistence_on_a_volume() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    redis_service = compose["services"]["redis"]
    assert _has_flags(redis_service["command"]), redis_service["command"]
    volume = next(v for v in redis_service["volumes"] if v.endswith(":/data"))
    assert volume.split(":")[0] in compose["volumes"], "the data directory is not a named volume"
    assert "/data" not in redis_service.get("tmpfs", [])


def test_kubernetes_runs_redis_with_the_shipped_persistence_on_a_claim() -> None:
    documents: list[dict[str, Any]] = [d for d in yaml.safe_load_all((ROOT / "k8s" / "redis.yaml").read_text()) if d]
    deployment = next(d for d in documents if d["kind"] in ("Deployment", "StatefulSet"))
    pod = deployment["spec"]["template"]["spec"]
    (container,) = [c for c in pod["containers"] if c["name"] == "redis"]
    assert _has_flags(container["args"]), container["args"]
    mount = next(m for m in container["volumeMounts"] if m["mountPath"] == "/data")
    volume = next(v for v in pod["volumes"] if v["name"] == mount["name"])
    claims = {d["metadata"]["name"] for d in documents if d["kind"] == "PersistentVolumeClaim"}
    assert volume.get("persistentVolumeClaim", {}).get("claimName") in claims
    if deployment["kind"] == "Deployment":
        assert deployment["spec"]["strategy"]["type"] == "Recreate", "two pods would share one append-only file"


def test_a_restart_with_the_shipped_persistence_keeps_samples_and_queued_work() -> None:
    server = RedisServer(persistent=True)
    server.start()
    try:
        settings = stack_settings(server.url)
        client = redis.Redis.from_url(server.url)
        items = [ItemSpec(new_id(), f"x = {i}\n", "a" * 64, new_id()) for i in range(3)]
        token = enqueue(make_queue(client, settings), items, VerifyConfig(), notify_key(settings, new_id()), settings, 2)
        client.set(settings.key("sample", "a" * 64), "{}", ex=3600)
        client.close()
        server.restart(graceful=True)
        client = redis.Redis.from_url(server.url)
        assert client.exists(settings.key("sample", "a" * 64))
        assert client.llen(BatchKeys.of(settings, token).todo) == 3
        assert client.zcard(backlog_key(settings)) == 3
        assert client.llen(make_queue(client, settings).key) == 2
        client.close()
    finally:
        server.close()

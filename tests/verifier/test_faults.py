"""Faults of the deployment: a worker killed mid-job, Redis going away, a burst of requests.

Each test runs its own stack on its own redis-server (never the machine's Redis, which other
stacks share), so killing and restarting parts cannot disturb anything else.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
from vrpcoder.samples import Sample
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_client.client import AsyncVerifierClient, VerifierClient
from vrpcoder_verifier.schemas import JobState, VerifyOptions, VerifyResult
from vrpcoder_verifier.stack import LocalStack, RedisServer, stack_settings

from tests.verifier.support import EXECUTOR, comparable, slow_gold

OPTIONS = VerifyOptions(time_limit=10.0)


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.close()


def _stack(server: RedisServer, log_dir: Path, workers: int = 2, **overrides: object) -> LocalStack:
    settings = stack_settings(server.url, executor=EXECUTOR, allow_unsandboxed=True, check_licence=False, **overrides)
    return LocalStack(settings, workers=workers, log_dir=log_dir)


def _worker_running(stack: LocalStack, job_id: str, timeout: float = 20.0) -> int:
    """Index of the worker process that has started ``job_id``."""
    client = redis.Redis.from_url(stack.settings.redis_url, decode_responses=True)
    registry = f"rq:wip:{stack.settings.queue_name}"
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            for entry in client.zrange(registry, 0, -1):
                if str(entry).startswith(job_id):
                    name = client.hget(f"rq:execution:{entry!s}", "worker_name")
                    assert isinstance(name, str)
                    return int(name.rsplit("-w", 1)[1].split("-")[0])
            time.sleep(0.05)
    finally:
        client.close()
    raise AssertionError(f"job {job_id} never started")


def _stored(stack: LocalStack, kind: str, item_id: str) -> str | None:
    """A key of the stack as it is in Redis now: an item's record (``job``) or its job (``item``)."""
    client = redis.Redis.from_url(stack.settings.redis_url, decode_responses=True)
    try:
        value = client.get(stack.settings.key(kind, item_id))
        return None if value is None else str(value)
    finally:
        client.close()


def _recorded(stack: LocalStack, item_id: str, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        record = _stored(stack, "job", item_id)
        if record is not None:
            return record
        time.sleep(0.05)
    raise AssertionError(f"item {item_id} never finished")


def _chunk_with_a_finished_item(
    stack: LocalStack, client: VerifierClient, candidates: list[str], sample: Sample
) -> tuple[list[VerifyResult], str, int]:
    """Send a batch whose first item is fast and second slow; once the first is done, return the
    results, that item's record, and the index of the worker running their chunk."""
    pending = client.verify_batch(candidates, sample, options=OPTIONS, wait=0.0, until_done=False)
    first, second = (r.job_id for r in pending[:2])
    assert first is not None and second is not None
    holder = _stored(stack, "item", first)
    assert holder is not None and holder == _stored(stack, "item", second), "the items are not in one chunk"
    record = _recorded(stack, first)
    return pending, record, _worker_running(stack, holder)


def test_a_chunk_whose_worker_dies_is_rerun_without_redoing_finished_items(
    redis_server: RedisServer, tmp_path: Path, cvrp: Sample
) -> None:
    fast = [f"{cvrp.gold_code}\n# fast {i}\n" for i in range(6)]
    candidates = [fast[0], f"{slow_gold(cvrp, 3.0)}\n# slow\n", *fast[2:]]
    with _stack(redis_server, tmp_path) as stack, VerifierClient(stack.base_url, stack.token) as client:
        time.sleep(2 * stack.settings.worker_heartbeat_seconds)  # the API has counted both workers
        pending, record, worker = _chunk_with_a_finished_item(stack, client, candidates, cvrp)
        _kill(stack.worker_processes[worker])
        done = client.wait(pending, timeout=60)
        assert all(r.state is JobState.FINISHED and r.reward == pytest.approx(1.0) for r in done)
        assert pending[0].job_id is not None
        assert _stored(stack, "job", pending[0].job_id) == record, "the finished item was verified again"


def test_a_chunk_whose_worker_dies_without_retries_fails_only_its_unfinished_items(
    redis_server: RedisServer, tmp_path: Path, cvrp: Sample
) -> None:
    gold = cvrp.gold_code
    candidates = [f"{gold}\n# done first\n", slow_gold(cvrp, 30.0), f"{gold}\n# next chunk\n"]
    with _stack(redis_server, tmp_path, workers=1, job_retries=0) as stack, VerifierClient(
        stack.base_url, stack.token
    ) as client:
        pending, _, worker = _chunk_with_a_finished_item(stack, client, candidates, cvrp)
        _kill(stack.worker_processes[worker])
        done = client.wait(pending[:2], timeout=30)
        assert done[0].state is JobState.FINISHED and done[0].reward == pytest.approx(1.0)
        assert done[1].state is JobState.FAILED and done[1].reward is None
        assert done[1].failure is not None and "worker" in done[1].failure and "died" in done[1].failure
        assert pending[2].job_id is not None
        assert client.job(pending[2].job_id).state is JobState.QUEUED, "no worker took the other chunk"


def _kill(process: object) -> None:
    assert hasattr(process, "pid")
    os.killpg(process.pid, signal.SIGKILL)


def _until_done(client: VerifierClient, job_id: str, timeout: float) -> tuple[VerifyResult, float]:
    started = time.monotonic()
    result = client.wait([client.job(job_id)], timeout=timeout)[0]
    return result, time.monotonic() - started


def test_killed_worker_job_is_rerun_on_another_worker(
    redis_server: RedisServer, tmp_path: Path, cvrp: Sample
) -> None:
    with _stack(redis_server, tmp_path) as stack, VerifierClient(stack.base_url, stack.token) as client:
        pending = client.verify(slow_gold(cvrp, 2.0), cvrp, options=OPTIONS, wait=0.0, until_done=False)
        assert pending.job_id is not None
        _kill(stack.worker_processes[_worker_running(stack, pending.job_id)])
        result, seconds = _until_done(client, pending.job_id, timeout=40)
        assert result.state is JobState.FINISHED
        assert result.reward == pytest.approx(1.0)
        bound = stack.settings.worker_dead_after_seconds + 2 * stack.settings.worker_heartbeat_seconds + 2.0 + 5.0
        assert seconds < bound


def test_killed_worker_job_without_retries_fails_with_a_clear_status(
    redis_server: RedisServer, tmp_path: Path, cvrp: Sample
) -> None:
    with _stack(redis_server, tmp_path, workers=1, job_retries=0) as stack, VerifierClient(
        stack.base_url, stack.token
    ) as client:
        pending = client.verify(slow_gold(cvrp, 30.0), cvrp, options=OPTIONS, wait=0.0, until_done=False)
        assert pending.job_id is not None
        _kill(stack.worker_processes[_worker_running(stack, pending.job_id)])
        result, seconds = _until_done(client, pending.job_id, timeout=30)
        assert result.state is JobState.FAILED
        assert result.reward is None
        assert result.failure is not None and "worker" in result.failure and "died" in result.failure
        assert seconds < stack.settings.worker_dead_after_seconds + 5.0


def test_redis_outage_gives_503_then_the_service_recovers(
    redis_server: RedisServer, tmp_path: Path, cvrp: Sample
) -> None:
    with _stack(redis_server, tmp_path) as stack, VerifierClient(stack.base_url, stack.token) as client:
        first = client.verify(cvrp.gold_code, cvrp, options=OPTIONS)
        assert first.reward == pytest.approx(1.0), first
        redis_server.stop()
        headers = {"Authorization": f"Bearer {stack.token}"}
        down = httpx.post(
            f"{stack.base_url}/v1/verify", json={"candidate": "x", "sample_id": "0" * 64}, headers=headers, timeout=10
        )
        assert down.status_code == 503
        ready = httpx.get(f"{stack.base_url}/readyz", timeout=10)
        assert ready.status_code == 503 and ready.json()["redis"] is False
        assert httpx.get(f"{stack.base_url}/healthz").status_code == 200
        redis_server.start()
        stack.wait_for_workers(2, timeout=30)
        again = client.verify(cvrp.gold_code + "\n# after the outage\n", cvrp, options=OPTIONS)
        assert again.state is JobState.FINISHED and again.reward == pytest.approx(1.0)
        assert httpx.get(f"{stack.base_url}/readyz").status_code == 200


@pytest.mark.slow
def test_200_concurrent_requests_are_all_answered(redis_server: RedisServer, tmp_path: Path, cvrp: Sample) -> None:
    codes = [f"{cvrp.gold_code}\n# request {i}\n" for i in range(200)]
    expected = comparable(verify(cvrp.gold_code, cvrp, VerifyConfig(time_limit=10.0)))

    async def burst(stack: LocalStack) -> list[VerifyResult]:
        async with AsyncVerifierClient(stack.base_url, stack.token, max_connections=250, timeout=300) as client:
            await client.register_sample(cvrp)
            return list(await asyncio.gather(*(client.verify(c, cvrp, options=OPTIONS, wait=60) for c in codes)))

    with _stack(redis_server, tmp_path) as stack:
        results = asyncio.run(burst(stack))
    assert len(results) == 200
    assert all(r.state is JobState.FINISHED for r in results)
    assert not any(r.cached for r in results), "a request was retried (it met a 503 or a dropped connection)"
    assert len({r.job_id for r in results}) == 200
    assert all(r.verdict is not None and comparable(r.verdict) == expected for r in results)

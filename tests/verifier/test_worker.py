"""The rq worker's trimmed bookkeeping, against a real Redis."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from rq import Queue
from rq.serializers import JSONSerializer
from rq.worker import WorkerStatus
from vrpcoder_verifier.worker import VerifierWorker


@pytest.fixture
def worker(redis_url: str) -> Iterator[VerifierWorker]:
    connection = redis.Redis.from_url(redis_url)
    queue = Queue(f"test-worker-{uuid.uuid4().hex[:8]}", connection=connection, serializer=JSONSerializer)
    worker = VerifierWorker([queue], connection=connection, name=f"test-{uuid.uuid4().hex[:8]}", serializer=JSONSerializer)
    try:
        yield worker
    finally:
        connection.delete(worker.key, worker.executions_key)


def _field(worker: VerifierWorker, name: str) -> bytes | None:
    return worker.connection.hget(worker.key, name)


def test_a_heartbeat_soon_after_another_is_not_sent(worker: VerifierWorker) -> None:
    worker.heartbeat()
    assert _field(worker, "last_heartbeat") is not None
    assert worker.connection.ttl(worker.key) > 0
    worker.connection.hdel(worker.key, "last_heartbeat")
    worker.heartbeat()
    assert _field(worker, "last_heartbeat") is None


def test_heartbeats_resume_after_the_interval(worker: VerifierWorker) -> None:
    worker.HEARTBEAT_EVERY_SECONDS = 0.0
    worker.heartbeat()
    worker.connection.hdel(worker.key, "last_heartbeat")
    worker.heartbeat()
    assert _field(worker, "last_heartbeat") is not None


def test_a_heartbeat_with_its_own_ttl_always_goes_through(worker: VerifierWorker) -> None:
    worker.heartbeat()
    worker.heartbeat(timeout=1234)
    assert 1200 < worker.connection.ttl(worker.key) <= 1234


def test_a_heartbeat_in_a_pipeline_goes_through_and_counts_as_one(worker: VerifierWorker) -> None:
    with worker.connection.pipeline() as pipe:
        worker.heartbeat(pipeline=pipe)
        pipe.execute()
    assert _field(worker, "last_heartbeat") is not None
    worker.connection.hdel(worker.key, "last_heartbeat")
    worker.heartbeat()
    assert _field(worker, "last_heartbeat") is None


def test_a_state_is_written_once_until_it_changes(worker: VerifierWorker) -> None:
    worker.set_state(WorkerStatus.IDLE)
    assert _field(worker, "state") == b"idle"
    worker.connection.hdel(worker.key, "state")
    worker.set_state(WorkerStatus.IDLE)
    assert _field(worker, "state") is None
    worker.set_state(WorkerStatus.BUSY)
    assert _field(worker, "state") == b"busy"
    assert worker.get_state() == WorkerStatus.BUSY

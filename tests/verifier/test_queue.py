"""The queue's bookkeeping against a real Redis, without workers: the backlog an autoscaler reads,
joining a running batch, publishing exactly once, and the hand-over budget."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis
from rq.job import Job
from vrpcoder.verification import VerifyConfig
from vrpcoder_verifier.jobs import (
    FAILED_BATCHES_FIELD,
    BatchKeys,
    ItemSpec,
    JobNotice,
    backlog_key,
    job_record_key,
    make_queue,
    new_id,
    notify_key,
    open_batches_key,
    stats_key,
)
from vrpcoder_verifier.queue import enqueue, hand_over, join_waiting_batch, prune_stale, publish
from vrpcoder_verifier.settings import Settings
from vrpcoder_verifier.stack import purge, stack_settings

from tests.verifier.support import KEDA_LIST_LENGTH



@pytest.fixture
def settings(redis_url: str) -> Iterator[Settings]:
    made = stack_settings(redis_url, handover_budget=3)
    yield made
    purge(made)


@pytest.fixture
def connection(settings: Settings) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(settings.redis_url)
    yield client
    client.close()


def _batch(connection: redis.Redis, settings: Settings, count: int, drains: int = 1) -> tuple[str, list[ItemSpec], str]:
    items = [ItemSpec(new_id(), f"x = {i}\n", "a" * 64, new_id()) for i in range(count)]
    notify = notify_key(settings, new_id())
    token = enqueue(make_queue(connection, settings), items, VerifyConfig(time_limit=5.0), notify, settings, drains)
    return token, items, notify


def _keda_reads(connection: redis.Redis, key: str) -> int:
    return int(connection.eval(KEDA_LIST_LENGTH, 1, key))


def test_keda_s_redis_trigger_reads_the_backlog_of_waiting_and_running_items(
    connection: redis.Redis, settings: Settings
) -> None:
    token, items, notify = _batch(connection, settings, 5)
    _, single, _ = _batch(connection, settings, 1)
    assert _keda_reads(connection, backlog_key(settings)) == 6, "items of batches and single requests alike"
    keys = BatchKeys.of(settings, token)
    connection.lmove(keys.todo, keys.taken("d"), "LEFT", "RIGHT")  # one item running: still backlog
    assert _keda_reads(connection, backlog_key(settings)) == 6
    for item in items[:2]:
        publish(connection, settings, notify, JobNotice(job_id=item.id, failure="done"), keys, drain_id="d")
    assert _keda_reads(connection, backlog_key(settings)) == 4


def test_items_older_than_their_batches_keys_leave_the_backlog(connection: redis.Redis, settings: Settings) -> None:
    """An item whose batch expired can never end: it must not hold the autoscaler above zero."""
    _batch(connection, settings, 2)
    connection.zadd(backlog_key(settings), {"expired-item": 1.0})
    prune_stale(connection, settings)
    assert _keda_reads(connection, backlog_key(settings)) == 2


def test_an_item_is_counted_and_announced_once_however_often_it_is_published(
    connection: redis.Redis, settings: Settings
) -> None:
    token, (item,), notify = _batch(connection, settings, 1)
    keys = BatchKeys.of(settings, token)
    connection.lmove(keys.todo, keys.taken("d"), "LEFT", "RIGHT")
    notice = JobNotice(job_id=item.id, failure="ended")
    assert publish(connection, settings, notify, notice, keys, drain_id="d")
    assert not publish(connection, settings, notify, notice.model_copy(update={"failure": "again"}), keys, drain_id="d")
    assert connection.hget(stats_key(settings), "failed") == b"1"
    assert connection.llen(notify) == 1
    assert JobNotice.model_validate_json(connection.get(job_record_key(settings, item.id)) or b"").failure == "ended"
    assert connection.keys(f"{keys.prefix}:*") == [], "the batch's keys go with its last item"


def test_an_idle_worker_joins_the_oldest_batch_with_items_waiting(connection: redis.Redis, settings: Settings) -> None:
    queue = make_queue(connection, settings)
    done, _, _ = _batch(connection, settings, 1)
    connection.delete(BatchKeys.of(settings, done).todo)  # its item was taken: nothing left to join
    waiting, _, _ = _batch(connection, settings, 4)
    assert join_waiting_batch(connection, queue, settings) is None, "a drain is waiting in the queue already"
    connection.delete(queue.key)  # every drain was taken by the busy workers
    assert join_waiting_batch(connection, queue, settings) == waiting
    (job_id,) = queue.get_job_ids()
    assert Job.fetch(job_id, connection=connection, serializer=queue.serializer).kwargs["token"] == waiting
    assert connection.zrange(open_batches_key(settings), 0, -1) == [waiting.encode()], "the finished batch is struck off"


def test_a_batch_handed_over_too_often_without_progress_fails_its_waiting_items(
    connection: redis.Redis, settings: Settings
) -> None:
    """Whatever makes every drain give up, a batch circles through the queue a bounded number of times."""
    queue = make_queue(connection, settings)
    token, items, notify = _batch(connection, settings, 3)
    (drain_id,) = queue.get_job_ids()
    job = Job.fetch(drain_id, connection=connection, serializer=queue.serializer)
    for _ in range(settings.handover_budget + 2):
        hand_over(job, connection, settings, token)
    assert len(queue.get_job_ids()) == 1 + settings.handover_budget
    records = [connection.get(job_record_key(settings, item.id)) for item in items]
    failures = [JobNotice.model_validate_json(raw).failure or "" for raw in records if raw is not None]
    assert len(failures) == 3 and all("handed to a fresh drain" in f for f in failures)
    assert connection.hget(stats_key(settings), FAILED_BATCHES_FIELD) == b"1"
    assert connection.zcard(backlog_key(settings)) == 0
    assert [json.loads(n)["job_id"] for n in connection.lrange(notify, 0, -1)] == [item.id for item in items]

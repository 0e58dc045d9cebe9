"""The Redis layout the API and the workers share: job and batch keys, the records they hold, and
how the API reads an item's state.

Both sides of the queue read and write these keys (the API stores batches and reads records, the
workers take items and publish how they ended), so the layout is defined once here; ``queue`` holds
what the workers run and how batches are enqueued (see its docstring for the design).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import redis
from pydantic import BaseModel, ConfigDict
from rq import Queue
from rq.serializers import JSONSerializer
from vrpcoder.verification import Verdict

from vrpcoder_verifier.schemas import JobState, VerifyResult
from vrpcoder_verifier.settings import Settings


FAILED_FIELD = "failed"
"""Field of the stats hash counting items that ended without a verdict."""


VERDICT_FIELD_PREFIX = "verdict:"
"""Fields ``verdict:<error kind>`` of the stats hash (``none`` for a clean pass or fail)."""


FAILED_DRAINS_FIELD = "drains_failed"
"""Field of the stats hash counting drains that failed: rq gave up on them, or they could not read
their batch's configuration."""


FAILED_BATCHES_FIELD = "batches_failed"
"""Field of the stats hash counting batches whose waiting items were failed whole (a configuration
no drain can read, or the hand-over budget spent)."""


class JobNotice(BaseModel):
    """How one item ended: a verdict, or a failure without one. ``job_id`` is the item's public id."""

    model_config = ConfigDict(frozen=True)

    job_id: str
    verdict: Verdict | None = None
    failure: str | None = None
    latency: float = 0.0
    """Seconds from enqueue to the end of the item."""

    def result(self) -> VerifyResult:
        state = JobState.FINISHED if self.verdict is not None else JobState.FAILED
        return VerifyResult(job_id=self.job_id, state=state, verdict=self.verdict, failure=self.failure)


@dataclass(frozen=True, slots=True)
class ItemSpec:
    """One candidate of a batch. ``id`` is what the client sees as its job id and polls GET /v1/jobs with."""

    id: str
    candidate: str
    sample_id: str
    cache_key: str

    def wire(self) -> dict[str, str]:
        return {"id": self.id, "candidate": self.candidate, "sample_id": self.sample_id, "cache_key": self.cache_key}


def new_id() -> str:
    return uuid.uuid4().hex


def notify_key(settings: Settings, token: str) -> str:
    return settings.key("notify", token)


def job_record_key(settings: Settings, item_id: str) -> str:
    return settings.key("job", item_id)


def item_batch_key(settings: Settings, item_id: str) -> str:
    """Which batch an item belongs to, so GET /v1/jobs can tell a pending item from an unknown id."""
    return settings.key("item", item_id)


def stats_key(settings: Settings) -> str:
    """Hash of counts of how items ended (``failed``, ``verdict:<kind>``) and of failed drains and
    batches, written as each one ends."""
    return settings.key("stats")


def backlog_key(settings: Settings) -> str:
    """Sorted set of every item accepted and not yet ended (waiting or running), scored by when it
    was accepted: what an autoscaler reads (KEDA's ``redis`` trigger, ``listName`` this key)."""
    return settings.key("backlog")


def running_key(settings: Settings) -> str:
    """Sorted set of the items a drain has taken and not yet published, scored by when."""
    return settings.key("running")


def open_batches_key(settings: Settings) -> str:
    """Sorted set of batches that may still have items waiting, by when they were enqueued: where
    an idle worker looks for a batch to join."""
    return settings.key("open-batches")


def request_key(settings: Settings, idempotency_key: str) -> str:
    """The items a request made, by its ``Idempotency-Key``: a retried request gets the same jobs."""
    return settings.key("request", idempotency_key)


def alive_key(settings: Settings, worker_name: str) -> str:
    return settings.key("alive", worker_name)


def alive_index_key(settings: Settings) -> str:
    """Sorted set of worker names by last heartbeat: the alive keys to read, found without a SCAN."""
    return settings.key("alive-index")


@dataclass(frozen=True, slots=True)
class BatchKeys:
    """Where a batch's items wait: ids in request order (``todo``), their specs by id (``items``),
    per drain job the ids it has taken and not yet published (``taken``), what a fresh drain needs
    (``drain``: configuration, notice list, timeout), and how many hand-overs in a row found no
    item ended since the last (``stalls``). All of them go when the batch's last item ends."""

    token: str
    todo: str
    items: str
    drain: str
    stalls: str
    prefix: str

    @classmethod
    def of(cls, settings: Settings, token: str) -> BatchKeys:
        prefix = settings.key("batch", token)
        return cls(token=token, todo=f"{prefix}:todo", items=f"{prefix}:items", drain=f"{prefix}:drain",
                   stalls=f"{prefix}:stalls", prefix=prefix)

    def taken(self, drain_id: str) -> str:
        return f"{self.prefix}:taken:{drain_id}"


class DrainSpec(BaseModel):
    """What any drain of a batch runs with; stored with the batch so a joining worker can start one."""

    model_config = ConfigDict(frozen=True)

    config: str
    """The batch's ``VerifyConfig`` as JSON (read by each drain, so a bad one fails only its batch)."""
    notify: str
    timeout: int
    enqueued: float
    """When the batch was accepted (epoch seconds): items' latencies count from here."""


def make_queue(connection: redis.Redis, settings: Settings) -> Queue:
    return Queue(settings.queue_name, connection=connection, serializer=JSONSerializer)


def as_text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def lookup_job(connection: redis.Redis, settings: Settings, job_id: str) -> VerifyResult | None:
    """An item's state: from its record once it has ended; queued while its id waits in its batch's
    list, running once a drain has taken it; None for an id that is not ours (or has expired)."""
    with connection.pipeline(transaction=False) as pipe:
        pipe.get(job_record_key(settings, job_id))
        pipe.get(item_batch_key(settings, job_id))
        raw, token = pipe.execute()
    if raw is not None:
        return JobNotice.model_validate_json(raw).result()
    if token is None:
        return None
    todo = BatchKeys.of(settings, as_text(token)).todo
    waiting = connection.lpos(todo, job_id) is not None
    return VerifyResult(job_id=job_id, state=JobState.QUEUED if waiting else JobState.RUNNING)

"""The rq side of the service: the drain job, how batches are enqueued, and how dead workers are reaped.

A request's candidates are *items*, each with its own public id (what GET /v1/jobs takes). The API
stores a batch's items in Redis (ids in request order on a list, specs in a hash: only references
to samples, so a GRPO group against one large sample does not copy the sample per item) and
enqueues a few *drain* jobs for it, about one per alive worker. Every drain takes items off the
same list one at a time, atomically, until it is empty. So the items of a batch are independent:
a looping candidate holds the one drain (and worker) that took it until its wall limit, while the
other drains finish everything else (chunks of items run back to back once left a correct script
waiting behind a loop for minutes). And rq's own cost per job, about ten Redis round trips, is paid
per drain rather than per candidate: a drain costs one round trip per item to take it and one to
publish it. As an item ends, the worker pushes a ``JobNotice`` onto the request's list, keeps it
under the item's id, counts the outcome in the service's stats hash and caches the verdict, all in
one round trip: the API blocks on the list instead of polling, GET /v1/jobs reads the record, and
/metrics reads what ended, wherever it ended.

A job's wall limit comes from its request: ``Settings.job_wall_seconds`` (build allowance, one
time limit per solve, grace), capped by the server. The sandbox ends a job past it as ``timeout``.

A worker that dies under a drain (OOM kill, node loss) leaves it in rq's StartedJobRegistry, and
rq only notices after the job's own timeout plus a minute. Each worker therefore keeps a short-lived
"alive" key; ``reap_abandoned`` hands the drains of workers whose key has expired to rq's own
abandoned-job path, which re-runs them while retries are left and otherwise fails them. An item a
drain had taken stays on that drain's own list until it is published: a re-run finishes it (unless
it was recorded before the death), a final failure fails it alone, and the batch's other items are
taken by the other drains (or, if none is left, by a fresh one). No item is lost and none hangs
for longer than a few heartbeats.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType

import redis
from pydantic import BaseModel, ConfigDict
from rq import Callback, Queue, Retry, get_current_job
from rq.exceptions import AbandonedJobError
from rq.executions import Execution
from rq.job import Job
from rq.queue import EnqueueData
from rq.serializers import JSONSerializer
from rq.timeouts import JobTimeoutException, TimerDeathPenalty
from vrpcoder.errors import ErrorKind, VerificationError
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig, failed_verdict

from vrpcoder_verifier.cache import SampleStore, cacheable, verdict_key
from vrpcoder_verifier.executors import Executor, Ran, build_executor, infrastructure_verdict, run_candidate
from vrpcoder_verifier.logs import log_event
from vrpcoder_verifier.schemas import JobState, VerifyResult
from vrpcoder_verifier.settings import Settings

_SAMPLE_LRU_SIZE = 64
_FINISHED_JOB_TTL_SECONDS = 60
"""How long rq keeps a finished job. Nothing reads it (each item's record is the result), but deleting
it at once (``result_ttl=0``) costs rq more round trips than letting it expire."""

FAILED_FIELD = "failed"
"""Field of the stats hash counting items that ended without a verdict."""
VERDICT_FIELD_PREFIX = "verdict:"
"""Fields ``verdict:<error kind>`` of the stats hash (``none`` for a clean pass or fail)."""

logger = logging.getLogger("vrpcoder_verifier.worker")


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


def text_fault(candidate: str) -> VerificationError | None:
    """A candidate that is not valid Unicode text (a lone surrogate from JSON's ``\\ud800``) cannot
    be source code: Python cannot compile it. It is the candidate's syntax error, judged here
    before it reaches anything that would encode it (the sandbox's frames, the verdict's JSON)."""
    try:
        candidate.encode("utf-8")
    except UnicodeEncodeError as exc:
        return VerificationError(
            kind=ErrorKind.SYNTAX_ERROR,
            detail=f"the candidate is not valid Unicode text: {exc.reason} at character {exc.start}",
        )
    return None


def notify_key(settings: Settings, token: str) -> str:
    return settings.key("notify", token)


def job_record_key(settings: Settings, item_id: str) -> str:
    return settings.key("job", item_id)


def item_batch_key(settings: Settings, item_id: str) -> str:
    """Which batch an item belongs to, so GET /v1/jobs can tell a pending item from an unknown id."""
    return settings.key("item", item_id)


def stats_key(settings: Settings) -> str:
    """Hash of counts of how items ended (``failed``, ``verdict:<kind>``), written as each one ends."""
    return settings.key("stats")


def alive_key(settings: Settings, worker_name: str) -> str:
    return settings.key("alive", worker_name)


def alive_index_key(settings: Settings) -> str:
    """Sorted set of worker names by last heartbeat: the alive keys to read, found without a SCAN."""
    return settings.key("alive-index")


@dataclass(frozen=True, slots=True)
class Held:
    """An item in a drain's hands: struck off the drain's taken list, and its spec (the candidate's
    text) deleted, as it is published, so a batch costs Redis memory only while it runs."""

    taken: str
    items: str


@dataclass(frozen=True, slots=True)
class BatchKeys:
    """Where a batch's items wait: ids in request order (``todo``), their specs by id (``items``),
    and per drain job the ids it has taken and not yet published (``taken``)."""

    todo: str
    items: str
    prefix: str

    @classmethod
    def of(cls, settings: Settings, token: str) -> BatchKeys:
        prefix = settings.key("batch", token)
        return cls(todo=f"{prefix}:todo", items=f"{prefix}:items", prefix=prefix)

    def taken(self, drain_id: str) -> str:
        return f"{self.prefix}:taken:{drain_id}"

    def held(self, drain_id: str) -> Held:
        return Held(taken=self.taken(drain_id), items=self.items)


_TAKE_SCRIPT = """
local id = redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')
if not id then return false end
return redis.call('HGET', KEYS[3], id)
"""
"""Take the next item of a batch: move its id to the drain's taken list and return its spec, in one
round trip and atomically (no two drains take one item; one that dies leaves it in its list)."""


def make_queue(connection: redis.Redis, settings: Settings) -> Queue:
    return Queue(settings.queue_name, connection=connection, serializer=JSONSerializer)


@dataclass
class WorkerContext:
    """Per-process state of a worker: the executor (built once: it may keep warm sandboxes) and samples."""

    settings: Settings
    executor: Executor
    samples: OrderedDict[str, Sample] = field(default_factory=OrderedDict)
    stopping: threading.Event = field(default_factory=threading.Event)
    """Set when the worker is asked to stop (SIGTERM): a drain then hands its batch over after the
    item in hand, so a warm shutdown waits for one candidate, not for a whole batch."""

    def sample(self, connection: redis.Redis, sample_id: str) -> Sample | None:
        """Parsed samples are kept: a GRPO group sends the same sample with every candidate."""
        if sample_id in self.samples:
            self.samples.move_to_end(sample_id)
            return self.samples[sample_id]
        sample = SampleStore(self.settings).load(connection, sample_id)
        if sample is not None:
            self.samples[sample_id] = sample
            while len(self.samples) > _SAMPLE_LRU_SIZE:
                self.samples.popitem(last=False)
        return sample


_context: WorkerContext | None = None


def install_context(context: WorkerContext) -> None:
    """Called once by the worker process before it starts taking jobs."""
    global _context
    _context = context


def _current_context() -> WorkerContext:
    global _context
    if _context is None:
        settings = Settings()
        _context = WorkerContext(settings=settings, executor=build_executor(settings))
    return _context


def verdict_kind(verdict: Verdict) -> str:
    return verdict.error.kind.value if verdict.error is not None else "none"


def publish(
    connection: redis.Redis,
    settings: Settings,
    notify: str,
    notice: JobNotice,
    cache_key: str | None = None,
    held: Held | None = None,
) -> None:
    """Record, count and announce how an item ended (cache its verdict, and strike it off the
    drain that held it) in one round trip."""
    payload = notice.model_dump_json()
    outcome = FAILED_FIELD if notice.verdict is None else VERDICT_FIELD_PREFIX + verdict_kind(notice.verdict)
    with connection.pipeline(transaction=False) as pipe:
        if cache_key is not None and notice.verdict is not None and cacheable(notice.verdict):
            pipe.set(verdict_key(settings, cache_key), notice.verdict.model_dump_json(), ex=settings.cache_ttl_seconds)
        pipe.set(job_record_key(settings, notice.job_id), payload, ex=settings.result_ttl_seconds)
        pipe.hincrby(stats_key(settings), outcome, 1)
        pipe.rpush(notify, payload)
        pipe.expire(notify, int(settings.max_wait_seconds) + 60)
        if held is not None:
            pipe.lrem(held.taken, 1, notice.job_id)
            pipe.hdel(held.items, notice.job_id)
        pipe.execute()


def unrecorded(connection: redis.Redis, settings: Settings, item_ids: Sequence[str]) -> list[str]:
    """The ids that have no record yet (a re-run drain skips the items it finished before it died)."""
    with connection.pipeline(transaction=False) as pipe:
        for item_id in item_ids:
            pipe.exists(job_record_key(settings, item_id))
        found = pipe.execute()
    return [item_id for item_id, exists in zip(item_ids, found, strict=True) if not exists]


def _verify_item(context: WorkerContext, connection: redis.Redis, item: ItemSpec, config: VerifyConfig) -> tuple[JobNotice, str]:
    """One item's notice and where it ran; a missing sample fails the item (re-running cannot bring it back)."""
    sample = context.sample(connection, item.sample_id)
    if sample is None:
        missing = LookupError(f"sample {item.sample_id} is not registered (it expired or was never stored)")
        return JobNotice(job_id=item.id, failure=describe_failure(LookupError, missing)), "-"
    fault = text_fault(item.candidate)
    if fault is not None:
        return JobNotice(job_id=item.id, verdict=failed_verdict(sample, fault)), "-"
    wall = context.settings.job_wall_seconds(config.time_limit, len(sample.probes))
    try:
        ran = run_candidate(context.executor, item.candidate, sample, config, wall)
    except Exception as exc:  # noqa: BLE001 - the executor must not raise; if it does, the fault is ours
        ran = Ran(infrastructure_verdict(sample, f"executor raised {type(exc).__name__}: {exc}"), "-")
    return JobNotice(job_id=item.id, verdict=ran.verdict), ran.sandbox


def _run_one(
    context: WorkerContext, connection: redis.Redis, raw: bytes | str, config: VerifyConfig, notify: str,
    enqueued: float, held: Held,
) -> None:
    """Verify one item, publish its notice and write the worker's line for it."""
    started = time.monotonic()
    spec = ItemSpec(**json.loads(raw))
    notice, sandbox = _verify_item(context, connection, spec, config)
    notice = notice.model_copy(update={"latency": max(0.0, time.time() - enqueued)})
    publish(connection, context.settings, notify, notice, spec.cache_key, held)
    verdict = notice.verdict
    log_event(
        logger, "job done", job=spec.id, sample=spec.sample_id,
        verdict=verdict_kind(verdict) if verdict is not None else "failed",
        reward=verdict.reward if verdict is not None else None,
        seconds=time.monotonic() - started, sandbox=sandbox,
    )


def drain(token: str, config: str, notify: str) -> None:
    """The rq job: take the batch's items one at a time until none is left, publishing each as it ends.

    A batch gets about one drain per alive worker, and every drain takes from the same list, so a
    slow or looping item holds only the drain (and worker) that took it while the others empty the
    list: no item waits behind another, and rq's own cost per job (about ten Redis round trips)
    is paid once per drain, not once per candidate. A drain re-run after its worker died first
    finishes the items it had taken (those without a record), then takes more.
    """
    context = _current_context()
    job = get_current_job()
    if job is None:
        raise RuntimeError("drain must run inside an rq job")
    connection = job.connection
    keys = BatchKeys.of(context.settings, token)
    held = keys.held(job.id)
    taken = held.taken
    verify_config = VerifyConfig.model_validate_json(config)
    enqueued = job.enqueued_at.timestamp() if job.enqueued_at else time.time()
    leftover = [raw.decode() if isinstance(raw, bytes) else str(raw) for raw in connection.lrange(taken, 0, -1)]
    if leftover:
        todo = set(unrecorded(connection, context.settings, leftover))
        for item_id in leftover:
            if item_id not in todo:
                with connection.pipeline(transaction=False) as pipe:
                    pipe.lrem(taken, 1, item_id)
                    pipe.hdel(keys.items, item_id)
                    pipe.execute()
                continue
            raw = connection.hget(keys.items, item_id)
            if raw is not None:
                _run_one(context, connection, raw, verify_config, notify, enqueued, held)
    take = connection.register_script(_TAKE_SCRIPT)
    while not context.stopping.is_set() and (raw := take(keys=[keys.todo, taken, keys.items])) is not None:
        _run_one(context, connection, raw, verify_config, notify, enqueued, held)
    if context.stopping.is_set():
        hand_over(job, connection, context.settings, token)


def hand_over(job: Job, connection: redis.Redis, settings: Settings, token: str) -> None:
    """Enqueue a fresh drain for what is left of the batch (its other drains may all be done)."""
    if connection.llen(BatchKeys.of(settings, token).todo):
        queue = Queue(job.origin, connection=connection, serializer=JSONSerializer)
        data = _drain_data(token, str(job.kwargs["config"]), str(job.kwargs["notify"]), dict(job.meta), settings,
                           int(job.timeout or settings.job_timeout_seconds))
        queue.enqueue_many([data])


def describe_failure(exc_type: type[BaseException] | None, exc_value: BaseException | None) -> str:
    if exc_type is not None and issubclass(exc_type, AbandonedJobError):
        return "the worker running this job died and no retry was left"
    if exc_type is not None and issubclass(exc_type, JobTimeoutException):
        return f"the job exceeded its hard timeout ({exc_value})"
    name = exc_type.__name__ if exc_type is not None else "error"
    return f"{name}: {exc_value}"


def on_job_failure(
    job: Job,
    connection: redis.Redis,
    exc_type: type[BaseException] | None,
    exc_value: BaseException | None,
    traceback: TracebackType | None,
) -> None:
    """rq failure callback of a drain: on its *final* failure (rq calls this before deciding on a
    retry) the items it had taken and not finished fail, and if items of its batch are still
    waiting, a fresh drain is enqueued for them (they never ran; the other drains may be gone)."""
    if job.retries_left:
        return
    settings = Settings.model_validate_json(job.meta["settings"]) if "settings" in job.meta else Settings()
    token, notify = str(job.kwargs["token"]), str(job.kwargs["notify"])
    keys = BatchKeys.of(settings, token)
    held = keys.held(job.id)
    failure = describe_failure(exc_type, exc_value)
    ids = [raw.decode() if isinstance(raw, bytes) else str(raw) for raw in connection.lrange(held.taken, 0, -1)]
    for item_id in unrecorded(connection, settings, ids):
        publish(connection, settings, notify, JobNotice(job_id=item_id, failure=failure), held=held)
        log_event(logger, "job failed", logging.WARNING, job=item_id, verdict="failed", reward=None, failure=failure)
    connection.delete(held.taken)
    hand_over(job, connection, settings, token)


def _settings_meta(settings: Settings) -> str:
    """The few settings the failure callback needs, since it may run in the API's reaper, not a worker."""
    keep = {"key_prefix", "result_ttl_seconds", "failure_ttl_seconds", "max_wait_seconds", "job_retries",
            "job_timeout_seconds"}
    return json.dumps({k: v for k, v in settings.model_dump(mode="json").items() if k in keep})


def _drain_data(token: str, config: str, notify: str, meta: dict[str, str], settings: Settings, timeout: int) -> EnqueueData:
    return Queue.prepare_data(
        drain,
        kwargs={"token": token, "config": config, "notify": notify},
        timeout=timeout,
        result_ttl=_FINISHED_JOB_TTL_SECONDS,
        failure_ttl=settings.failure_ttl_seconds,
        description=f"drain batch {token[:12]}",
        job_id=new_id(),
        meta=meta,
        retry=Retry(max=settings.job_retries) if settings.job_retries else None,
        on_failure=Callback(on_job_failure),
    )


def drains_for(items: int, alive_workers: int) -> int:
    """One drain per alive worker and one more (a worker that comes up meanwhile can help), never
    more than there are items."""
    return max(1, min(items, alive_workers + 1))


def enqueue(
    queue: Queue, items: Sequence[ItemSpec], config: VerifyConfig, notify: str, settings: Settings, drains: int
) -> str:
    """Store the batch's items and enqueue ``drains`` drain jobs, all in one round trip (a
    transaction, so GET /v1/jobs never sees an item whose drains are not queued yet); returns the
    batch token."""
    token = new_id()
    keys = BatchKeys.of(settings, token)
    ttl = settings.result_ttl_seconds
    meta = {"settings": _settings_meta(settings)}
    timeout = settings.job_timeout_seconds * len(items)
    datas = [_drain_data(token, config.model_dump_json(), notify, meta, settings, timeout) for _ in range(drains)]
    with queue.connection.pipeline() as pipe:
        pipe.hset(keys.items, mapping={item.id: json.dumps(item.wire()) for item in items})
        pipe.rpush(keys.todo, *(item.id for item in items))
        pipe.expire(keys.items, ttl)
        pipe.expire(keys.todo, ttl)
        for item in items:
            pipe.set(item_batch_key(settings, item.id), token, ex=ttl)
        queue.enqueue_many(datas, pipeline=pipe)
        pipe.execute()
    return token


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
    todo = BatchKeys.of(settings, token.decode() if isinstance(token, bytes) else str(token)).todo
    waiting = connection.lpos(todo, job_id) is not None
    return VerifyResult(job_id=job_id, state=JobState.QUEUED if waiting else JobState.RUNNING)


def reap_abandoned(connection: redis.Redis, queue: Queue, settings: Settings) -> list[str]:
    """Hand jobs held by dead workers to rq's abandoned-job handling; returns their ids.

    One reaper at a time (a short Redis lock): two reapers racing on one job could re-run it twice.
    """
    lock_ms = max(100, int(settings.worker_heartbeat_seconds * 1000))
    if not connection.set(settings.key("reaper-lock"), "1", nx=True, px=lock_ms):
        return []
    registry = queue.started_job_registry
    registry.death_penalty_class = TimerDeathPenalty  # the reaper runs in threads, where SIGALRM is unusable
    dead: list[str] = []
    for raw in connection.zrange(registry.key, 0, -1):
        entry = raw.decode() if isinstance(raw, bytes) else str(raw)
        job_id, _, execution_id = entry.partition(":")
        execution_key = Execution(id=execution_id, job_id=job_id, connection=connection).key
        worker = connection.hget(execution_key, "worker_name")
        if worker is None:
            continue
        name = worker.decode() if isinstance(worker, bytes) else str(worker)
        if not connection.exists(alive_key(settings, name)):
            dead.append(entry)
    if not dead:
        return []
    connection.zadd(registry.key, {entry: 1 for entry in dead}, xx=True)
    registry.cleanup()
    return [entry.partition(":")[0] for entry in dead]

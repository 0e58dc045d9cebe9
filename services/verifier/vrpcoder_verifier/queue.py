"""The rq side of the service: the drain job, how batches are enqueued, joined, and how dead workers are reaped.

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
one atomic round trip (a script, so a retried publish after a Redis hiccup counts nothing twice):
the API blocks on the list instead of polling, GET /v1/jobs reads the record, and /metrics reads
what ended, wherever it ended.

The backlog (every item accepted and not yet ended, waiting or running: batches and single
requests alike) is a sorted set, ``<prefix>:backlog``: the one number an autoscaler needs. KEDA's
``redis`` trigger reads it as it is (its list-length script answers ZCARD for a sorted set). A
worker that is idle (just started, or done with its own drains) joins any batch that still has
items waiting by enqueueing one more drain for it, so workers added mid-batch help at once.

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

A batch no drain can work on must not circle forever: a drain that cannot read its batch's
configuration fails the batch's items at once (an infrastructure failure, with the reason), and a
batch handed to fresh drains ``Settings.handover_budget`` times in a row without an item ending
fails what is left. Both are counted (``drains_failed``, ``batches_failed`` in the stats hash).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType

import redis
from rq import Callback, Queue, Retry, get_current_job
from rq.exceptions import AbandonedJobError
from rq.executions import Execution
from rq.job import Job
from rq.queue import EnqueueData
from rq.serializers import JSONSerializer
from rq.timeouts import JobTimeoutException, TimerDeathPenalty
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig

from vrpcoder_verifier.cache import SampleStore, cacheable, verdict_key
from vrpcoder_verifier.executors import Executor, build_executor, infrastructure_verdict, text_fault, verify_candidate
from vrpcoder_verifier.jobs import (
    alive_key,
    as_text,
    backlog_key,
    BatchKeys,
    DrainSpec,
    FAILED_BATCHES_FIELD,
    FAILED_DRAINS_FIELD,
    FAILED_FIELD,
    item_batch_key,
    ItemSpec,
    job_record_key,
    JobNotice,
    new_id,
    open_batches_key,
    request_key,
    running_key,
    stats_key,
    VERDICT_FIELD_PREFIX,
)
from vrpcoder_verifier.logs import log_event
from vrpcoder_verifier.settings import Settings

__all__ = ["infrastructure_verdict", "text_fault"]

_SAMPLE_LRU_SIZE = 64
_FINISHED_JOB_TTL_SECONDS = 60
"""How long rq keeps a finished job. Nothing reads it (each item's record is the result), but deleting
it at once (``result_ttl=0``) costs rq more round trips than letting it expire."""


logger = logging.getLogger("vrpcoder_verifier.worker")


_TAKE_SCRIPT = """
local id = redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')
if not id then return false end
redis.call('ZADD', KEYS[4], ARGV[1], id)
local spec = redis.call('HGET', KEYS[3], id)
return {id, spec or ''}
"""
"""Take the next item of a batch: move its id to the drain's taken list, mark it running and return
it with its spec, in one round trip and atomically (no two drains take one item; one that dies
leaves it in its list)."""

_PUBLISH_SCRIPT = """
local fresh = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ARGV[2])
if fresh then
  redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
  if ARGV[6] ~= '' then redis.call('SET', KEYS[8], ARGV[6], 'EX', ARGV[7]) end
  redis.call('RPUSH', KEYS[3], ARGV[1])
  redis.call('EXPIRE', KEYS[3], ARGV[4])
  redis.call('DEL', KEYS[10])
end
redis.call('ZREM', KEYS[4], ARGV[5])
redis.call('ZREM', KEYS[5], ARGV[5])
redis.call('LREM', KEYS[7], 1, ARGV[5])
redis.call('HDEL', KEYS[6], ARGV[5])
if redis.call('EXISTS', KEYS[6]) == 0 then
  redis.call('DEL', KEYS[9], KEYS[10])
  redis.call('ZREM', KEYS[11], ARGV[8])
end
if fresh then return 1 end
return 0
"""
"""Record, count, cache and announce how an item ended, strike it off its drain, the backlog and
the running set, and clear its batch's keys when it was the last: atomically, and only the first
time (the record is written only if absent), so a publish repeated after a lost reply counts once."""


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
    batch: BatchKeys,
    *,
    cache_key: str | None = None,
    drain_id: str | None = None,
) -> bool:
    """Record, count and announce how an item of ``batch`` ended (cache its verdict, strike it off
    the drain ``drain_id`` that held it), in one atomic round trip; False when it had been recorded
    already (nothing is counted or announced twice)."""
    payload = notice.model_dump_json()
    verdict = notice.verdict
    outcome = FAILED_FIELD if verdict is None else VERDICT_FIELD_PREFIX + verdict_kind(verdict)
    cached = verdict.model_dump_json() if cache_key is not None and verdict is not None and cacheable(verdict) else ""
    keys = [
        job_record_key(settings, notice.job_id), stats_key(settings), notify, backlog_key(settings),
        running_key(settings), batch.items, batch.taken(drain_id or "-"),
        verdict_key(settings, cache_key or "-"), batch.drain, batch.stalls, open_batches_key(settings),
    ]
    args = [payload, settings.result_ttl_seconds, outcome, int(settings.max_wait_seconds) + 60, notice.job_id,
            cached, settings.cache_ttl_seconds, batch.token]
    return bool(connection.register_script(_PUBLISH_SCRIPT)(keys=keys, args=args))


def unrecorded(connection: redis.Redis, settings: Settings, item_ids: Sequence[str]) -> list[str]:
    """The ids that have no record yet (a re-run drain skips the items it finished before it died)."""
    with connection.pipeline(transaction=False) as pipe:
        for item_id in item_ids:
            pipe.exists(job_record_key(settings, item_id))
        found = pipe.execute()
    return [item_id for item_id, exists in zip(item_ids, found, strict=True) if not exists]


def _verify_item(context: WorkerContext, connection: redis.Redis, item: ItemSpec, config: VerifyConfig) -> tuple[JobNotice, str]:
    """One item's notice and where it ran; a missing or unreadable sample fails the item (re-running
    cannot bring it back)."""
    try:
        sample = context.sample(connection, item.sample_id)
    except ValueError as exc:
        failure = f"sample {item.sample_id} cannot be read ({_brief(exc)}): an infrastructure fault, not the candidate's"
        return JobNotice(job_id=item.id, failure=failure), "-"
    if sample is None:
        missing = LookupError(f"sample {item.sample_id} is not registered (it expired or was never stored)")
        return JobNotice(job_id=item.id, failure=describe_failure(LookupError, missing)), "-"
    ran = verify_candidate(context.executor, context.settings, item.candidate, sample, config)
    return JobNotice(job_id=item.id, verdict=ran.verdict), ran.sandbox


def _brief(exc: BaseException) -> str:
    """The first line of an error, for a failure message (a pydantic error runs to many lines)."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:300]


def _run_one(
    context: WorkerContext, connection: redis.Redis, item_id: str, raw: bytes | str | None, config: VerifyConfig,
    spec: DrainSpec, keys: BatchKeys, drain_id: str,
) -> None:
    """Verify one item, publish its notice and write the worker's line for it. An item whose spec is
    gone or unreadable fails alone, with the reason."""
    started = time.monotonic()
    item: ItemSpec | None = None
    try:
        item = ItemSpec(**json.loads(raw)) if raw else None
    except (ValueError, TypeError) as exc:
        notice, sandbox = JobNotice(job_id=item_id, failure=f"the item cannot be read ({_brief(exc)})"), "-"
    else:
        if item is None:
            notice, sandbox = JobNotice(job_id=item_id, failure="the item's spec vanished from Redis"), "-"
        else:
            notice, sandbox = _verify_item(context, connection, item, config)
    notice = notice.model_copy(update={"latency": max(0.0, time.time() - spec.enqueued)})
    publish(connection, context.settings, spec.notify, notice, keys,
            cache_key=item.cache_key if item is not None else None, drain_id=drain_id)
    verdict = notice.verdict
    log_event(
        logger, "job done", job=item_id, sample=item.sample_id if item is not None else "-",
        verdict=verdict_kind(verdict) if verdict is not None else "failed",
        reward=verdict.reward if verdict is not None else None,
        seconds=time.monotonic() - started, sandbox=sandbox,
    )


def _finish_taken(
    context: WorkerContext, connection: redis.Redis, keys: BatchKeys, drain_id: str, config: VerifyConfig, spec: DrainSpec
) -> None:
    """Run the items on this drain's taken list that have no record: those a re-run drain held when
    its worker died, and one a take repeated after a lost reply left behind."""
    taken = keys.taken(drain_id)
    held = [as_text(raw) for raw in connection.lrange(taken, 0, -1)]
    if not held:
        return
    todo = set(unrecorded(connection, context.settings, held))
    for item_id in held:
        if item_id not in todo:
            with connection.pipeline(transaction=False) as pipe:
                pipe.lrem(taken, 1, item_id)
                pipe.hdel(keys.items, item_id)
                pipe.zrem(running_key(context.settings), item_id)
                pipe.execute()
            continue
        _run_one(context, connection, item_id, connection.hget(keys.items, item_id), config, spec, keys, drain_id)


def drain(token: str, config: str, notify: str, enqueued: float | None = None) -> None:
    """The rq job: take the batch's items one at a time until none is left, publishing each as it ends.

    A batch gets about one drain per alive worker (and one more per worker that joins it later),
    and every drain takes from the same list, so a slow or looping item holds only the drain (and
    worker) that took it while the others empty the list: no item waits behind another, and rq's
    own cost per job (about ten Redis round trips) is paid once per drain, not once per candidate.
    A drain re-run after its worker died first finishes the items it had taken (those without a
    record), then takes more. A drain that cannot read the batch's configuration fails the batch's
    items at once instead of raising (rq would hand the batch to a fresh drain, which would fail
    the same way, again and again).
    """
    context = _current_context()
    job = get_current_job()
    if job is None:
        raise RuntimeError("drain must run inside an rq job")
    connection = job.connection
    settings = context.settings
    keys = BatchKeys.of(settings, token)
    since = enqueued if enqueued is not None else (job.enqueued_at.timestamp() if job.enqueued_at else time.time())
    spec = DrainSpec(config=config, notify=notify, timeout=int(job.timeout or settings.job_timeout_seconds), enqueued=since)
    try:
        verify_config = VerifyConfig.model_validate_json(config)
    except ValueError as exc:
        connection.hincrby(stats_key(settings), FAILED_DRAINS_FIELD, 1)
        reason = f"the batch's configuration cannot be read ({_brief(exc)}): an infrastructure fault, not the candidate's"
        fail_batch(connection, settings, keys, notify, reason)
        return
    _finish_taken(context, connection, keys, job.id, verify_config, spec)
    take = connection.register_script(_TAKE_SCRIPT)
    taken = keys.taken(job.id)
    while not context.stopping.is_set():
        got = take(keys=[keys.todo, taken, keys.items, running_key(settings)], args=[time.time()])
        if not got:
            break
        item_id, raw = as_text(got[0]), got[1]
        _run_one(context, connection, item_id, raw, verify_config, spec, keys, job.id)
    _finish_taken(context, connection, keys, job.id, verify_config, spec)
    if context.stopping.is_set():
        hand_over(job, connection, settings, token)


def fail_batch(connection: redis.Redis, settings: Settings, keys: BatchKeys, notify: str, reason: str) -> int:
    """Fail every item still waiting in the batch with ``reason`` (taken items stay with their
    drains); returns how many. The drain that finds items to fail counts the batch as failed (once:
    the list is emptied atomically) and logs it."""
    with connection.pipeline() as pipe:
        pipe.lrange(keys.todo, 0, -1)
        pipe.delete(keys.todo)
        waiting, _ = pipe.execute()
    ids = [as_text(raw) for raw in waiting]
    for item_id in ids:
        publish(connection, settings, notify, JobNotice(job_id=item_id, failure=reason), keys)
    if ids:
        connection.hincrby(stats_key(settings), FAILED_BATCHES_FIELD, 1)
        log_event(logger, "batch failed", logging.WARNING, batch=keys.token, items=len(ids), failure=reason)
    return len(ids)


def hand_over(job: Job, connection: redis.Redis, settings: Settings, token: str) -> None:
    """Enqueue a fresh drain for what is left of the batch (its other drains may all be done) — at
    most ``handover_budget`` times in a row without an item of the batch ending in between; past
    that the waiting items fail, whatever made every drain give up."""
    keys = BatchKeys.of(settings, token)
    if not connection.llen(keys.todo):
        return
    with connection.pipeline(transaction=False) as pipe:
        pipe.incr(keys.stalls)
        pipe.expire(keys.stalls, settings.result_ttl_seconds)
        stalls, _ = pipe.execute()
    notify = str(job.kwargs["notify"])
    if int(stalls) > settings.handover_budget:
        reason = (f"the batch was handed to a fresh drain {settings.handover_budget} times in a row without an item "
                  "ending: an infrastructure fault, not the candidate's (see the workers' logs)")
        fail_batch(connection, settings, keys, notify, reason)
        return
    queue = Queue(job.origin, connection=connection, serializer=JSONSerializer)
    enqueued = job.kwargs.get("enqueued")
    data = _drain_data(token, str(job.kwargs["config"]), notify, dict(job.meta), settings,
                       int(job.timeout or settings.job_timeout_seconds), float(enqueued) if enqueued is not None else None)
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
    retry) the drain is counted, the items it had taken and not finished fail, and if items of its
    batch are still waiting, a fresh drain is handed the batch (they never ran; the other drains may
    be gone), within the batch's hand-over budget."""
    if job.retries_left:
        return
    settings = Settings.model_validate_json(job.meta["settings"]) if "settings" in job.meta else Settings()
    token, notify = str(job.kwargs["token"]), str(job.kwargs["notify"])
    keys = BatchKeys.of(settings, token)
    connection.hincrby(stats_key(settings), FAILED_DRAINS_FIELD, 1)
    failure = describe_failure(exc_type, exc_value)
    taken = keys.taken(job.id)
    ids = [as_text(raw) for raw in connection.lrange(taken, 0, -1)]
    for item_id in unrecorded(connection, settings, ids):
        publish(connection, settings, notify, JobNotice(job_id=item_id, failure=failure), keys, drain_id=job.id)
        log_event(logger, "job failed", logging.WARNING, job=item_id, verdict="failed", reward=None, failure=failure)
    connection.delete(taken)
    hand_over(job, connection, settings, token)


def _settings_meta(settings: Settings) -> str:
    """The few settings the failure callback needs, since it may run in the API's reaper, not a worker."""
    keep = {"key_prefix", "result_ttl_seconds", "failure_ttl_seconds", "max_wait_seconds", "job_retries",
            "job_timeout_seconds", "cache_ttl_seconds", "handover_budget"}
    return json.dumps({k: v for k, v in settings.model_dump(mode="json").items() if k in keep})


def _drain_data(
    token: str, config: str, notify: str, meta: dict[str, str], settings: Settings, timeout: int, enqueued: float | None
) -> EnqueueData:
    kwargs: dict[str, object] = {"token": token, "config": config, "notify": notify}
    if enqueued is not None:
        kwargs["enqueued"] = enqueued
    return Queue.prepare_data(
        drain,
        kwargs=kwargs,
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
    queue: Queue, items: Sequence[ItemSpec], config: VerifyConfig, notify: str, settings: Settings, drains: int,
    idempotency_key: str | None = None,
) -> str:
    """Store the batch's items and enqueue ``drains`` drain jobs, all in one round trip (a
    transaction, so GET /v1/jobs never sees an item whose drains are not queued yet), with the
    items in the backlog and, under ``idempotency_key``, the request's items by cache key;
    returns the batch token."""
    token = new_id()
    keys = BatchKeys.of(settings, token)
    ttl = settings.result_ttl_seconds
    meta = {"settings": _settings_meta(settings)}
    now = time.time()
    spec = DrainSpec(config=config.model_dump_json(), notify=notify, timeout=settings.job_timeout_seconds * len(items),
                     enqueued=now)
    datas = [_drain_data(token, spec.config, notify, meta, settings, spec.timeout, now) for _ in range(drains)]
    with queue.connection.pipeline() as pipe:
        pipe.hset(keys.items, mapping={item.id: json.dumps(item.wire()) for item in items})
        pipe.rpush(keys.todo, *(item.id for item in items))
        pipe.set(keys.drain, spec.model_dump_json(), ex=ttl)
        pipe.expire(keys.items, ttl)
        pipe.expire(keys.todo, ttl)
        for item in items:
            pipe.set(item_batch_key(settings, item.id), token, ex=ttl)
        pipe.zadd(backlog_key(settings), {item.id: now for item in items})
        pipe.zadd(open_batches_key(settings), {token: now})
        if idempotency_key is not None:
            made = {item.cache_key: item.id for item in items}
            pipe.set(request_key(settings, idempotency_key), json.dumps(made), ex=ttl)
        queue.enqueue_many(datas, pipeline=pipe)
        pipe.execute()
    return token


def join_waiting_batch(connection: redis.Redis, queue: Queue, settings: Settings, *, scan: int = 16) -> str | None:
    """Enqueue one more drain for the oldest open batch that still has items waiting, unless a drain
    is already waiting in the queue; returns that batch's token. Batches whose list is empty are
    struck off the open set on the way.

    Called by an idle worker: one started while a batch runs (a scale-up), or one whose own drains
    are done. The API gives a batch about one drain per worker alive *when it arrived*; without
    this a worker added later would find nothing to take while the batch still had items waiting.
    """
    if connection.llen(queue.key):
        return None
    tokens = [as_text(raw) for raw in connection.zrange(open_batches_key(settings), 0, scan - 1)]
    if not tokens:
        return None
    with connection.pipeline(transaction=False) as pipe:
        for token in tokens:
            keys = BatchKeys.of(settings, token)
            pipe.llen(keys.todo)
            pipe.get(keys.drain)
        replies = pipe.execute()
    finished: list[str] = []
    for token, waiting, raw in zip(tokens, replies[0::2], replies[1::2], strict=True):
        if not waiting or raw is None:
            finished.append(token)
            continue
        spec = DrainSpec.model_validate_json(raw)
        meta = {"settings": _settings_meta(settings)}
        queue.enqueue_many([_drain_data(token, spec.config, spec.notify, meta, settings, spec.timeout, spec.enqueued)])
        if finished:
            connection.zrem(open_batches_key(settings), *finished)
        return token
    if finished:
        connection.zrem(open_batches_key(settings), *finished)
    return None


def prune_stale(connection: redis.Redis, settings: Settings) -> None:
    """Strike off the backlog, running and open-batch sets what is older than the batches' own keys
    (``result_ttl_seconds``): an item whose batch expired can never end, and must not keep the
    autoscaler's backlog above zero forever."""
    cutoff = time.time() - settings.result_ttl_seconds
    with connection.pipeline(transaction=False) as pipe:
        for key in (backlog_key(settings), running_key(settings), open_batches_key(settings)):
            pipe.zremrangebyscore(key, "-inf", cutoff)
        pipe.execute()


def _abandon(connection: redis.Redis, queue: Queue, is_gone: Callable[[str], bool]) -> list[str]:
    """Hand the started drains whose worker ``is_gone(name)`` to rq's abandoned-job handling."""
    registry = queue.started_job_registry
    registry.death_penalty_class = TimerDeathPenalty  # the reaper runs in threads, where SIGALRM is unusable
    dead: list[str] = []
    for raw in connection.zrange(registry.key, 0, -1):
        entry = as_text(raw)
        job_id, _, execution_id = entry.partition(":")
        execution_key = Execution(id=execution_id, job_id=job_id, connection=connection).key
        worker = connection.hget(execution_key, "worker_name")
        if worker is not None and is_gone(as_text(worker)):
            dead.append(entry)
    if not dead:
        return []
    connection.zadd(registry.key, {entry: 1 for entry in dead}, xx=True)
    registry.cleanup()
    return [entry.partition(":")[0] for entry in dead]


def reap_abandoned(connection: redis.Redis, queue: Queue, settings: Settings) -> list[str]:
    """Hand jobs held by dead workers to rq's abandoned-job handling; returns their ids.

    One reaper at a time (a short Redis lock): two reapers racing on one job could re-run it twice.
    """
    lock_ms = max(100, int(settings.worker_heartbeat_seconds * 1000))
    if not connection.set(settings.key("reaper-lock"), "1", nx=True, px=lock_ms):
        return []
    return _abandon(connection, queue, lambda name: not connection.exists(alive_key(settings, name)))


def release_own(connection: redis.Redis, queue: Queue, settings: Settings, worker_name: str) -> list[str]:
    """Hand back drains recorded as started by this worker while it is between jobs: its drain was
    cut off by a Redis outage longer than its retries. Its heartbeat kept it alive, so no reaper
    would ever take them; re-run, they finish the items they held."""
    return _abandon(connection, queue, lambda name: name == worker_name)

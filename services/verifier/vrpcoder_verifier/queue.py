"""The rq side of the service: the job function, how jobs are enqueued, and how dead workers are reaped.

Every candidate is an rq job of its own (its id is the item's public id), carrying the candidate
text, the sample's digest, the cache key, the config JSON and the list to notify: only references,
so a GRPO group against one large sample does not copy the sample into every job. One job per
candidate is what keeps the items of a batch independent: a looping candidate holds one worker
until its wall limit, and every other item of its batch goes to whichever worker is free next
(chunks of items run back to back once left a correct script waiting behind a loop for minutes).
As a job ends the worker pushes a ``JobNotice`` onto the request's list and keeps the same notice
under the item's id, and counts the outcome in the service's stats hash, all in one round trip:
the API blocks on the list instead of polling rq, GET /v1/jobs reads the record (or, while the
item is pending, its rq job's state), and /metrics reads what ended, wherever it ended.

A job's wall limit comes from its request: ``Settings.job_wall_seconds`` (build allowance, one
time limit per solve, grace), capped by the server. The sandbox ends a job past it as ``timeout``.

A worker that dies under a job (OOM kill, node loss) leaves the job in rq's StartedJobRegistry, and
rq only notices after the job's own timeout plus a minute. Each worker therefore keeps a short-lived
"alive" key; ``reap_abandoned`` hands the jobs of workers whose key has expired to rq's own
abandoned-job path, which re-runs them while retries are left and otherwise fails them, so no job
is lost and none hangs for longer than a few heartbeats. A re-run skips an item that already has a
record, and a final failure is announced only for an item that has none.
"""

from __future__ import annotations

import json
import logging
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
from rq.job import Job, JobStatus
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
    """One candidate, one job. ``id`` is what the client sees as its job id and polls GET /v1/jobs with."""

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


def stats_key(settings: Settings) -> str:
    """Hash of counts of how items ended (``failed``, ``verdict:<kind>``), written as each one ends."""
    return settings.key("stats")


def alive_key(settings: Settings, worker_name: str) -> str:
    return settings.key("alive", worker_name)


def alive_index_key(settings: Settings) -> str:
    """Sorted set of worker names by last heartbeat: the alive keys to read, found without a SCAN."""
    return settings.key("alive-index")


def make_queue(connection: redis.Redis, settings: Settings) -> Queue:
    return Queue(settings.queue_name, connection=connection, serializer=JSONSerializer)


@dataclass
class WorkerContext:
    """Per-process state of a worker: the executor (built once: it may keep warm sandboxes) and samples."""

    settings: Settings
    executor: Executor
    samples: OrderedDict[str, Sample] = field(default_factory=OrderedDict)

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
    connection: redis.Redis, settings: Settings, notify: str, notice: JobNotice, cache_key: str | None = None
) -> None:
    """Record, count and announce how an item ended (and cache its verdict) in one round trip."""
    payload = notice.model_dump_json()
    outcome = FAILED_FIELD if notice.verdict is None else VERDICT_FIELD_PREFIX + verdict_kind(notice.verdict)
    with connection.pipeline(transaction=False) as pipe:
        if cache_key is not None and notice.verdict is not None and cacheable(notice.verdict):
            pipe.set(verdict_key(settings, cache_key), notice.verdict.model_dump_json(), ex=settings.cache_ttl_seconds)
        pipe.set(job_record_key(settings, notice.job_id), payload, ex=settings.result_ttl_seconds)
        pipe.hincrby(stats_key(settings), outcome, 1)
        pipe.rpush(notify, payload)
        pipe.expire(notify, int(settings.max_wait_seconds) + 60)
        pipe.execute()


def recorded(connection: redis.Redis, settings: Settings, item_id: str) -> bool:
    return bool(connection.exists(job_record_key(settings, item_id)))


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


def run_item(item: dict[str, str], config: str, notify: str) -> None:
    """The rq job: verify one candidate and publish its notice.

    Nothing is returned: the item's outcome is already recorded under its own id, so storing an rq
    result as well would be a second write nobody reads. A re-run after its worker died skips an
    item that was recorded before the death.
    """
    started = time.monotonic()
    context = _current_context()
    job = get_current_job()
    if job is None:
        raise RuntimeError("run_item must run inside an rq job")
    connection = job.connection
    spec = ItemSpec(**item)
    rerun = job.retries_left is not None and job.retries_left < context.settings.job_retries
    if rerun and recorded(connection, context.settings, spec.id):
        return
    notice, sandbox = _verify_item(context, connection, spec, VerifyConfig.model_validate_json(config))
    enqueued = job.enqueued_at.timestamp() if job.enqueued_at else time.time()
    notice = notice.model_copy(update={"latency": max(0.0, time.time() - enqueued)})
    publish(connection, context.settings, notify, notice, spec.cache_key)
    verdict = notice.verdict
    log_event(
        logger, "job done", job=spec.id, sample=spec.sample_id,
        verdict=verdict_kind(verdict) if verdict is not None else "failed",
        reward=verdict.reward if verdict is not None else None,
        seconds=time.monotonic() - started, sandbox=sandbox,
    )


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
    """rq failure callback: announce a *final* failure (rq calls this before deciding on a retry),
    unless the item was recorded before its worker died."""
    if job.retries_left:
        return
    settings = Settings.model_validate_json(job.meta["settings"]) if "settings" in job.meta else Settings()
    item = ItemSpec(**job.kwargs["item"])
    if recorded(connection, settings, item.id):
        return
    failure = describe_failure(exc_type, exc_value)
    publish(connection, settings, str(job.kwargs["notify"]), JobNotice(job_id=item.id, failure=failure))
    log_event(logger, "job failed", logging.WARNING, job=item.id, sample=item.sample_id, verdict="failed",
              reward=None, failure=failure)


def _settings_meta(settings: Settings) -> str:
    """The few settings the failure callback needs, since it may run in the API's reaper, not a worker."""
    keep = {"key_prefix", "result_ttl_seconds", "max_wait_seconds"}
    return json.dumps({k: v for k, v in settings.model_dump(mode="json").items() if k in keep})


def _job_data(item: ItemSpec, config: str, notify: str, meta: dict[str, str], settings: Settings) -> EnqueueData:
    return Queue.prepare_data(
        run_item,
        kwargs={"item": item.wire(), "config": config, "notify": notify},
        timeout=settings.job_timeout_seconds,
        result_ttl=_FINISHED_JOB_TTL_SECONDS,
        failure_ttl=settings.failure_ttl_seconds,
        description=f"verify a candidate, sample {item.sample_id[:12]}",
        job_id=item.id,
        meta=meta,
        retry=Retry(max=settings.job_retries) if settings.job_retries else None,
        on_failure=Callback(on_job_failure),
    )


def enqueue(queue: Queue, items: Sequence[ItemSpec], config: VerifyConfig, notify: str, settings: Settings) -> list[str]:
    """Enqueue one job per item, all in one round trip (a pipeline)."""
    meta = {"settings": _settings_meta(settings)}
    config_json = config.model_dump_json()
    datas = [_job_data(item, config_json, notify, meta, settings) for item in items]
    with queue.connection.pipeline() as pipe:
        jobs = queue.enqueue_many(datas, pipeline=pipe)
        pipe.execute()
    return [job.id for job in jobs]


_RQ_STATES: dict[JobStatus, JobState] = {
    JobStatus.QUEUED: JobState.QUEUED,
    JobStatus.DEFERRED: JobState.QUEUED,
    JobStatus.SCHEDULED: JobState.QUEUED,
    JobStatus.CREATED: JobState.QUEUED,
    JobStatus.STARTED: JobState.RUNNING,
    JobStatus.FINISHED: JobState.FINISHED,
    JobStatus.FAILED: JobState.FAILED,
    JobStatus.STOPPED: JobState.FAILED,
    JobStatus.CANCELED: JobState.FAILED,
}


def lookup_job(connection: redis.Redis, settings: Settings, job_id: str) -> VerifyResult | None:
    """An item's state from its record once it has ended, else from its rq job; None if unknown."""
    raw = connection.get(job_record_key(settings, job_id))
    if raw is not None:
        return JobNotice.model_validate_json(raw).result()
    try:
        job = Job.fetch(job_id, connection=connection, serializer=JSONSerializer)
    except Exception:  # noqa: BLE001 - rq raises NoSuchJobError, or a decode error for ids not ours
        return None
    status = job.get_status(refresh=False)
    state = _RQ_STATES.get(status, JobState.QUEUED) if status is not None else JobState.QUEUED
    if state is JobState.FINISHED:
        value = job.return_value()
        verdict = Verdict.model_validate(value) if isinstance(value, dict) else None
        return VerifyResult(job_id=job_id, state=state, verdict=verdict)
    if state is JobState.FAILED:
        result = job.latest_result()
        detail = (result.exc_string or "").strip().splitlines()[-1:] if result is not None else []
        return VerifyResult(job_id=job_id, state=state, failure=detail[0] if detail else f"job {status}")
    return VerifyResult(job_id=job_id, state=state)


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

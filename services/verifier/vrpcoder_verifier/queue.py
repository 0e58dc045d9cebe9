"""The rq side of the service: the job function, how jobs are enqueued, and how dead workers are reaped.

A job carries a *chunk* of items (candidate text, sample digest, cache key, the item's own id) plus
the config JSON and the list to notify: only references, so a GRPO group against one large sample
does not copy the sample into every job. A single request is a one-item job whose id is the item's;
a batch is cut into a few chunks (about two per alive worker), so rq's fixed cost per job is paid a
few times per batch rather than once per candidate. The worker runs a chunk's items back to back
and, as each one ends, pushes a ``JobNotice`` onto the request's list and keeps the same notice
under the item's id: the API blocks on the list instead of polling rq, and GET /v1/jobs reads the
record (or, while the item is pending, the state of the rq job that holds it).

A worker that dies under a job (OOM kill, node loss) leaves the job in rq's StartedJobRegistry, and
rq only notices after the job's own timeout plus a minute. Each worker therefore keeps a short-lived
"alive" key; ``reap_abandoned`` hands the jobs of workers whose key has expired to rq's own
abandoned-job path, which re-runs them while retries are left and otherwise fails them, so no job
is lost and none hangs for longer than a few heartbeats. A re-run chunk skips the items that already
have a record, and a final failure announces only the items that have none.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol

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
from vrpcoder_verifier.schemas import JobState, VerifyResult
from vrpcoder_verifier.settings import Settings

_SAMPLE_LRU_SIZE = 64
_FINISHED_JOB_TTL_SECONDS = 60
"""How long rq keeps a finished job. Nothing reads it (each item's record is the result), but deleting
it at once (``result_ttl=0``) costs rq more round trips than letting it expire."""


class Executor(Protocol):
    """What a worker runs candidates with: the sandbox executor, or in-process ``verify`` when allowed."""

    def verify(self, candidate_code: str, sample: Sample, config: VerifyConfig) -> Verdict: ...


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
    """One candidate of a job. ``id`` is what the client sees as its job id and polls GET /v1/jobs with."""

    id: str
    candidate: str
    sample_id: str
    cache_key: str

    def wire(self) -> dict[str, str]:
        return dataclasses.asdict(self)


def new_id() -> str:
    return uuid.uuid4().hex


def chunk_size(items: int, workers: int, cap: int) -> int:
    """About two jobs per alive worker: fewer rq round trips per batch, yet no worker left idle."""
    return max(1, min(cap, math.ceil(items / (2 * max(1, workers)))))


def chunked(items: Sequence[ItemSpec], size: int) -> list[list[ItemSpec]]:
    """Consecutive runs of ``size`` items (request order, so one chunk tends to share its samples)."""
    return [list(items[start : start + size]) for start in range(0, len(items), size)]


def infrastructure_verdict(sample: Sample, detail: str) -> Verdict:
    """A verdict that blames us, not the candidate: no reward at all rather than a silent zero."""
    return failed_verdict(sample, VerificationError(kind=ErrorKind.INFRASTRUCTURE, detail=detail))


def notify_key(settings: Settings, token: str) -> str:
    return settings.key("notify", token)


def job_record_key(settings: Settings, item_id: str) -> str:
    return settings.key("job", item_id)


def item_job_key(settings: Settings, item_id: str) -> str:
    """Which rq job carries an item, for items of a chunk (a one-item job has the item's id)."""
    return settings.key("item", item_id)


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
        from vrpcoder_verifier.worker import build_executor

        settings = Settings()
        _context = WorkerContext(settings=settings, executor=build_executor(settings))
    return _context


def publish(
    connection: redis.Redis, settings: Settings, notify: str, notice: JobNotice, cache_key: str | None = None
) -> None:
    """Record and announce how an item ended (and cache its verdict) in one round trip."""
    payload = notice.model_dump_json()
    with connection.pipeline(transaction=False) as pipe:
        if cache_key is not None and notice.verdict is not None and cacheable(notice.verdict):
            pipe.set(verdict_key(settings, cache_key), notice.verdict.model_dump_json(), ex=settings.cache_ttl_seconds)
        pipe.set(job_record_key(settings, notice.job_id), payload, ex=settings.result_ttl_seconds)
        pipe.rpush(notify, payload)
        pipe.expire(notify, int(settings.max_wait_seconds) + 60)
        pipe.execute()


def unrecorded(connection: redis.Redis, settings: Settings, items: Sequence[ItemSpec]) -> list[ItemSpec]:
    """The items that have no record yet: a chunk re-run after its worker died skips finished ones."""
    with connection.pipeline(transaction=False) as pipe:
        for item in items:
            pipe.exists(job_record_key(settings, item.id))
        recorded = pipe.execute()
    return [item for item, found in zip(items, recorded, strict=True) if not found]


def _verify_item(
    context: WorkerContext, connection: redis.Redis, item: ItemSpec, config: VerifyConfig, enqueued: float
) -> JobNotice:
    """One item's notice; a missing sample fails the item alone (re-running cannot bring the sample back)."""
    sample = context.sample(connection, item.sample_id)
    if sample is None:
        missing = LookupError(f"sample {item.sample_id} is not registered (it expired or was never stored)")
        return JobNotice(job_id=item.id, failure=describe_failure(LookupError, missing))
    try:
        verdict = context.executor.verify(item.candidate, sample, config)
    except Exception as exc:  # noqa: BLE001 - the executor must not raise; if it does, the fault is ours
        verdict = infrastructure_verdict(sample, f"executor raised {type(exc).__name__}: {exc}")
    return JobNotice(job_id=item.id, verdict=verdict, latency=max(0.0, time.time() - enqueued))


def run_chunk(items: list[dict[str, str]], config: str, notify: str) -> None:
    """The rq job: verify the items back to back, publishing each one's notice as soon as it is done.

    Nothing is returned: every item's outcome is already recorded under its own id, so storing an rq
    result as well would be a second write nobody reads.
    """
    context = _current_context()
    job = get_current_job()
    if job is None:
        raise RuntimeError("run_chunk must run inside an rq job")
    connection = job.connection
    specs = [ItemSpec(**item) for item in items]
    todo = unrecorded(connection, context.settings, specs) if len(specs) > 1 else specs
    verify_config = VerifyConfig.model_validate_json(config)
    enqueued = job.enqueued_at.timestamp() if job.enqueued_at else time.time()
    for item in todo:
        notice = _verify_item(context, connection, item, verify_config, enqueued)
        publish(connection, context.settings, notify, notice, item.cache_key)


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
    """rq failure callback: announce a *final* failure (rq calls this before deciding on a retry).

    Every item of the job that has no record yet gets a failure notice; items it finished before it
    died keep their verdicts.
    """
    if job.retries_left:
        return
    settings = Settings.model_validate_json(job.meta["settings"]) if "settings" in job.meta else Settings()
    failure = describe_failure(exc_type, exc_value)
    notify = str(job.kwargs["notify"])
    items = [ItemSpec(**item) for item in job.kwargs["items"]]
    for item in unrecorded(connection, settings, items):
        publish(connection, settings, notify, JobNotice(job_id=item.id, failure=failure))


def _settings_meta(settings: Settings) -> str:
    """The few settings the failure callback needs, since it may run in the API's reaper, not a worker."""
    keep = {"key_prefix", "result_ttl_seconds", "max_wait_seconds"}
    return json.dumps({k: v for k, v in settings.model_dump(mode="json").items() if k in keep})


def _job_data(
    chunk: Sequence[ItemSpec], config: str, notify: str, meta: dict[str, str], settings: Settings
) -> EnqueueData:
    first = chunk[0]
    return Queue.prepare_data(
        run_chunk,
        kwargs={"items": [item.wire() for item in chunk], "config": config, "notify": notify},
        timeout=settings.job_timeout_seconds * len(chunk),
        result_ttl=_FINISHED_JOB_TTL_SECONDS,
        failure_ttl=settings.failure_ttl_seconds,
        description=f"verify {len(chunk)} candidate(s), sample {first.sample_id[:12]}",
        job_id=first.id if len(chunk) == 1 else new_id(),
        meta=meta,
        retry=Retry(max=settings.job_retries) if settings.job_retries else None,
        on_failure=Callback(on_job_failure),
    )


def enqueue(
    queue: Queue, chunks: Sequence[Sequence[ItemSpec]], config: VerifyConfig, notify: str, settings: Settings
) -> list[str]:
    """Enqueue one job per chunk, and where a job's id is not its item's, say which job holds each item.

    All in one transaction, so GET /v1/jobs never sees an item whose job is not queued yet.
    """
    meta = {"settings": _settings_meta(settings)}
    config_json = config.model_dump_json()
    datas = [_job_data(chunk, config_json, notify, meta, settings) for chunk in chunks]
    with queue.connection.pipeline() as pipe:
        jobs = queue.enqueue_many(datas, pipeline=pipe)
        for job, chunk in zip(jobs, chunks, strict=True):
            for item in chunk:
                if item.id != job.id:
                    pipe.set(item_job_key(settings, item.id), job.id, ex=settings.result_ttl_seconds)
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
    """An item's state from its record once it has ended, else from the rq job holding it; None if unknown."""
    with connection.pipeline(transaction=False) as pipe:
        pipe.get(job_record_key(settings, job_id))
        pipe.get(item_job_key(settings, job_id))
        raw, holder = pipe.execute()
    if raw is not None:
        return JobNotice.model_validate_json(raw).result()
    rq_id = holder.decode() if isinstance(holder, bytes) else job_id
    try:
        job = Job.fetch(rq_id, connection=connection, serializer=JSONSerializer)
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

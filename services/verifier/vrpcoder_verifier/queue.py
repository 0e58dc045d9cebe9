"""The rq side of the service: the job function, how jobs are enqueued, and how dead workers are reaped.

A job carries only references (candidate text, sample digest, config JSON, cache key, the list to
notify) so that a GRPO group against one large sample does not copy the sample into every job. When
a job ends, the worker pushes a ``JobNotice`` onto that list and keeps the same notice under the
job's id: the API blocks on the list instead of polling rq, and GET /v1/jobs reads the record.

A worker that dies under a job (OOM kill, node loss) leaves the job in rq's StartedJobRegistry, and
rq only notices after the job's own timeout plus a minute. Each worker therefore keeps a short-lived
"alive" key; ``reap_abandoned`` hands the jobs of workers whose key has expired to rq's own
abandoned-job path, which re-runs them while retries are left and otherwise fails them, so no job
is lost and none hangs for longer than a few heartbeats.
"""

from __future__ import annotations

import json
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
from rq.serializers import JSONSerializer
from rq.timeouts import JobTimeoutException, TimerDeathPenalty
from vrpcoder.errors import ErrorKind, VerificationError
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig, failed_verdict

from vrpcoder_verifier.cache import SampleStore, cacheable, verdict_key
from vrpcoder_verifier.schemas import JobState, VerifyResult
from vrpcoder_verifier.settings import Settings

_SAMPLE_LRU_SIZE = 64


class Executor(Protocol):
    """What a worker runs candidates with: the sandbox executor, or in-process ``verify`` when allowed."""

    def verify(self, candidate_code: str, sample: Sample, config: VerifyConfig) -> Verdict: ...


class JobNotice(BaseModel):
    """How a job ended: a verdict, or a failure without one."""

    model_config = ConfigDict(frozen=True)

    job_id: str
    verdict: Verdict | None = None
    failure: str | None = None
    latency: float = 0.0
    """Seconds from enqueue to the end of the job."""

    def result(self) -> VerifyResult:
        state = JobState.FINISHED if self.verdict is not None else JobState.FAILED
        return VerifyResult(job_id=self.job_id, state=state, verdict=self.verdict, failure=self.failure)


@dataclass(frozen=True, slots=True)
class JobSpec:
    candidate: str
    sample_id: str
    config: VerifyConfig
    cache_key: str
    notify: str
    """Redis list the job's notice is pushed to."""


def infrastructure_verdict(sample: Sample, detail: str) -> Verdict:
    """A verdict that blames us, not the candidate: no reward at all rather than a silent zero."""
    return failed_verdict(sample, VerificationError(kind=ErrorKind.INFRASTRUCTURE, detail=detail))


def notify_key(settings: Settings, token: str) -> str:
    return settings.key("notify", token)


def job_record_key(settings: Settings, job_id: str) -> str:
    return settings.key("job", job_id)


def alive_key(settings: Settings, worker_name: str) -> str:
    return settings.key("alive", worker_name)


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
    """Record and announce how a job ended (and cache its verdict) in one round trip."""
    payload = notice.model_dump_json()
    with connection.pipeline(transaction=False) as pipe:
        if cache_key is not None and notice.verdict is not None and cacheable(notice.verdict):
            pipe.set(verdict_key(settings, cache_key), notice.verdict.model_dump_json(), ex=settings.cache_ttl_seconds)
        pipe.set(job_record_key(settings, notice.job_id), payload, ex=settings.result_ttl_seconds)
        pipe.rpush(notify, payload)
        pipe.expire(notify, int(settings.max_wait_seconds) + 60)
        pipe.execute()


def run_verification(candidate: str, sample_id: str, config: str, cache_key: str, notify: str) -> dict[str, object]:
    """The rq job: verify one candidate, cache and publish the verdict, return it as JSON."""
    context = _current_context()
    job = get_current_job()
    if job is None:
        raise RuntimeError("run_verification must run inside an rq job")
    connection = job.connection
    sample = context.sample(connection, sample_id)
    if sample is None:
        raise LookupError(f"sample {sample_id} is not registered (it expired or was never stored)")
    try:
        verdict = context.executor.verify(candidate, sample, VerifyConfig.model_validate_json(config))
    except Exception as exc:  # noqa: BLE001 - the executor must not raise; if it does, the fault is ours
        verdict = infrastructure_verdict(sample, f"executor raised {type(exc).__name__}: {exc}")
    enqueued = job.enqueued_at.timestamp() if job.enqueued_at else time.time()
    notice = JobNotice(job_id=job.id, verdict=verdict, latency=max(0.0, time.time() - enqueued))
    publish(connection, context.settings, notify, notice, cache_key)
    return verdict.model_dump(mode="json")


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
    """rq failure callback: announce a *final* failure (rq calls this before deciding on a retry)."""
    if job.retries_left:
        return
    settings = Settings.model_validate_json(job.meta["settings"]) if "settings" in job.meta else Settings()
    notice = JobNotice(job_id=job.id, failure=describe_failure(exc_type, exc_value))
    publish(connection, settings, str(job.kwargs["notify"]), notice)


def _settings_meta(settings: Settings) -> str:
    """The few settings the failure callback needs, since it may run in the API's reaper, not a worker."""
    keep = {"key_prefix", "result_ttl_seconds", "max_wait_seconds"}
    return json.dumps({k: v for k, v in settings.model_dump(mode="json").items() if k in keep})


def enqueue(queue: Queue, specs: Sequence[JobSpec], settings: Settings) -> list[str]:
    """Enqueue one job per spec in a single round trip; returns the job ids in spec order."""
    meta = {"settings": _settings_meta(settings)}
    datas = [
        Queue.prepare_data(
            run_verification,
            kwargs={
                "candidate": spec.candidate,
                "sample_id": spec.sample_id,
                "config": spec.config.model_dump_json(),
                "cache_key": spec.cache_key,
                "notify": spec.notify,
            },
            timeout=settings.job_timeout_seconds,
            result_ttl=settings.result_ttl_seconds,
            failure_ttl=settings.failure_ttl_seconds,
            description=f"verify sample {spec.sample_id[:12]} request {spec.cache_key[:12]}",
            job_id=uuid.uuid4().hex,
            meta=meta,
            retry=Retry(max=settings.job_retries) if settings.job_retries else None,
            on_failure=Callback(on_job_failure),
        )
        for spec in specs
    ]
    return [job.id for job in queue.enqueue_many(datas)]


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
    """The job's state from our record when it has ended, else from rq; None when unknown."""
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

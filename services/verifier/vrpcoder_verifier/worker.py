"""A verifier worker: one rq SimpleWorker process running every job through one executor.

rq's default worker forks a child per job; ours does not (SimpleWorker): isolation is the sandbox
executor's job, and the executor keeps warm sandboxed interpreters that a per-job fork would throw
away. A job may carry a chunk of a batch's candidates (see ``queue``), which spreads rq's fixed cost
per job over them. A heartbeat thread keeps the worker's "alive" key (with what it can promise: sandbox and
licence) and runs the reaper, so a killed worker's job is re-run or failed within seconds.
"""

from __future__ import annotations

import faulthandler
import os
import signal
import socket
import threading
import time
import uuid
from typing import Any

import redis
from redis.client import Pipeline
from rq import SimpleWorker
from rq.serializers import JSONSerializer
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig, verify

from vrpcoder_verifier.health import probe_licence, sandbox_report
from vrpcoder_verifier.queue import (
    Executor,
    WorkerContext,
    alive_index_key,
    alive_key,
    infrastructure_verdict,
    install_context,
    make_queue,
    reap_abandoned,
)
from vrpcoder_verifier.schemas import SandboxReport, WorkerReport
from vrpcoder_verifier.settings import ExecutorKind, Settings


class NoSandboxError(RuntimeError):
    """No sandbox is usable and running untrusted code unsandboxed was not allowed."""


class InProcessExecutor:
    """Unsandboxed: the shared ``verify`` in the worker's own process (trusted code only)."""

    def verify(self, candidate_code: str, sample: Sample, config: VerifyConfig) -> Verdict:
        try:
            return verify(candidate_code, sample, config)
        except Exception as exc:  # noqa: BLE001 - verify classifies candidate faults; anything left is ours
            return infrastructure_verdict(sample, f"in-process verify raised {type(exc).__name__}: {exc}")


def build_executor(settings: Settings) -> Executor:
    """The executor ``settings.executor`` asks for; never unsandboxed unless explicitly allowed."""
    if settings.executor is ExecutorKind.IN_PROCESS:
        return InProcessExecutor()
    report = sandbox_report()
    if not report.available:
        if settings.executor is ExecutorKind.AUTO and settings.allow_unsandboxed:
            return InProcessExecutor()
        raise NoSandboxError(f"no sandbox: {report.detail}; refusing untrusted code (use --no-sandbox for trusted code)")
    from vrpcoder_verifier.sandbox import SandboxExecutor, SandboxPolicy

    policy = SandboxPolicy(
        wall_seconds=settings.sandbox_wall_seconds,
        cpu_seconds=settings.sandbox_cpu_seconds,
        memory_mb=settings.sandbox_memory_mb,
        allow_unsandboxed=settings.allow_unsandboxed,
        sandboxes=settings.sandboxes,
        warm_jobs=settings.sandbox_warm_jobs,
        head_start=settings.head_start,
    )
    return SandboxExecutor(policy)


def executor_report(executor: Executor, report: SandboxReport) -> SandboxReport:
    if isinstance(executor, InProcessExecutor):
        return SandboxReport(available=False, mechanism="in-process", detail=f"UNSANDBOXED (trusted code only); sandbox: {report.detail}")
    return report


class VerifierWorker(SimpleWorker):
    """rq's SimpleWorker with fewer Redis round trips per job.

    Between two jobs rq calls ``heartbeat()`` four times and ``set_state(IDLE)`` twice, each its own
    round trip (a heartbeat is three commands). A heartbeat only pushes the worker key's expiry out
    by ``worker_ttl`` (minutes), so one a second is plenty; and a state it has just written needs no
    second write. On a queue of short jobs these calls were about a third of rq's cost per job, and
    they sat between one job's verdict and the next job's start. Heartbeats with an explicit TTL or
    inside a pipeline (rq's per-job bookkeeping) always go through.
    """

    HEARTBEAT_EVERY_SECONDS = 1.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._last_beat_at = float("-inf")

    def heartbeat(self, timeout: int | None = None, pipeline: Pipeline | None = None) -> None:
        if pipeline is not None:
            super().heartbeat(timeout, pipeline=pipeline)
            self._last_beat_at = time.monotonic()
            return
        if timeout is None and time.monotonic() - self._last_beat_at < self.HEARTBEAT_EVERY_SECONDS:
            return
        with self.connection.pipeline(transaction=False) as pipe:
            super().heartbeat(timeout, pipeline=pipe)
            pipe.execute()
        self._last_beat_at = time.monotonic()

    def set_state(self, state: str, pipeline: Pipeline | None = None) -> None:
        if pipeline is None and state == self.get_state():
            return
        super().set_state(state, pipeline=pipeline)


def worker_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{uuid.uuid4().hex[:6]}"


class Heartbeat(threading.Thread):
    """Keeps this worker's alive key fresh and reaps the jobs of workers that stopped doing so."""

    def __init__(self, connection: redis.Redis, settings: Settings, report: WorkerReport) -> None:
        super().__init__(name="verifier-heartbeat", daemon=True)
        self._redis = connection
        self._settings = settings
        self._report = report
        self._stop_event = threading.Event()

    def beat(self) -> None:
        """Refresh the alive key and this worker's entry in the alive index.

        The key's TTL is what says a worker is alive; the index only lists names to look up without a
        SCAN, so entries are pruned generously late (clocks of different hosts may disagree).
        """
        settings = self._settings
        now = time.time()
        index = alive_index_key(settings)
        with self._redis.pipeline(transaction=False) as pipe:
            pipe.set(alive_key(settings, self._report.name), self._report.model_dump_json(),
                     px=int(settings.worker_dead_after_seconds * 1000))
            pipe.zadd(index, {self._report.name: now})
            pipe.zremrangebyscore(index, "-inf", now - 10 * settings.worker_dead_after_seconds)
            pipe.execute()

    def run(self) -> None:
        queue = make_queue(self._redis, self._settings)
        while not self._stop_event.wait(self._settings.worker_heartbeat_seconds):
            try:
                self.beat()
                reap_abandoned(self._redis, queue, self._settings)
            except redis.exceptions.RedisError:
                continue  # Redis is away; rq's own loop waits for it, the next beat tries again

    def stop(self) -> None:
        self._stop_event.set()
        try:
            with self._redis.pipeline(transaction=False) as pipe:
                pipe.delete(alive_key(self._settings, self._report.name))
                pipe.zrem(alive_index_key(self._settings), self._report.name)
                pipe.execute()
        except redis.exceptions.RedisError:
            return


def run_worker(settings: Settings, *, name: str | None = None, burst: bool = False, log_level: str = "WARNING") -> bool:
    """Take jobs until stopped (SIGTERM finishes the current job first); True when any job ran."""
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1` prints every thread's stack
    executor = build_executor(settings)
    licence = probe_licence() if settings.check_licence else "not checked"
    report = WorkerReport(
        name=name or worker_name(),
        version=settings.version,
        sandbox=executor_report(executor, sandbox_report()),
        licence=licence,
    )
    install_context(WorkerContext(settings=settings, executor=executor))
    connection = redis.Redis.from_url(
        settings.redis_url,
        socket_connect_timeout=settings.redis_timeout_seconds,
        health_check_interval=30,
    )
    heartbeat = Heartbeat(connection, settings, report)
    _wait_for_redis(connection, settings)
    heartbeat.beat()
    heartbeat.start()
    worked = False
    try:
        while True:
            worker = VerifierWorker(
                [make_queue(connection, settings)], connection=connection, name=report.name, serializer=JSONSerializer
            )
            worker.log_result_lifespan = False
            try:
                worked = worker.work(burst=burst, logging_level=log_level) or worked
            except redis.exceptions.RedisError:
                pass  # rq's teardown talks to Redis too; when Redis is gone that is no reason to exit
            # rq's loop also ends when Redis vanishes mid-job; only a stop signal (rq records when one came)
            # or burst mode ends ours, otherwise the worker waits for Redis and takes jobs again
            if burst or getattr(worker, "_shutdown_requested_date", None) is not None:
                return worked
            _wait_for_redis(connection, settings)
    finally:
        heartbeat.stop()


def _wait_for_redis(connection: redis.Redis, settings: Settings) -> None:
    """Block until Redis answers, backing off up to a few seconds between tries."""
    delay = 0.2
    while True:
        try:
            connection.ping()
            return
        except redis.exceptions.RedisError:
            time.sleep(delay)
            delay = min(delay * 2, 5.0)

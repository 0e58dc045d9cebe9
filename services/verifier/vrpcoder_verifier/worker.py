"""A verifier worker: one rq SimpleWorker process running every job through one executor.

rq's default worker forks a child per job; ours does not (SimpleWorker): isolation is the sandbox
executor's job, and the executor keeps warm sandboxed interpreters that a per-job fork would throw
away. Each job is one candidate (see ``queue``) and writes one structured log line as it ends (job
id, sample id, verdict kind, reward, seconds, sandbox). A heartbeat thread keeps the worker's
"alive" key (with what it can promise: sandbox and licence) and runs the reaper, so a killed
worker's job is re-run or failed within seconds. An idle worker looks every few seconds for a
running batch with items still waiting and joins it (``queue.join_waiting_batch``), so a worker
started mid-batch helps at once. Its Redis commands ride out a Redis restart (retried with backoff
for ``redis_outage_seconds``), so an item in hand is published when Redis is back.
"""

from __future__ import annotations

import faulthandler
import logging
import os
import signal
import socket
import threading
import time
import uuid
from typing import Any

import redis
from redis.backoff import EqualJitterBackoff, NoBackoff
from redis.client import Pipeline
from redis.retry import Retry
from rq import Queue, SimpleWorker
from rq.job import Job
from rq.serializers import JSONSerializer

from vrpcoder_verifier.executors import InProcessExecutor, NoSandboxError, build_executor, executor_report
from vrpcoder_verifier.health import probe_licence, sandbox_report
from vrpcoder_verifier.logs import configure_logging
from vrpcoder_verifier.jobs import alive_index_key, alive_key, make_queue
from vrpcoder_verifier.queue import (
    WorkerContext,
    install_context,
    join_waiting_batch,
    reap_abandoned,
    release_own,
)
from vrpcoder_verifier.schemas import WorkerReport
from vrpcoder_verifier.settings import Settings

__all__ = ["InProcessExecutor", "NoSandboxError", "VerifierWorker", "build_executor", "run_worker"]


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

    def __init__(
        self, *args: Any, stopping: threading.Event | None = None, settings: Settings | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._last_beat_at = float("-inf")
        self._stopping = stopping
        self._settings = settings

    def dequeue_job_and_maintain_ttl(self, timeout: int | None, max_idle_time: int | None = None) -> tuple[Job, Queue] | None:
        """Wait for a drain, and every ``join_poll_seconds`` while none comes, join a running batch
        that still has items waiting (``queue.join_waiting_batch``)."""
        settings = self._settings
        if settings is None or timeout is None or max_idle_time is not None:
            return super().dequeue_job_and_maintain_ttl(timeout, max_idle_time)
        poll = max(1, round(settings.join_poll_seconds))
        while True:
            self._join(settings)
            result = super().dequeue_job_and_maintain_ttl(min(timeout, poll), max_idle_time=poll)
            if result is not None or self._stop_requested:
                return result

    def _join(self, settings: Settings) -> None:
        try:
            for queue in self.queues:
                join_waiting_batch(self.connection, queue, settings)
        except redis.exceptions.RedisError:
            return  # Redis is away: the dequeue that follows waits for it

    def request_stop(self, signum: Any, frame: Any) -> None:
        """Warm shutdown: besides rq's own flag, tell the running drain to hand its batch over after
        the candidate in hand (see ``queue.drain``)."""
        if self._stopping is not None:
            self._stopping.set()
        super().request_stop(signum, frame)

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
        """Stop beating and take this worker off the alive index, once, without the outage retries.

        The worker's own connection retries every command for ``redis_outage_seconds``, and its
        connects too, so with Redis gone for good (a local stack torn down) a stop through it waited
        out another outage on top of rq's own (tests/verifier/test_faults.py: more than 45 s, against
        about 25 s now); the alive key expires by itself, so one quick try is enough."""
        self._stop_event.set()
        quick = redis.Redis.from_url(self._settings.redis_url, socket_connect_timeout=1, socket_timeout=1,
                                     retry=Retry(NoBackoff(), 0))
        try:
            with quick.pipeline(transaction=False) as pipe:
                pipe.delete(alive_key(self._settings, self._report.name))
                pipe.zrem(alive_index_key(self._settings), self._report.name)
                pipe.execute()
        except redis.exceptions.RedisError:
            pass  # Redis is gone; the alive key expires on its own
        finally:
            quick.close()


def run_worker(settings: Settings, *, name: str | None = None, burst: bool = False, log_level: str = "WARNING") -> bool:
    """Take jobs until stopped (SIGTERM finishes the current job first); True when any job ran."""
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1` prints every thread's stack
    if not logging.getLogger("vrpcoder_verifier").handlers:
        configure_logging(log_level)  # unless the caller chose a format already; INFO shows a line per job
    executor = build_executor(settings)
    licence = probe_licence() if settings.check_licence else "not checked"
    report = WorkerReport(
        name=name or worker_name(),
        version=settings.version,
        sandbox=executor_report(executor, sandbox_report()),
        licence=licence,
    )
    context = WorkerContext(settings=settings, executor=executor)
    install_context(context)
    connection = redis.Redis.from_url(
        settings.redis_url,
        socket_connect_timeout=settings.redis_timeout_seconds,
        health_check_interval=30,
        retry=outage_retry(settings),
    )
    heartbeat = Heartbeat(connection, settings, report)
    _wait_for_redis(connection, settings)
    heartbeat.beat()
    heartbeat.start()
    worked = False
    try:
        while True:
            queue = make_queue(connection, settings)
            try:
                release_own(connection, queue, settings, report.name)
            except redis.exceptions.RedisError:
                pass  # Redis went away again; the loop below waits for it
            worker = VerifierWorker(
                [queue], connection=connection, name=report.name, serializer=JSONSerializer,
                stopping=context.stopping, settings=settings,
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


def outage_retry(settings: Settings) -> Retry:
    """Retries of every Redis command of a worker: backoff from 0.1 s up to 2 s between tries, for
    about ``redis_outage_seconds`` in all, so a Redis restart does not cut a drain off."""
    retries = max(0, int(settings.redis_outage_seconds / 1.5))
    return Retry(EqualJitterBackoff(cap=2.0, base=0.1), retries)


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

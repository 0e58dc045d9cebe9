"""What the routes do, without HTTP: resolve samples, answer from the cache, enqueue, wait.

Waiting blocks on a Redis list the jobs push their notices to (one list per request), so a request
that waits costs one connection and no polling, and a verdict reaches the caller within a round
trip of the worker finishing. Identical items of one batch share one job.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import redis
import redis.asyncio as aioredis
from rq import Queue
from vrpcoder.samples import Sample
from vrpcoder.verification import VerifyConfig

from vrpcoder_verifier.api.core.metrics import Metrics
from vrpcoder_verifier.cache import AsyncResultCache, SampleStore, cache_key
from vrpcoder_verifier.health import LicenceKind
from vrpcoder_verifier.queue import (
    JobNotice,
    JobSpec,
    alive_key,
    enqueue,
    lookup_job,
    notify_key,
    reap_abandoned,
)
from vrpcoder_verifier.schemas import (
    BatchRequest,
    BatchResponse,
    JobState,
    ReadyReport,
    SampleRegistered,
    SandboxReport,
    VerifyOptions,
    VerifyRequest,
    VerifyResult,
    WorkerReport,
    sample_digest,
)
from vrpcoder_verifier.settings import Settings


class UnknownSample(LookupError):
    def __init__(self, sample_ids: Sequence[str]) -> None:
        super().__init__(f"sample(s) not registered (POST /v1/samples first, or send them inline): {', '.join(sample_ids)}")


class LimitExceeded(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class _Item:
    candidate: str
    sample_id: str
    key: str


@dataclass
class VerifierService:
    settings: Settings
    async_redis: aioredis.Redis
    sync_redis: redis.Redis
    queue: Queue
    metrics: Metrics
    sandbox: SandboxReport
    licence: str = LicenceKind.CHECKING.value
    _samples: SampleStore = field(init=False)
    _cache: AsyncResultCache = field(init=False)

    def __post_init__(self) -> None:
        self._samples = SampleStore(self.settings)
        self._cache = AsyncResultCache(self.async_redis, self.settings)

    def config_for(self, options: VerifyOptions) -> VerifyConfig:
        """Service-side config: threads pinned to one, time limit defaulted and capped."""
        time_limit = options.time_limit if options.time_limit is not None else self.settings.default_time_limit
        if time_limit > self.settings.max_time_limit:
            raise LimitExceeded(f"time_limit {time_limit} exceeds this service's cap of {self.settings.max_time_limit} s")
        return VerifyConfig(weights=options.weights, diff_tolerance=options.diff_tolerance, time_limit=time_limit, threads=1)

    def wait_for(self, requested: float | None) -> float:
        wait = self.settings.default_wait_seconds if requested is None else requested
        return min(wait, self.settings.max_wait_seconds)

    async def register_sample(self, sample: Sample) -> SampleRegistered:
        sample_id = sample_digest(sample)
        await self._samples.put(self.async_redis, sample_id, sample.model_dump_json())
        return SampleRegistered(sample_id=sample_id, name=sample.id)

    async def _resolve(self, inline: Sequence[Sample], referenced: Sequence[str]) -> list[str]:
        """Store inline samples, check referenced ones exist; the digests of the inline ones in order."""
        digests = [(await self.register_sample(s)).sample_id for s in inline]
        missing = await self._samples.touch_all(self.async_redis, sorted(set(referenced)))
        if missing:
            raise UnknownSample(missing)
        return digests

    async def verify(self, request: VerifyRequest) -> VerifyResult:
        config = self.config_for(request.options)
        if request.sample is not None:
            (sample_id,) = await self._resolve([request.sample], [])
        else:
            assert request.sample_id is not None
            await self._resolve([], [request.sample_id])
            sample_id = request.sample_id
        (result,) = await self._submit([(request.candidate, sample_id)], config, self.wait_for(request.wait))
        return result

    async def verify_batch(self, request: BatchRequest) -> BatchResponse:
        if len(request.items) > self.settings.max_batch_items:
            raise LimitExceeded(f"{len(request.items)} items; this service takes at most {self.settings.max_batch_items} per batch")
        config = self.config_for(request.options)
        referenced = [item.sample_id for item in request.items if item.sample_id is not None]
        inline = await self._resolve(request.samples, referenced)
        pairs = [
            (item.candidate, item.sample_id if item.sample_id is not None else inline[item.sample_index or 0])
            for item in request.items
        ]
        return BatchResponse(results=tuple(await self._submit(pairs, config, self.wait_for(request.wait))))

    async def _submit(self, pairs: Sequence[tuple[str, str]], config: VerifyConfig, wait: float) -> list[VerifyResult]:
        version = self.settings.version
        items = [_Item(c, s, cache_key(c, s, version, config)) for c, s in pairs]
        unique = list(dict.fromkeys(item.key for item in items))
        cached = dict(zip(unique, await self._cache.get_many(unique), strict=True))
        answers: dict[str, VerifyResult] = {}
        for key, verdict in cached.items():
            if verdict is not None:
                answers[key] = VerifyResult(job_id=None, state=JobState.FINISHED, cached=True, verdict=verdict)
                self.metrics.observe_verdict(verdict, cached=True)
        hits = sum(1 for item in items if item.key in answers)
        self.metrics.observe_lookup(hits, len(items) - hits)
        first = {item.key: item for item in reversed(items)}
        todo = [first[key] for key in unique if key not in answers]
        if todo:
            notify = notify_key(self.settings, uuid.uuid4().hex)
            specs = [JobSpec(i.candidate, i.sample_id, config, i.key, notify) for i in todo]
            job_ids = await asyncio.to_thread(enqueue, self.queue, specs, self.settings)
            by_job = dict(zip(job_ids, (i.key for i in todo), strict=True))
            for job_id, result in (await self._collect(notify, job_ids, wait)).items():
                answers[by_job[job_id]] = result
        return [answers[item.key] for item in items]

    async def _collect(self, notify: str, job_ids: list[str], wait: float) -> dict[str, VerifyResult]:
        deadline = time.monotonic() + wait
        results: dict[str, VerifyResult] = {}
        while len(results) < len(job_ids):
            remaining = deadline - time.monotonic()
            if remaining <= 0.001:
                break
            popped = await self.async_redis.blpop([notify], timeout=remaining)
            if popped is None:
                break
            notice = JobNotice.model_validate_json(popped[1])
            results[notice.job_id] = self._observed(notice)
        pending = [job_id for job_id in job_ids if job_id not in results]
        if pending:
            looked_up = await asyncio.to_thread(self._lookup_many, pending)
            results.update(looked_up)
        return results

    def _observed(self, notice: JobNotice) -> VerifyResult:
        self.metrics.job_latency.observe(notice.latency)
        if notice.verdict is not None:
            self.metrics.observe_verdict(notice.verdict, cached=False)
        else:
            self.metrics.failed_jobs.inc()
        return notice.result()

    def _lookup_many(self, job_ids: list[str]) -> dict[str, VerifyResult]:
        found = {job_id: lookup_job(self.sync_redis, self.settings, job_id) for job_id in job_ids}
        return {job_id: r or VerifyResult(job_id=job_id, state=JobState.QUEUED) for job_id, r in found.items()}

    async def job(self, job_id: str) -> VerifyResult | None:
        return await asyncio.to_thread(lookup_job, self.sync_redis, self.settings, job_id)

    async def workers(self) -> list[WorkerReport]:
        keys = [key async for key in self.async_redis.scan_iter(match=alive_key(self.settings, "*"), count=500)]
        raws = await self.async_redis.mget(keys) if keys else []
        return [WorkerReport.model_validate_json(raw) for raw in raws if raw is not None]

    async def ready(self) -> ReadyReport:
        try:
            await self.async_redis.ping()
            depth: int | None = await self.async_redis.llen(self.queue.key)
            workers = await self.workers()
            reachable = True
        except redis.exceptions.RedisError:
            depth, workers, reachable = None, [], False
        usable = self.sandbox.available or self.settings.unsandboxed_ok
        return ReadyReport(
            ready=reachable and usable,
            version=self.settings.version,
            redis=reachable,
            sandbox=self.sandbox,
            licence=self.licence,
            queue_depth=depth,
            workers=tuple(workers),
        )

    async def render_metrics(self) -> bytes:
        try:
            depth = await self.async_redis.llen(self.queue.key)
            running = await self.async_redis.zcard(self.queue.started_job_registry.key)
            workers = len(await self.workers())
        except redis.exceptions.RedisError:
            depth, running, workers = -1, -1, -1
        return self.metrics.render(queue_depth=depth, running=running, workers=workers)

    async def reap_forever(self) -> None:
        """The API reaps too, so a job held by a dead worker fails cleanly even when no worker is left."""
        while True:
            await asyncio.sleep(self.settings.worker_heartbeat_seconds)
            try:
                await asyncio.to_thread(reap_abandoned, self.sync_redis, self.queue, self.settings)
            except redis.exceptions.RedisError:
                continue

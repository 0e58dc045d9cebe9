"""What the routes do, without HTTP: resolve samples, answer from the cache, enqueue, wait.

On a cache hit a request costs one Redis round trip (store inline samples, refresh referenced ones,
read verdicts: one pipeline), and the stored verdict JSON is spliced into the answer unparsed but
for its reward and error kind. Waiting blocks on a Redis list the jobs push their notices to (one
list per request), so a request that waits costs one connection and no polling, and a verdict
reaches the caller within a round trip of the worker finishing. Identical items of one batch share
one item; the distinct ones are taken one at a time by a few drain jobs (see ``queue``), so no item
waits behind another.
Outcomes of jobs are counted where they end (``queue.publish``); this process counts what it
serves from the cache.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import redis
import redis.asyncio as aioredis
from rq import Queue
from vrpcoder.samples import Sample
from vrpcoder.verification import VerifyConfig

from vrpcoder_verifier.api.core.metrics import JobOutcomes, Metrics
from vrpcoder_verifier.cache import AsyncResultCache, CachedVerdict, SampleStore, cache_key
from vrpcoder_verifier.health import LicenceKind, is_ready
from vrpcoder_verifier.queue import (
    ItemSpec,
    JobNotice,
    alive_index_key,
    alive_key,
    drains_for,
    enqueue,
    lookup_job,
    new_id,
    notify_key,
    reap_abandoned,
    stats_key,
)
from vrpcoder_verifier.schemas import (
    BatchRequest,
    JobState,
    ReadyReport,
    SampleRegistered,
    SandboxReport,
    VerifyOptions,
    VerifyRequest,
    VerifyResult,
    WorkerReport,
    batch_response_json,
    cached_result_json,
    json_digest,
)
from vrpcoder_verifier.settings import Settings


class UnknownSample(LookupError):
    def __init__(self, sample_ids: Sequence[str]) -> None:
        super().__init__(f"sample(s) not registered (POST /v1/samples first, or send them inline): {', '.join(sample_ids)}")


class LimitExceeded(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class Answer:
    """One item's result, already as the JSON body of a ``VerifyResult``."""

    body: bytes
    done: bool

    @classmethod
    def of(cls, result: VerifyResult) -> Answer:
        return cls(body=result.model_dump_json().encode(), done=result.done)

    @classmethod
    def cached(cls, verdict: CachedVerdict) -> Answer:
        return cls(body=cached_result_json(verdict.raw, verdict.reward), done=True)


def batch_body(answers: Sequence[Answer]) -> bytes:
    return batch_response_json([a.body for a in answers], all(a.done for a in answers))


@dataclass(frozen=True, slots=True)
class _InlineSample:
    """A sample sent with the request: its JSON is produced once, for both its digest and its storage."""

    sample_id: str
    json: str

    @classmethod
    def of(cls, sample: Sample) -> _InlineSample:
        text = sample.model_dump_json()
        return cls(sample_id=json_digest(text), json=text)


@dataclass
class VerifierService:
    settings: Settings
    async_redis: aioredis.Redis
    sync_redis: redis.Redis
    queue: Queue
    metrics: Metrics
    sandbox: SandboxReport
    licence: str = LicenceKind.CHECKING.value
    alive_workers: int = 1
    """Workers with a fresh heartbeat, refreshed every heartbeat; how many drains a batch gets."""
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
        inline = _InlineSample.of(sample)
        await self._samples.put(self.async_redis, inline.sample_id, inline.json)
        return SampleRegistered(sample_id=inline.sample_id, name=sample.id)

    async def verify(self, request: VerifyRequest) -> Answer:
        config = self.config_for(request.options)
        stored: dict[str, str] = {}
        referenced: list[str] = []
        if request.sample is not None:
            inline = _InlineSample.of(request.sample)
            sample_id = inline.sample_id
            stored[sample_id] = inline.json
        else:
            assert request.sample_id is not None
            sample_id = request.sample_id
            referenced.append(sample_id)
        pair = (request.candidate, sample_id)
        (answer,) = await self._submit([pair], stored, referenced, config, self.wait_for(request.wait))
        return answer

    async def verify_batch(self, request: BatchRequest) -> list[Answer]:
        if len(request.items) > self.settings.max_batch_items:
            raise LimitExceeded(f"{len(request.items)} items; this service takes at most {self.settings.max_batch_items} per batch")
        config = self.config_for(request.options)
        inline = [_InlineSample.of(sample) for sample in request.samples]
        referenced = sorted({item.sample_id for item in request.items if item.sample_id is not None})
        pairs = [
            (item.candidate, item.sample_id or inline[item.sample_index or 0].sample_id)
            for item in request.items
        ]
        stored = {s.sample_id: s.json for s in inline}
        return await self._submit(pairs, stored, referenced, config, self.wait_for(request.wait))

    async def _submit(
        self,
        pairs: Sequence[tuple[str, str]],
        inline: Mapping[str, str],
        referenced: Sequence[str],
        config: VerifyConfig,
        wait: float,
    ) -> list[Answer]:
        """Answer ``pairs`` (candidate, sample id) in order: from the cache, else through jobs."""
        version = self.settings.version
        keys = [cache_key(candidate, sample_id, version, config) for candidate, sample_id in pairs]
        first = dict(zip(reversed(keys), reversed(pairs), strict=True))
        unique = list(dict.fromkeys(keys))
        found = await self._cache.lookup(inline, referenced, unique)
        if found.missing_samples:
            raise UnknownSample(found.missing_samples)
        answers: dict[str, Answer] = {}
        for key, cached in zip(unique, found.verdicts, strict=True):
            if cached is not None:
                answers[key] = Answer.cached(cached)
                self.metrics.observe_cached(cached.error_kind)
        hits = sum(1 for key in keys if key in answers)
        self.metrics.observe_lookup(hits, len(keys) - hits)
        todo = [ItemSpec(new_id(), *first[key], key) for key in unique if key not in answers]
        if todo:
            results = await self._run(todo, config, wait)
            answers.update((item.cache_key, Answer.of(results[item.id])) for item in todo)
        return [answers[key] for key in keys]

    async def _run(self, items: list[ItemSpec], config: VerifyConfig, wait: float) -> dict[str, VerifyResult]:
        """Enqueue ``items`` (about one drain per alive worker) and wait for their notices; results by item id."""
        notify = notify_key(self.settings, new_id())
        drains = drains_for(len(items), self.alive_workers)
        await asyncio.to_thread(enqueue, self.queue, items, config, notify, self.settings, drains)
        return await self._collect(notify, [item.id for item in items], wait)

    async def _collect(self, notify: str, item_ids: list[str], wait: float) -> dict[str, VerifyResult]:
        """Block on the notice list; an item's first notice counts (a re-run job may announce it again)."""
        deadline = time.monotonic() + wait
        results: dict[str, VerifyResult] = {}
        while len(results) < len(item_ids):
            remaining = deadline - time.monotonic()
            if remaining <= 0.001:
                break
            popped = await self.async_redis.blpop([notify], timeout=remaining)
            if popped is None:
                break
            notice = JobNotice.model_validate_json(popped[1])
            if notice.job_id not in results:
                results[notice.job_id] = self._observed(notice)
        pending = [item_id for item_id in item_ids if item_id not in results]
        if pending:
            looked_up = await asyncio.to_thread(self._lookup_many, pending)
            results.update(looked_up)
        return results

    def _observed(self, notice: JobNotice) -> VerifyResult:
        """Latency of a job this process waited on (its outcome was counted where it ended)."""
        self.metrics.job_latency.observe(notice.latency)
        return notice.result()

    def _lookup_many(self, job_ids: list[str]) -> dict[str, VerifyResult]:
        found = {job_id: lookup_job(self.sync_redis, self.settings, job_id) for job_id in job_ids}
        return {job_id: r or VerifyResult(job_id=job_id, state=JobState.QUEUED) for job_id, r in found.items()}

    async def job(self, job_id: str) -> VerifyResult | None:
        return await asyncio.to_thread(lookup_job, self.sync_redis, self.settings, job_id)

    async def workers(self) -> list[WorkerReport]:
        """Workers whose alive key has not run out, found through the index (no SCAN of the keyspace)."""
        names = await self.async_redis.zrange(alive_index_key(self.settings), 0, -1)
        keys = [alive_key(self.settings, n.decode() if isinstance(n, bytes) else str(n)) for n in names]
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
        return ReadyReport(
            ready=is_ready(reachable, workers, self.settings.unsandboxed_ok),
            version=self.settings.version,
            redis=reachable,
            sandbox=self.sandbox,
            licence=self.licence,
            queue_depth=depth,
            workers=tuple(workers),
        )

    async def render_metrics(self) -> bytes:
        """Queue state and the counts of how jobs ended are read from Redis at scrape time: jobs end in
        workers (or in a reaper), and a verdict fetched later through GET /v1/jobs was counted then."""
        try:
            depth = await self.async_redis.llen(self.queue.key)
            running = await self.async_redis.zcard(self.queue.started_job_registry.key)
            workers = len(await self.workers())
            ended = JobOutcomes.of(await self.async_redis.hgetall(stats_key(self.settings)))
        except redis.exceptions.RedisError:
            depth, running, workers, ended = -1, -1, -1, None
        return self.metrics.render(queue_depth=depth, running=running, workers=workers, ended=ended)

    async def reap_forever(self) -> None:
        """The API reaps too, so a job held by a dead worker fails cleanly even when no worker is left.

        The same beat refreshes the count of alive workers that sizes each batch's drains.
        """
        while True:
            await asyncio.sleep(self.settings.worker_heartbeat_seconds)
            try:
                self.alive_workers = len(await self.workers())
                await asyncio.to_thread(reap_abandoned, self.sync_redis, self.queue, self.settings)
            except redis.exceptions.RedisError:
                continue

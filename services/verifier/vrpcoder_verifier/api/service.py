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

A request may be repeated: a client whose connection broke, or that got a 503 (Redis away, this
process shutting down), sends it again with the same ``Idempotency-Key``, and gets the jobs the
first attempt made (same job ids; nothing runs twice). On SIGTERM the process stops waiting at
once: every request still waiting answers 503 with ``Retry-After`` (its jobs keep running, and the
retry, on another replica or on this one restarted, waits for them), and new requests get 503 too
while uvicorn finishes closing its connections.
"""

from __future__ import annotations

import asyncio
import json
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
from vrpcoder_verifier.jobs import (
    ItemSpec,
    JobNotice,
    alive_index_key,
    alive_key,
    backlog_key,
    job_record_key,
    lookup_job,
    new_id,
    notify_key,
    request_key,
    running_key,
    stats_key,
)
from vrpcoder_verifier.queue import drains_for, enqueue, prune_stale, reap_abandoned
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


class ShuttingDown(Exception):
    """This API process is shutting down; the request's jobs (if any) go on without it."""

    def __init__(self, job_ids: Sequence[str]) -> None:
        super().__init__("this API process is shutting down: send the request again (with the same Idempotency-Key "
                         "its jobs are not run twice)")
        self.job_ids = list(job_ids)


WAKE = b"wake"
"""Pushed onto every notice list a request of this process waits on when it starts shutting down."""

_ATTACHED_POLL_SECONDS = 0.25
"""How often a repeated request looks for the records of the jobs an earlier attempt made (it has
no notice list of its own for them; repeats are rare, so polling is cheap enough)."""


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
    draining: bool = False
    """Set on SIGTERM: requests stop waiting and new ones are refused with 503."""
    _samples: SampleStore = field(init=False)
    _cache: AsyncResultCache = field(init=False)
    _waiting: set[str] = field(init=False, default_factory=set)
    """Notice lists requests of this process are blocked on (woken when it shuts down)."""

    def __post_init__(self) -> None:
        self._samples = SampleStore(self.settings)
        self._cache = AsyncResultCache(self.async_redis, self.settings)

    async def begin_draining(self) -> None:
        """Shutting down: wake every waiting request (each answers 503) and refuse new ones."""
        self.draining = True
        waiting = list(self._waiting)
        if not waiting:
            return
        try:
            async with self.async_redis.pipeline(transaction=False) as pipe:
                for key in waiting:
                    pipe.rpush(key, WAKE)
                    pipe.expire(key, 60)
                await pipe.execute()
        except redis.exceptions.RedisError:
            return  # Redis is away: those requests are failing with 503 already

    def _refuse_if_draining(self) -> None:
        if self.draining:
            raise ShuttingDown(())

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
        self._refuse_if_draining()
        inline = _InlineSample.of(sample)
        await self._samples.put(self.async_redis, inline.sample_id, inline.json)
        return SampleRegistered(sample_id=inline.sample_id, name=sample.id)

    async def verify(self, request: VerifyRequest, idempotency_key: str | None = None) -> Answer:
        self._refuse_if_draining()
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
        (answer,) = await self._submit([pair], stored, referenced, config, self.wait_for(request.wait), idempotency_key)
        return answer

    async def verify_batch(self, request: BatchRequest, idempotency_key: str | None = None) -> list[Answer]:
        self._refuse_if_draining()
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
        return await self._submit(pairs, stored, referenced, config, self.wait_for(request.wait), idempotency_key)

    async def _submit(
        self,
        pairs: Sequence[tuple[str, str]],
        inline: Mapping[str, str],
        referenced: Sequence[str],
        config: VerifyConfig,
        wait: float,
        idempotency_key: str | None = None,
    ) -> list[Answer]:
        """Answer ``pairs`` (candidate, sample id) in order: with the jobs an earlier attempt of the
        same request made, from the cache, else through new jobs."""
        version = self.settings.version
        keys = [cache_key(candidate, sample_id, version, config) for candidate, sample_id in pairs]
        first = dict(zip(reversed(keys), reversed(pairs), strict=True))
        unique = list(dict.fromkeys(keys))
        request = request_key(self.settings, idempotency_key) if idempotency_key is not None else None
        found = await self._cache.lookup(inline, referenced, unique, request)
        if found.missing_samples:
            raise UnknownSample(found.missing_samples)
        earlier: dict[str, str] = json.loads(found.extra) if found.extra is not None else {}
        answers: dict[str, Answer] = {}
        for key, cached in zip(unique, found.verdicts, strict=True):
            if cached is not None and key not in earlier:
                answers[key] = Answer.cached(cached)
                self.metrics.observe_cached(cached.error_kind)
        hits = sum(1 for key in keys if key in answers)
        self.metrics.observe_lookup(hits, len(keys) - hits)
        attached = {key: earlier[key] for key in unique if key in earlier}
        todo = [ItemSpec(new_id(), *first[key], key) for key in unique if key not in answers and key not in attached]
        if todo or attached:
            results = await self._run(todo, attached, config, wait, idempotency_key)
            answers.update((item.cache_key, Answer.of(results[item.id])) for item in todo)
            answers.update((key, Answer.of(results[item_id])) for key, item_id in attached.items())
        return [answers[key] for key in keys]

    async def _run(
        self, items: list[ItemSpec], attached: Mapping[str, str], config: VerifyConfig, wait: float,
        idempotency_key: str | None,
    ) -> dict[str, VerifyResult]:
        """Enqueue ``items`` (about one drain per alive worker) and wait for their notices and for
        the ``attached`` jobs of an earlier attempt; results by item id."""
        notify = notify_key(self.settings, new_id())
        if items:
            drains = drains_for(len(items), self.alive_workers)
            key = idempotency_key if not attached else None  # a repeat keeps the first attempt's record
            await asyncio.to_thread(enqueue, self.queue, items, config, notify, self.settings, drains, key)
        return await self._collect(notify, [item.id for item in items], list(attached.values()), wait)

    async def _collect(
        self, notify: str, item_ids: list[str], attached: list[str], wait: float
    ) -> dict[str, VerifyResult]:
        """Block on the notice list (an item's first notice counts: a re-run job may announce it
        again), and look for the records of ``attached`` jobs; on shutdown, raise ``ShuttingDown``."""
        deadline = time.monotonic() + wait
        results: dict[str, VerifyResult] = {}
        everything = [*item_ids, *attached]
        self._waiting.add(notify)
        try:
            while len(results) < len(everything):
                if self.draining:
                    raise ShuttingDown(everything)
                remaining = deadline - time.monotonic()
                if remaining <= 0.001:
                    break
                polling = [i for i in attached if i not in results]
                if polling:
                    results.update(await self._records(polling))
                    polling = [i for i in polling if i not in results]
                    remaining = min(remaining, _ATTACHED_POLL_SECONDS)
                if not any(i not in results for i in item_ids):
                    if polling:
                        await asyncio.sleep(remaining)
                    continue
                popped = await self.async_redis.blpop([notify], timeout=remaining)
                if popped is None:
                    if polling:
                        continue
                    break
                if popped[1] == WAKE:
                    continue
                notice = JobNotice.model_validate_json(popped[1])
                if notice.job_id not in results:
                    results[notice.job_id] = self._observed(notice)
        finally:
            self._waiting.discard(notify)
        pending = [item_id for item_id in everything if item_id not in results]
        if pending:
            looked_up = await asyncio.to_thread(self._lookup_many, pending)
            results.update(looked_up)
        return results

    async def _records(self, item_ids: list[str]) -> dict[str, VerifyResult]:
        """The results of those jobs that have ended (one round trip)."""
        if not item_ids:
            return {}
        raws = await self.async_redis.mget([job_record_key(self.settings, i) for i in item_ids])
        return {i: JobNotice.model_validate_json(raw).result() for i, raw in zip(item_ids, raws, strict=True) if raw}

    def _observed(self, notice: JobNotice) -> VerifyResult:
        """Latency of a job this process waited on (its outcome was counted where it ended)."""
        self.metrics.job_latency.observe(notice.latency)
        return notice.result()

    def _lookup_many(self, job_ids: list[str]) -> dict[str, VerifyResult]:
        """Where the jobs not ended stand; one this Redis has no trace of any more is ``lost`` (its
        data was lost): waiting for it would be forever, the client submits it again."""
        found = {job_id: lookup_job(self.sync_redis, self.settings, job_id) for job_id in job_ids}
        lost = "the service has no trace of this job any more (its Redis lost the data); submit it again"
        return {job_id: r or VerifyResult(job_id=job_id, state=JobState.LOST, failure=lost) for job_id, r in found.items()}

    async def job(self, job_id: str) -> VerifyResult | None:
        return await asyncio.to_thread(lookup_job, self.sync_redis, self.settings, job_id)

    async def workers(self) -> list[WorkerReport]:
        """Workers whose alive key has not run out, found through the index (no SCAN of the keyspace)."""
        names = await self.async_redis.zrange(alive_index_key(self.settings), 0, -1)
        keys = [alive_key(self.settings, n.decode() if isinstance(n, bytes) else str(n)) for n in names]
        raws = await self.async_redis.mget(keys) if keys else []
        return [WorkerReport.model_validate_json(raw) for raw in raws if raw is not None]

    async def _backlog(self) -> tuple[int, int]:
        """(items accepted and not ended, items a drain is running), as the autoscaler sees them."""
        async with self.async_redis.pipeline(transaction=False) as pipe:
            pipe.zcard(backlog_key(self.settings))
            pipe.zcard(running_key(self.settings))
            total, running = await pipe.execute()
        return int(total), int(running)

    async def ready(self) -> ReadyReport:
        try:
            await self.async_redis.ping()
            total, running = await self._backlog()
            depth: int | None = total - running
            workers = await self.workers()
            reachable = True
        except redis.exceptions.RedisError:
            depth, workers, reachable = None, [], False
        return ReadyReport(
            ready=is_ready(reachable, workers, self.settings.unsandboxed_ok) and not self.draining,
            draining=self.draining,
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
            total, running = await self._backlog()
            workers = len(await self.workers())
            ended = JobOutcomes.of(await self.async_redis.hgetall(stats_key(self.settings)))
        except redis.exceptions.RedisError:
            total, running, workers, ended = -1, -1, -1, None
        return self.metrics.render(backlog=total, running=running, workers=workers, ended=ended)

    async def reap_forever(self) -> None:
        """The API reaps too, so a job held by a dead worker fails cleanly even when no worker is left.

        The same beat refreshes the count of alive workers that sizes each batch's drains, and
        prunes backlog entries older than any batch can live (``queue.prune_stale``).
        """
        while True:
            await asyncio.sleep(self.settings.worker_heartbeat_seconds)
            try:
                self.alive_workers = len(await self.workers())
                await asyncio.to_thread(reap_abandoned, self.sync_redis, self.queue, self.settings)
                await asyncio.to_thread(prune_stale, self.sync_redis, self.settings)
            except redis.exceptions.RedisError:
                continue

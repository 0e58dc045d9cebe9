"""Prometheus metrics of one API process, in a registry of its own.

A private registry (not the global default) lets several apps live in one test process without
duplicate-metric errors. The backlog (items accepted and not ended: ``verifier_backlog_items``, the
figure the workers scale on, and its parts ``verifier_queue_depth`` waiting and
``verifier_jobs_running`` running) and the counts of how jobs ended are read from Redis at scrape
time: jobs end in workers (or in a reaper, for a job whose worker died), which count them as they
publish the outcome, so a failed job and a verdict fetched later through GET /v1/jobs are counted
once each, whoever asks. Those are properties of the shared service, so every API replica reports
the same figures (aggregate with max, not sum); cache hits are this process's own (sum them).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.metrics_core import CounterMetricFamily, Metric
from prometheus_client.registry import Collector

from vrpcoder_verifier.jobs import (
    FAILED_BATCHES_FIELD,
    FAILED_DRAINS_FIELD,
    FAILED_FIELD,
    VERDICT_FIELD_PREFIX,
)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True, slots=True)
class JobOutcomes:
    """How the service's jobs ended so far, as counted in Redis by whoever ended them."""

    failed: int = 0
    verdicts: Mapping[str, int] = field(default_factory=dict)
    """Finished jobs by the verdict's error kind (``none`` for a clean pass or fail)."""
    failed_drains: int = 0
    """Drains that failed (rq gave up on them, or they could not read their batch's configuration)."""
    failed_batches: int = 0
    """Batches whose waiting items were failed whole (unreadable configuration, hand-over budget spent)."""

    @classmethod
    def of(cls, stats: Mapping[bytes | str, bytes | str]) -> JobOutcomes:
        counts = {_text(key): int(_text(value)) for key, value in stats.items()}
        verdicts = {k.removeprefix(VERDICT_FIELD_PREFIX): n for k, n in counts.items() if k.startswith(VERDICT_FIELD_PREFIX)}
        return cls(failed=counts.get(FAILED_FIELD, 0), verdicts=verdicts,
                   failed_drains=counts.get(FAILED_DRAINS_FIELD, 0), failed_batches=counts.get(FAILED_BATCHES_FIELD, 0))


class _EndedJobs(Collector):
    """Counters whose totals live in Redis: set at scrape time, reported as they were last read."""

    def __init__(self) -> None:
        self.outcomes = JobOutcomes()
        self.cached: dict[str, int] = {}

    def collect(self) -> Iterator[Metric]:
        verdicts = CounterMetricFamily(
            "verifier_verdicts",
            "Verdicts by error kind ('none' for a clean pass or fail) and source: 'job' counts every job "
            "of the service that ended with a verdict (read from Redis), 'cache' the answers this process "
            "served from the cache.",
            labels=["error_kind", "source"],
        )
        for kind, count in sorted(self.outcomes.verdicts.items()):
            verdicts.add_metric([kind, "job"], count)
        for kind, count in sorted(self.cached.items()):
            verdicts.add_metric([kind, "cache"], count)
        yield verdicts
        failed = CounterMetricFamily(
            "verifier_failed_jobs", "Jobs of the service that ended without a verdict (read from Redis)."
        )
        failed.add_metric([], self.outcomes.failed)
        yield failed
        drains = CounterMetricFamily(
            "verifier_failed_drains",
            "Drain jobs that failed: rq gave up on them (their worker died, no retry left), or they could not "
            "read their batch's configuration (read from Redis). A poison batch shows here.",
        )
        drains.add_metric([], self.outcomes.failed_drains)
        yield drains
        batches = CounterMetricFamily(
            "verifier_failed_batches",
            "Batches whose waiting items were all failed at once: a configuration no drain can read, or handed "
            "to fresh drains too often without progress (read from Redis).",
        )
        batches.add_metric([], self.outcomes.failed_batches)
        yield batches

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)
    _hits: int = 0
    _lookups: int = 0

    def __post_init__(self) -> None:
        r = self.registry
        self.backlog = Gauge(
            "verifier_backlog_items",
            "Items (candidates) accepted and not yet ended, waiting or running, batches and single requests alike: "
            "what the workers scale on (Redis sorted set <key_prefix>:backlog).",
            registry=r,
        )
        self.queue_depth = Gauge("verifier_queue_depth", "Items waiting for a worker (the backlog less the running).", registry=r)
        self.running = Gauge("verifier_jobs_running", "Items a worker has taken and not yet finished.", registry=r)
        self.workers = Gauge("verifier_workers_alive", "Workers with a fresh heartbeat.", registry=r)
        self.job_latency = Histogram(
            "verifier_job_latency_seconds",
            "Seconds from enqueue to verdict, for jobs this API process waited on.",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self._ended = _EndedJobs()
        r.register(self._ended)
        self.cache_hits = Counter("verifier_cache_hits_total", "Verification requests answered from the cache.", registry=r)
        self.cache_misses = Counter("verifier_cache_misses_total", "Verification requests that needed a job.", registry=r)
        self.cache_hit_ratio = Gauge(
            "verifier_cache_hit_ratio", "Cache hits over all verification requests since start.", registry=r
        )

    def observe_cached(self, error_kind: str) -> None:
        """Count a verdict served from the cache by its error kind (``none`` for a clean pass or
        fail), e.g. one served unparsed. Verdicts of jobs are counted where the job ends."""
        self._ended.cached[error_kind] = self._ended.cached.get(error_kind, 0) + 1

    def observe_lookup(self, hits: int, misses: int) -> None:
        self.cache_hits.inc(hits)
        self.cache_misses.inc(misses)
        self._hits += hits
        self._lookups += hits + misses

    def render(self, *, backlog: int, running: int, workers: int, ended: JobOutcomes | None = None) -> bytes:
        """The exposition text (-1 for what Redis did not answer); ``ended`` None (Redis away) keeps
        the counts last read."""
        if ended is not None:
            self._ended.outcomes = ended
        self.backlog.set(backlog)
        self.queue_depth.set(backlog - running if backlog >= 0 and running >= 0 else -1)
        self.running.set(running)
        self.workers.set(workers)
        self.cache_hit_ratio.set(self._hits / self._lookups if self._lookups else 0.0)
        return generate_latest(self.registry)

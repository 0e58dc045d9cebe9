"""Prometheus metrics of one API process, in a registry of its own.

A private registry (not the global default) lets several apps live in one test process without
duplicate-metric errors. Queue depth is read from Redis at scrape time: it is a property of the
shared queue, so every API replica reports the same figure (aggregate with max, not sum).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from vrpcoder.verification import Verdict

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)
    _hits: int = 0
    _lookups: int = 0

    def __post_init__(self) -> None:
        r = self.registry
        self.queue_depth = Gauge("verifier_queue_depth", "Jobs waiting in the rq queue.", registry=r)
        self.running = Gauge("verifier_jobs_running", "Jobs a worker has started and not finished.", registry=r)
        self.workers = Gauge("verifier_workers_alive", "Workers with a fresh heartbeat.", registry=r)
        self.job_latency = Histogram(
            "verifier_job_latency_seconds",
            "Seconds from enqueue to verdict, for jobs this API process waited on.",
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.verdicts = Counter(
            "verifier_verdicts_total",
            "Verdicts returned, by error kind ('none' for a clean pass or fail) and source.",
            ["error_kind", "source"],
            registry=r,
        )
        self.failed_jobs = Counter("verifier_failed_jobs_total", "Jobs that ended without a verdict.", registry=r)
        self.cache_hits = Counter("verifier_cache_hits_total", "Verification requests answered from the cache.", registry=r)
        self.cache_misses = Counter("verifier_cache_misses_total", "Verification requests that needed a job.", registry=r)
        self.cache_hit_ratio = Gauge(
            "verifier_cache_hit_ratio", "Cache hits over all verification requests since start.", registry=r
        )

    def observe_verdict(self, verdict: Verdict, *, cached: bool) -> None:
        self.observe_kind(verdict.error.kind.value if verdict.error is not None else "none", cached=cached)

    def observe_kind(self, error_kind: str, *, cached: bool) -> None:
        """Count a verdict by its error kind (``none`` for a clean pass or fail), e.g. one served unparsed."""
        self.verdicts.labels(error_kind=error_kind, source="cache" if cached else "job").inc()

    def observe_lookup(self, hits: int, misses: int) -> None:
        self.cache_hits.inc(hits)
        self.cache_misses.inc(misses)
        self._hits += hits
        self._lookups += hits + misses

    def render(self, *, queue_depth: int, running: int, workers: int) -> bytes:
        self.queue_depth.set(queue_depth)
        self.running.set(running)
        self.workers.set(workers)
        self.cache_hit_ratio.set(self._hits / self._lookups if self._lookups else 0.0)
        return generate_latest(self.registry)

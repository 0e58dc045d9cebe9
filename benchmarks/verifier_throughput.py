"""Throughput and latency of the verifier service against the same candidates run in-process.

Three ways to run the same candidate scripts (gold scripts of small samples, each made unique so
the cache cannot answer): in-process ``verify`` (no sandbox, no queue), and the HTTP service (API
+ Redis + rq) with 1 and with 2 workers. For each: median and p99 per-job latency (one request at
a time) and jobs/s (all jobs submitted at once as one batch). Then the cache: the same requests
again, as single requests and as one batch. Issue targets: median service overhead <= 15 ms/job,
throughput >= 90 % of in-process on the same cores, cache hits >= 1000 verifications/s.

    .venv/bin/python benchmarks/verifier_throughput.py [--jobs 40] [--executor auto|sandbox|in-process]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from rich.console import Console
from rich.table import Table
from vrpcoder.samples import Sample, build_grid_point
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_verifier.client import AsyncVerifierClient, VerifierClient
from vrpcoder_verifier.schemas import VerifyOptions
from vrpcoder_verifier.stack import LocalStack, local_redis, purge, stack_settings

POINTS = (("CVRP", 1), ("TSP", 1), ("VRPHTW", 1), ("CVRP", 2), ("DCVRP", 1))
OPTIONS = VerifyOptions(time_limit=30.0)
CONFIG = VerifyConfig(time_limit=30.0)
console = Console()


@dataclass(frozen=True, slots=True)
class Figures:
    name: str
    median_ms: float
    p99_ms: float
    jobs_per_s: float


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _jobs(count: int) -> list[tuple[str, Sample]]:
    samples = [build_grid_point(v, p, 0).samples[0] for v, p in POINTS]
    return [(samples[i % len(samples)].gold_code, samples[i % len(samples)]) for i in range(count)]


def _unique(jobs: list[tuple[str, Sample]], tag: str) -> list[tuple[str, Sample]]:
    """Same scripts, new text: a trailing comment defeats the cache without changing the work."""
    return [(f"{code}\n# {tag} {i}\n", sample) for i, (code, sample) in enumerate(jobs)]


def _timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def in_process(jobs: list[tuple[str, Sample]]) -> Figures:
    latencies = [_timed(partial(verify, code, sample, CONFIG)) for code, sample in jobs]
    return Figures("in-process verify (no sandbox, no queue)", statistics.median(latencies) * 1e3,
                   _percentile(latencies, 0.99) * 1e3, len(jobs) / sum(latencies))


def sandbox_direct(jobs: list[tuple[str, Sample]], executor: str) -> Figures | None:
    """The executor the workers use, called directly: separates the sandbox's cost from the queue's."""
    from vrpcoder_verifier.settings import Settings
    from vrpcoder_verifier.worker import InProcessExecutor, NoSandboxError, build_executor

    try:
        runner = build_executor(Settings(executor=executor))
    except NoSandboxError:
        return None
    if isinstance(runner, InProcessExecutor):
        return None
    for code, sample in jobs[: len(POINTS)]:
        runner.verify(code, sample, CONFIG)
    latencies = [_timed(partial(runner.verify, code, sample, CONFIG)) for code, sample in jobs]
    return Figures("sandbox executor directly (no queue, no HTTP)", statistics.median(latencies) * 1e3,
                   _percentile(latencies, 0.99) * 1e3, len(jobs) / sum(latencies))


def through_service(stack: LocalStack, jobs: list[tuple[str, Sample]], name: str) -> Figures:
    with VerifierClient(stack.base_url, stack.token, timeout=600) as client:
        for sample in {id(s): s for _, s in jobs}.values():
            client.register_sample(sample)
        single = _unique(jobs, f"{name} single")
        latencies = [_timed(partial(client.verify, code, sample, options=OPTIONS)) for code, sample in single]
        batch = _unique(jobs, f"{name} batch")
        seconds = _timed(lambda: client.verify_batch([c for c, _ in batch], [s for _, s in batch], options=OPTIONS, wait=60))
    return Figures(name, statistics.median(latencies) * 1e3, _percentile(latencies, 0.99) * 1e3, len(jobs) / seconds)


def cache_rates(stack: LocalStack, jobs: list[tuple[str, Sample]], repeats: int) -> tuple[float, float, float]:
    """(single requests/s one at a time, single requests/s 32 concurrent, batched verifications/s), all cache hits."""
    warm = _unique(jobs, "cache")
    codes, samples = [c for c, _ in warm], [s for _, s in warm]
    with VerifierClient(stack.base_url, stack.token, timeout=600) as client:
        first = client.verify_batch(codes, samples, options=OPTIONS)
        assert all(r.done for r in first)
        sequential = _timed(lambda: [client.verify(c, s, options=OPTIONS) for c, s in warm])
        batched = _timed(lambda: [client.verify_batch(codes, samples, options=OPTIONS) for _ in range(repeats)])
        assert all(r.cached for r in client.verify_batch(codes, samples, options=OPTIONS))

    async def concurrent() -> float:
        async with AsyncVerifierClient(stack.base_url, stack.token, max_connections=32) as aclient:
            for sample in {id(s): s for s in samples}.values():
                await aclient.register_sample(sample)
            gate = asyncio.Semaphore(32)

            async def one(code: str, sample: Sample) -> None:
                async with gate:
                    await aclient.verify(code, sample, options=OPTIONS)

            started = time.perf_counter()
            await asyncio.gather(*(one(c, s) for _ in range(repeats) for c, s in warm))
            return time.perf_counter() - started

    parallel = asyncio.run(concurrent())
    return len(warm) / sequential, repeats * len(warm) / parallel, repeats * len(warm) / batched


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=40)
    parser.add_argument("--executor", choices=("auto", "sandbox", "in-process"), default="auto")
    args = parser.parse_args()
    jobs = _jobs(args.jobs)
    for code, sample in jobs[: len(POINTS)]:
        verify(code, sample, CONFIG)  # warm Gurobi and imports, as the workers are warm
    rows = [in_process(jobs)]
    direct = sandbox_direct(jobs, args.executor)
    cache: tuple[float, float, float] | None = None
    with local_redis() as redis_url:
        for workers in (1, 2):
            settings = stack_settings(redis_url, executor=args.executor, check_licence=False)
            try:
                with LocalStack(settings, workers=workers) as stack:
                    through_service(stack, jobs[: len(POINTS)], "warm-up")
                    rows.append(through_service(stack, jobs, f"HTTP service, {workers} worker{'s' * (workers > 1)}"))
                    if workers == 2:
                        cache = cache_rates(stack, jobs, repeats=10)
            finally:
                purge(settings)
    if direct is not None:
        rows.append(direct)
    table = Table(title=f"verifier throughput: {len(jobs)} jobs, executor {args.executor}")
    for col in ("path", "median ms/job", "p99 ms/job", "jobs/s"):
        table.add_column(col, justify="left" if col == "path" else "right")
    for row in rows:
        table.add_row(row.name, f"{row.median_ms:.1f}", f"{row.p99_ms:.1f}", f"{row.jobs_per_s:.1f}")
    console.print(table)
    base, one, two = rows[0], rows[1], rows[2]
    console.print(f"median overhead of the service (1 worker) over in-process: {one.median_ms - base.median_ms:.1f} ms/job (target <= 15)")
    console.print(f"throughput, 1 worker vs in-process on one core: {100 * one.jobs_per_s / base.jobs_per_s:.0f} % (target >= 90 %)")
    console.print(f"throughput, 2 workers vs in-process on one core: {100 * two.jobs_per_s / base.jobs_per_s:.0f} %")
    if direct is not None:
        console.print(f"of which the sandbox (direct, per job): {direct.median_ms - base.median_ms:.1f} ms; "
                      f"queue + HTTP: {one.median_ms - direct.median_ms:.1f} ms")
    if cache is not None:
        console.print(
            f"cache hits: {cache[0]:.0f}/s one request at a time, {cache[1]:.0f}/s with 32 concurrent requests, "
            f"{cache[2]:.0f} verifications/s in batches of {len(jobs)} (target >= 1000/s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

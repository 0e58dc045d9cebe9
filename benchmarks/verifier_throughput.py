"""Throughput and latency of the verifier service against the same candidates run in-process.

The candidates are gold scripts of small samples, each made unique by a trailing comment so that
the cache cannot answer. They are run

* in-process: ``verify`` with no sandbox and no queue, in 1 process and in as many processes as
  the service gets workers (the "same cores" comparison: N workers against N plain processes);
* through the sandbox executor directly (no queue, no HTTP), to separate its cost from the queue's;
* through the HTTP service (API + Redis + rq workers + sandboxes) with 1 and with 2 workers.

Latency is per job with one request at a time; jobs/s is all jobs submitted at once (one batch
request). Every service or sandbox figure is compared with in-process runs taken right beside it:
each single request follows the same job run in-process, and each batch sits between two in-process
passes over the same jobs. The speed of a shared (virtual) machine drifts by tens of percent over
minutes, so baselines taken minutes earlier made the ratios measure the drift. For the service runs the CPU each process spent per job is printed too: on a machine
whose cores are shared with everything else, that is what explains a throughput figure. Then the
cache: the same requests again, one at a time, 32 at a time, and as batches. Issue targets:
median service overhead <= 15 ms/job, throughput >= 90 % of in-process on the same cores, cache
hits >= 1000 verifications/s.

Two more modes answer questions of a training run:

* ``--mode scaling``: one batch of ``--jobs`` jobs through the service with N = 1 .. cores - 2
  workers (at least 1 and 2), jobs/s per N against 0.8 x N times the 1-worker figure, beside N plain
  in-process verifiers;
* ``--mode loop-group``: a GRPO group of 8 whose first member loops forever in ``build_model``
  (busy, burning a core, and sleeping, holding only a worker), against the other 7 sent alone:
  how long the 7 take in each case (target: within 1.5 x with >= 2 workers).

    .venv/bin/python benchmarks/verifier_throughput.py [--mode full|scaling|loop-group] [--jobs 40]
        [--size small|medium] [--executor auto|sandbox|in-process] [--workers 2 3]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import multiprocessing
import os
import statistics
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from rich.console import Console
from rich.table import Table
from vrpcoder.samples import Sample, build_grid_point, build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_client.client import AsyncVerifierClient, VerifierClient
from vrpcoder_verifier.sandbox.prefault import PageSpans, populate, probed_spans
from vrpcoder_verifier.schemas import VerifyOptions
from vrpcoder_verifier.stack import LocalStack, local_redis, purge, stack_settings

POINTS = (("CVRP", 1), ("TSP", 1), ("VRPHTW", 1), ("CVRP", 2), ("DCVRP", 1))
SIZES: dict[str, int | None] = {"small": None, "medium": 11}
"""Customers per instance: ``small`` keeps each profile's own (tiny: jobs of about 20 ms, where the
service's fixed cost per job weighs most); ``medium`` has 11 (jobs of 35-270 ms,
nearer what training and evaluation send)."""
OPTIONS = VerifyOptions(time_limit=30.0)
CONFIG = VerifyConfig(time_limit=30.0, threads=1)
"""What the service runs: one Gurobi thread per job."""
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
console = Console()

Job = tuple[str, Sample]


@dataclass(frozen=True, slots=True)
class Figures:
    name: str
    median_ms: float | None
    p99_ms: float | None
    jobs_per_s: float | None
    cpu_ms: dict[str, float] = field(default_factory=dict)
    """CPU milliseconds per job by process (service runs only)."""
    latencies: tuple[float, ...] = ()
    """Seconds per job, in job order (one request at a time)."""


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _sample(variant: str, profile: int, customers: int | None) -> Sample:
    if customers is None:
        return build_grid_point(variant, profile, 0).samples[0]
    return build_samples(sample_instance(variant, profile, 0, customers=customers), seed=0).samples[0]


def _jobs(count: int, customers: int | None) -> list[Job]:
    samples = [_sample(v, p, customers) for v, p in POINTS]
    return [(samples[i % len(samples)].gold_code, samples[i % len(samples)]) for i in range(count)]


def _unique(jobs: list[Job], tag: str) -> list[Job]:
    """Same scripts, new text: a trailing comment defeats the cache without changing the work."""
    return [(f"{code}\n# {tag} {i}\n", sample) for i, (code, sample) in enumerate(jobs)]


def _timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def _latencies(name: str, latencies: list[float], jobs_per_s: float | None) -> Figures:
    return Figures(
        name, statistics.median(latencies) * 1e3, _percentile(latencies, 0.99) * 1e3, jobs_per_s,
        latencies=tuple(latencies),
    )


def overhead_ms(path: Figures, base: Figures) -> float:
    """Median over jobs of (this path's latency - in-process latency) for the same job: paired, so
    that a mix of short and long jobs does not make the difference of two medians jump around."""
    return statistics.median(a - b for a, b in zip(path.latencies, base.latencies, strict=True)) * 1e3


def _verify_job(job: Job) -> bool:
    return verify(job[0], job[1], CONFIG).passed


def in_process_parallel(jobs: list[Job], processes: int) -> Figures:
    """``processes`` plain verifiers side by side: what the same cores do with no service at all."""
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        pool.map(_verify_job, jobs[: len(POINTS) * processes], chunksize=1)
        seconds = _timed(lambda: pool.map(_verify_job, jobs, chunksize=1))
    return Figures(f"in-process verify, {processes} processes", None, None, len(jobs) / seconds)


def sandbox_direct(jobs: list[Job], executor: str) -> tuple[Figures, Figures] | None:
    """The executor the workers use, called directly: separates the sandbox's cost from the queue's.
    Returns (sandbox, in-process), each job run in-process just before it runs in the sandbox."""
    from vrpcoder_verifier.settings import Settings
    from vrpcoder_verifier.executors import InProcessExecutor, NoSandboxError, build_executor

    try:
        runner = build_executor(Settings(executor=executor))
    except NoSandboxError:
        return None
    if isinstance(runner, InProcessExecutor):
        return None
    for code, sample in jobs[: len(POINTS)]:
        runner.verify(code, sample, CONFIG)
    plain: list[float] = []
    boxed: list[float] = []
    for code, sample in jobs:
        plain.append(_timed(partial(verify, code, sample, CONFIG)))
        boxed.append(_timed(partial(runner.verify, code, sample, CONFIG)))
    return (
        _latencies("sandbox executor directly (no queue, no HTTP)", boxed, len(jobs) / sum(boxed)),
        _latencies("  in-process, interleaved with it", plain, len(jobs) / sum(plain)),
    )


@dataclass(frozen=True, slots=True)
class ProcessFloor:
    """What a fresh process per job costs at the least, measured on this process: a fork, the copies
    of the pages one of these jobs writes, and the exit."""

    pages: int
    cpu_ms: float
    job_cpu_ms: float

    @property
    def ceiling(self) -> float:
        """The best throughput a process per job can reach against in-process with every core busy."""
        return self.job_cpu_ms / (self.job_cpu_ms + self.cpu_ms)


def _pages_a_job_writes(job: Job) -> PageSpans:
    """Fork a child that runs the job and waits; read from here which pages it copied."""
    ready_r, ready_w = os.pipe()
    release_r, release_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            verify(job[0], job[1], CONFIG)
            os.write(ready_w, b"1")
            os.read(release_r, 1)
        finally:
            os._exit(0)
    try:
        os.read(ready_r, 1)
        return probed_spans(pid)
    finally:
        os.write(release_w, b"1")
        os.waitpid(pid, 0)
        for fd in (ready_r, ready_w, release_r, release_w):
            os.close(fd)


def process_floor(jobs: list[Job], rounds: int = 40) -> ProcessFloor:
    """Fork, copy a job's pages, exit, ``rounds`` times: the CPU that no sandbox design built on a
    fresh forked process per job can avoid (the kernel's work only; bubblewrap, hand-offs and the
    supervisor come on top)."""
    spans = PageSpans(spans=_pages_a_job_writes(jobs[0]).spans)
    job_cpu = time.process_time()
    for code, sample in jobs[:rounds]:
        verify(code, sample, CONFIG)
    job_cpu = (time.process_time() - job_cpu) / min(rounds, len(jobs))
    started = os.times()
    for _ in range(rounds):
        pid = os.fork()
        if pid == 0:
            populate(spans)
            os._exit(0)
        os.waitpid(pid, 0)
    ended = os.times()
    spent = sum(ended[:4]) - sum(started[:4])
    return ProcessFloor(pages=spans.pages, cpu_ms=spent / rounds * 1e3, job_cpu_ms=job_cpu * 1e3)


def _tree_cpu(pid: int) -> float:
    """CPU seconds of a process and all its descendants, reaped ones included."""
    total, pending = 0.0, [pid]
    while pending:
        current = pending.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            children = [
                int(child)
                for task in os.listdir(f"/proc/{current}/task")
                for child in Path(f"/proc/{current}/task/{task}/children").read_text().split()
            ]
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15]) / CLOCK_TICKS
        pending.extend(children)
    return total


def _redis_pid(port: int) -> int | None:
    """The redis-server whose command line names ``port``. Redis rewrites its own title to
    ``redis-server HOST:PORT``, so the words are split on spaces as well as NULs."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                words = (entry / "cmdline").read_bytes().replace(b"\0", b" ").split()
            except OSError:
                continue
            if words and words[0].endswith(b"redis-server") and any(str(port).encode() in w for w in words[1:]):
                return int(entry.name)
    return None


@contextmanager
def _cpu_per_job(stack: LocalStack, jobs: int, into: dict[str, float]) -> Iterator[None]:
    """Fills ``into`` with CPU milliseconds per job of the API, the workers (with their sandboxes),
    Redis and this client, over the block."""
    port = int(stack.settings.redis_url.rsplit(":", 1)[1].split("/")[0])
    pids: dict[str, list[int]] = {
        "API": [stack.api_process.pid] if stack.api_process is not None else [],
        "workers + sandboxes": [p.pid for p in stack.worker_processes],
        "Redis": [pid] if (pid := _redis_pid(port)) is not None else [],
    }
    own = os.times()
    before = {name: sum(_tree_cpu(p) for p in group) for name, group in pids.items()}
    yield
    time.sleep(0.3)  # let the sandboxes reap the last job's child
    for name, group in pids.items():
        into[name] = (sum(_tree_cpu(p) for p in group) - before[name]) / jobs * 1e3
    now = os.times()
    into["client"] = (now.user + now.system - own.user - own.system) / jobs * 1e3


def in_process_rate(jobs: list[Job], processes: int) -> float:
    """Jobs/s of ``processes`` plain verifiers side by side (one: this process itself)."""
    if processes == 1:
        return len(jobs) / _timed(lambda: [verify(code, sample, CONFIG) for code, sample in jobs])
    return in_process_parallel(jobs, processes).jobs_per_s or 0.0


@dataclass(frozen=True, slots=True)
class ServiceRun:
    """A service's figures and the in-process figures taken beside them."""

    service: Figures
    baseline: Figures


def through_service(stack: LocalStack, jobs: list[Job], name: str, workers: int) -> ServiceRun:
    cpu: dict[str, float] = {}
    with VerifierClient(stack.base_url, stack.token, timeout=600) as client:
        for sample in {id(s): s for _, s in jobs}.values():
            client.register_sample(sample)
        plain: list[float] = []
        latencies: list[float] = []
        for code, sample in _unique(jobs, f"{name} single"):
            plain.append(_timed(partial(verify, code, sample, CONFIG)))
            latencies.append(_timed(partial(client.verify, code, sample, options=OPTIONS)))
        batch = _unique(jobs, f"{name} batch")
        before = in_process_rate(jobs, workers)
        with _cpu_per_job(stack, len(batch), cpu):
            seconds = _timed(
                lambda: client.verify_batch([c for c, _ in batch], [s for _, s in batch], options=OPTIONS, wait=60)
            )
        after = in_process_rate(jobs, workers)
    service = dataclasses.replace(_latencies(name, latencies, len(jobs) / seconds), cpu_ms=cpu)
    processes = f"{workers} process{'es' * (workers > 1)}"
    baseline = _latencies(f"  in-process, {processes}, beside it", plain, (before + after) / 2)
    return ServiceRun(service, baseline)


def cache_rates(stack: LocalStack, jobs: list[Job], repeats: int) -> tuple[float, float, float]:
    """(single requests/s one at a time, single requests/s 32 concurrent, batched verifications/s), all cache hits."""
    warm = _unique(jobs, "cache")
    codes, samples = [c for c, _ in warm], [s for _, s in warm]
    with VerifierClient(stack.base_url, stack.token, timeout=600) as client:
        first = client.verify_batch(codes, samples, options=OPTIONS)
        if not all(r.done for r in first):
            raise RuntimeError("the cache warm-up batch did not finish")
        sequential = _timed(lambda: [client.verify(c, s, options=OPTIONS) for _ in range(repeats) for c, s in warm])
        batched = _timed(lambda: [client.verify_batch(codes, samples, options=OPTIONS) for _ in range(repeats)])
        if not all(r.cached for r in client.verify_batch(codes, samples, options=OPTIONS)):
            raise RuntimeError("a repeated request was not answered from the cache")

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
    total = repeats * len(warm)
    return total / sequential, total / parallel, total / batched


def _table(rows: list[Figures], title: str) -> Table:
    table = Table(title=title)
    for col in ("path", "median ms/job", "p99 ms/job", "jobs/s"):
        table.add_column(col, justify="left" if col == "path" else "right")
    for row in rows:
        cells = [f"{value:.1f}" if value is not None else "-" for value in (row.median_ms, row.p99_ms, row.jobs_per_s)]
        table.add_row(row.name, *cells)
    return table


def _ratio(numerator: float | None, denominator: float | None) -> str:
    return f"{100 * numerator / denominator:.0f} %" if numerator and denominator else "n/a"


def scaling_counts(cores: int) -> list[int]:
    """Worker counts 1 .. cores - 2 (two cores stay for the API, Redis and the client), at least 1 and 2."""
    return list(range(1, max(2, cores - 2) + 1))


def _batch_rate(stack: LocalStack, jobs: list[Job], tag: str) -> float:
    """Jobs/s of one batch of ``jobs`` (made unique by ``tag``) through the service."""
    batch = _unique(jobs, tag)
    with VerifierClient(stack.base_url, stack.token, timeout=900) as client:
        for sample in {id(s): s for _, s in jobs}.values():
            client.register_sample(sample)
        seconds = _timed(lambda: client.verify_batch([c for c, _ in batch], [s for _, s in batch], options=OPTIONS, wait=60))
    return len(batch) / seconds


def scaling(jobs: list[Job], executor: str, rounds: int) -> None:
    """Jobs/s of one batch with N = 1 .. cores - 2 workers, against N in-process verifiers."""
    cores = os.cpu_count() or 1
    table = Table(title=f"scaling: one batch of {len(jobs)} jobs, executor {executor}, {cores} cores (best of {rounds})")
    for col in ("workers", "service jobs/s", "x 1 worker", "target 0.8 x N", "in-process N procs jobs/s", "service / in-process"):
        table.add_column(col, justify="right")
    first: float | None = None
    with local_redis() as redis_url:
        for workers in scaling_counts(cores):
            settings = stack_settings(redis_url, executor=executor, check_licence=False)
            try:
                with LocalStack(settings, workers=workers) as stack:
                    time.sleep(2 * settings.worker_heartbeat_seconds)  # every worker is counted alive
                    _batch_rate(stack, jobs[: 2 * workers], "warm-up")
                    rate = max(_batch_rate(stack, jobs, f"scaling {workers} round {r}") for r in range(rounds))
            finally:
                purge(settings)
            plain = in_process_rate(jobs, workers)
            first = first or rate
            table.add_row(str(workers), f"{rate:.1f}", f"{rate / first:.2f}", f"{0.8 * workers:.1f}", f"{plain:.1f}", _ratio(rate, plain))
    console.print(table)


LOOPS = {
    "busy loop": "def build_model():\n    while True:\n        pass\n",
    "sleeping loop": "def build_model():\n    import time\n    while True:\n        time.sleep(1)\n",
}
"""Members that never finish their build: one burns a core until its wall limit, one only holds a worker."""
LOOP_OPTIONS = VerifyOptions(time_limit=2.0)
"""A short time limit keeps each loop's derived wall limit (and the benchmark) short; the gold jobs
need far less."""


def _seven(client: VerifierClient, group: list[Job], loop: str | None, tag: str) -> float:
    """Seconds until the 7 members after the first have their verdicts (the first: ``loop`` or absent)."""
    members = _unique(group, tag)
    codes, samples = [c for c, _ in members], [s for _, s in members]
    if loop is not None:
        codes, samples = [loop, *codes], [samples[0], *samples]
    started = time.perf_counter()
    pending = client.verify_batch(codes, samples, options=LOOP_OPTIONS, wait=0.0, until_done=False)
    done = client.wait(pending[-len(members):], timeout=600)
    seconds = time.perf_counter() - started
    if not all(r.reward == 1.0 for r in done):
        raise RuntimeError(f"a gold member did not earn 1.0: {[r.reward for r in done]}")
    if loop is not None:
        client.wait(pending[:1], timeout=600)  # the loop ends at its wall limit; the next round starts clean
    return seconds


def loop_group(jobs: list[Job], executor: str, worker_counts: Sequence[int], rounds: int) -> None:
    """A group of 8 with one looping member against its 7 other members alone, per worker count."""
    group = jobs[:7]
    table = Table(title=f"a group of 8 with one looping member, executor {executor}, {os.cpu_count()} cores "
                        f"(median of {rounds} rounds)")
    for col in ("workers", "loop", "7 alone s", "7 beside the loop s", "ratio (target <= 1.5)"):
        table.add_column(col, justify="left" if col == "loop" else "right")
    with local_redis() as redis_url:
        for workers in worker_counts:
            settings = stack_settings(redis_url, executor=executor, check_licence=False, job_build_seconds=2.0,
                                      job_grace_seconds=2.0)
            try:
                with LocalStack(settings, workers=workers) as stack, VerifierClient(stack.base_url, stack.token, timeout=900) as client:
                    time.sleep(2 * settings.worker_heartbeat_seconds)
                    for sample in {id(s): s for _, s in group}.values():
                        client.register_sample(sample)
                    _seven(client, group, None, "warm-up")
                    for name, loop in LOOPS.items():
                        alone = statistics.median(_seven(client, group, None, f"{name} alone {r}") for r in range(rounds))
                        beside = statistics.median(
                            _seven(client, group, f"{loop}# round {r}\n", f"{name} beside {r}") for r in range(rounds)
                        )
                        table.add_row(str(workers), name, f"{alone:.2f}", f"{beside:.2f}", f"{beside / alone:.2f}")
            finally:
                purge(settings)
    console.print(table)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("full", "scaling", "loop-group"), default="full")
    parser.add_argument("--jobs", type=int, default=40)
    parser.add_argument("--executor", choices=("auto", "sandbox", "in-process"), default="auto")
    parser.add_argument("--cache-repeats", type=int, default=10, help="Rounds of cache-hit requests.")
    parser.add_argument("--size", choices=tuple(SIZES), default="small", help="Instance size of the jobs.")
    parser.add_argument("--rounds", type=int, default=3, help="Rounds per figure in the scaling and loop-group modes.")
    parser.add_argument("--workers", type=int, nargs="+", default=[2, 3], help="Worker counts of the loop-group mode.")
    args = parser.parse_args()
    jobs = _jobs(args.jobs, SIZES[args.size])
    for code, sample in jobs[: len(POINTS)]:
        verify(code, sample, CONFIG)  # warm Gurobi and imports, as the workers are warm
    if args.mode == "scaling":
        scaling(jobs, args.executor, args.rounds)
        return 0
    if args.mode == "loop-group":
        loop_group(jobs, args.executor, args.workers, args.rounds)
        return 0
    floor = process_floor(jobs)
    direct = sandbox_direct(jobs, args.executor)
    runs: dict[int, ServiceRun] = {}
    cache: tuple[float, float, float] | None = None
    with local_redis() as redis_url:
        for workers in (1, 2):
            settings = stack_settings(redis_url, executor=args.executor, check_licence=False)
            try:
                with LocalStack(settings, workers=workers) as stack:
                    through_service(stack, jobs[: len(POINTS)], "warm-up", workers)
                    name = f"HTTP service, {workers} worker{'s' * (workers > 1)}"
                    runs[workers] = through_service(stack, jobs, name, workers)
                    if workers == 2:
                        cache = cache_rates(stack, jobs, repeats=args.cache_repeats)
            finally:
                purge(settings)
    rows = [*(direct or ()), *(figures for run in runs.values() for figures in (run.service, run.baseline))]
    console.print(_table(rows, f"verifier throughput: {len(jobs)} {args.size} jobs, executor {args.executor}, {os.cpu_count()} cores"))
    cpu = Table(title="CPU ms per job in the batch runs, by process")
    names = list(runs[1].service.cpu_ms)
    cpu.add_column("service")
    for name in names:
        cpu.add_column(name, justify="right")
    cpu.add_column("total", justify="right")
    for run in runs.values():
        cpu.add_row(run.service.name, *(f"{run.service.cpu_ms[n]:.1f}" for n in names), f"{sum(run.service.cpu_ms.values()):.1f}")
    console.print(cpu)
    one, two = runs[1], runs[2]
    service_overhead = overhead_ms(one.service, one.baseline)
    console.print(f"median overhead of the service (1 worker, one request at a time) over in-process, paired by job: "
                  f"{service_overhead:.1f} ms/job (target <= 15)")
    if direct is not None:
        console.print(f"  the sandbox alone (executor called directly), paired the same way: {overhead_ms(*direct):.1f} ms/job")
    console.print(
        f"floor of a fresh process per job on this machine: {floor.cpu_ms:.1f} ms CPU (fork, copying the "
        f"{floor.pages} pages a job writes, exit) against {floor.job_cpu_ms:.1f} ms for the job itself: with "
        f"every core busy, about {100 * floor.ceiling:.0f} % of in-process at most (an estimate from one job's pages)"
    )
    console.print(f"throughput, 1 worker vs 1 in-process verifier: "
                  f"{_ratio(one.service.jobs_per_s, one.baseline.jobs_per_s)} (target >= 90 %)")
    console.print(f"throughput, 2 workers vs 2 in-process verifiers (same cores): "
                  f"{_ratio(two.service.jobs_per_s, two.baseline.jobs_per_s)}")
    console.print(f"throughput, 2 workers vs 1 in-process verifier: {_ratio(two.service.jobs_per_s, one.baseline.jobs_per_s)}")
    if cache is not None:
        console.print(
            f"cache hits: {cache[0]:.0f}/s one request at a time, {cache[1]:.0f}/s with 32 concurrent requests, "
            f"{cache[2]:.0f} verifications/s in batches of {len(jobs)} (target >= 1000/s)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

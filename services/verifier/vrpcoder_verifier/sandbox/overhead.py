"""What the sandbox costs per job, against the in-process verifier on the same candidate.

The two are run interleaved (in-process, sandbox, in-process, ...) so that both see the same
load; on a shared machine medians still move with everyone else's work, so CPU milliseconds per
job are printed too (for the sandbox: this process during its jobs plus everything the sandbox's
processes spent over the whole run, between-jobs work included). ``gap`` seconds of idle
time before each job let the sandbox do its between-jobs work (reaping, sweeping, forking the
next spare) off the clock, as it does in a service that is not saturated. Run::

    python -m vrpcoder_verifier.sandbox.overhead [jobs] [gap_seconds]
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict
from vrpcoder.samples import Sample, build_grid_point
from vrpcoder.verification import VerifyConfig, verify

from vrpcoder_verifier.sandbox.executor import SandboxExecutor
from vrpcoder_verifier.sandbox.policy import SandboxPolicy

TRIVIAL = """import gurobipy as gp

def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    m.optimize()
    return m
"""
"""Builds and solves an empty model: nearly all of its cost is the harness around it."""


class Cost(BaseModel):
    model_config = ConfigDict(frozen=True)

    median_ms: float
    p90_ms: float
    cpu_ms: float


class _Meter:
    """Wall times of one kind of job and the CPU this process spent in them."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.cpu = 0.0

    def run(self, job: Callable[[], object]) -> None:
        cpu_started = _own_cpu_seconds()
        started = time.perf_counter()
        job()
        self.times.append(time.perf_counter() - started)
        self.cpu += _own_cpu_seconds() - cpu_started

    def cost(self) -> Cost:
        ordered = sorted(self.times)
        return Cost(
            median_ms=ordered[len(ordered) // 2] * 1000,
            p90_ms=ordered[int(0.9 * (len(ordered) - 1))] * 1000,
            cpu_ms=self.cpu / len(ordered) * 1000,
        )


_SETTLE_SECONDS = 0.2
"""Lets the sandbox reap the last job's child, so that its CPU time is counted."""


def _own_cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def compare(code: str, sample: Sample, config: VerifyConfig, *, jobs: int, gap: float) -> tuple[Cost, Cost]:
    """(in-process, warm sandbox) costs of verifying ``code``, interleaved job by job."""
    with SandboxExecutor(SandboxPolicy(warm_jobs=2 * jobs + 10)) as executor:
        executor.warm_up()
        executor.verify(code, sample, config)
        verify(code, sample, config)
        plain, boxed = _Meter(), _Meter()
        sandbox_started = executor.sandbox_cpu_seconds()
        for _ in range(jobs):
            time.sleep(gap)
            plain.run(lambda: verify(code, sample, config))
            time.sleep(gap)
            boxed.run(lambda: executor.verify(code, sample, config))
        time.sleep(_SETTLE_SECONDS)
        boxed.cpu += executor.sandbox_cpu_seconds() - sandbox_started
    return plain.cost(), boxed.cost()


def main(argv: list[str]) -> int:
    jobs = int(argv[0]) if argv else 50
    gap = float(argv[1]) if len(argv) > 1 else 0.02
    sample = build_grid_point("CVRP", 1, 0, time_limit=10).samples[0]
    config = VerifyConfig(time_limit=10.0)
    print(f"{jobs} jobs each, {gap:g} s idle before each job")
    for name, code in (("trivial", TRIVIAL), ("gold CVRP p1", sample.gold_code)):
        plain, boxed = compare(code, sample, config, jobs=jobs, gap=gap)
        print(
            f"{name}: in-process median {plain.median_ms:.1f} ms (p90 {plain.p90_ms:.1f}, cpu {plain.cpu_ms:.1f}); "
            f"sandbox median {boxed.median_ms:.1f} ms (p90 {boxed.p90_ms:.1f}, cpu {boxed.cpu_ms:.1f}); "
            f"overhead median {boxed.median_ms - plain.median_ms:.1f} ms, cpu {boxed.cpu_ms - plain.cpu_ms:.1f} ms"
        )
    cold = _Meter()
    with SandboxExecutor(SandboxPolicy(warm_jobs=1)) as executor:
        for _ in range(5):
            cold.run(lambda: executor.verify(TRIVIAL, sample, config))
    print(f"trivial with a fresh sandbox per job (warm_jobs=1): median {cold.cost().median_ms:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

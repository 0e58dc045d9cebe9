"""What the sandbox costs per job, against the in-process verifier on the same candidate.

Wall-clock medians are what a caller feels, but on a shared machine they move with everyone
else's load; CPU seconds per job (this process plus every process of the sandbox) barely do.
Both are printed. Run::

    python -m vrpcoder_verifier.sandbox.overhead [jobs]
"""

from __future__ import annotations

import resource
import statistics
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


def _own_cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _cost(run: Callable[[], object], jobs: int, other_cpu: Callable[[], float] = lambda: 0.0) -> Cost:
    times: list[float] = []
    cpu_started = _own_cpu_seconds() + other_cpu()
    for _ in range(jobs):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    cpu = _own_cpu_seconds() + other_cpu() - cpu_started
    times.sort()
    return Cost(
        median_ms=statistics.median(times) * 1000, p90_ms=times[int(0.9 * (jobs - 1))] * 1000, cpu_ms=cpu / jobs * 1000
    )


def in_process_cost(code: str, sample: Sample, config: VerifyConfig, jobs: int) -> Cost:
    verify(code, sample, config)
    return _cost(lambda: verify(code, sample, config), jobs)


def sandbox_cost(code: str, sample: Sample, config: VerifyConfig, jobs: int, policy: SandboxPolicy) -> Cost:
    """Per-job cost in one warm sandbox (its start-up excluded; see ``cold_cost``)."""
    with SandboxExecutor(policy) as executor:
        executor.warm_up()
        executor.verify(code, sample, config)
        return _cost(lambda: executor.verify(code, sample, config), jobs, executor.sandbox_cpu_seconds)


def main(argv: list[str]) -> int:
    jobs = int(argv[0]) if argv else 50
    sample = build_grid_point("CVRP", 1, 0, time_limit=10).samples[0]
    config = VerifyConfig(time_limit=10.0)
    policy = SandboxPolicy(warm_jobs=jobs + 10)
    for name, code in (("trivial", TRIVIAL), ("gold CVRP p1", sample.gold_code)):
        plain = in_process_cost(code, sample, config, jobs)
        boxed = sandbox_cost(code, sample, config, jobs, policy)
        print(
            f"{name}: in-process median {plain.median_ms:.1f} ms (p90 {plain.p90_ms:.1f}, cpu {plain.cpu_ms:.1f}); "
            f"sandbox median {boxed.median_ms:.1f} ms (p90 {boxed.p90_ms:.1f}, cpu {boxed.cpu_ms:.1f}); "
            f"overhead median {boxed.median_ms - plain.median_ms:.1f} ms, cpu {boxed.cpu_ms - plain.cpu_ms:.1f} ms"
        )
    with SandboxExecutor(SandboxPolicy(warm_jobs=1)) as executor:
        cold = _cost(lambda: executor.verify(TRIVIAL, sample, config), 5)
    print(f"trivial with a fresh sandbox per job (warm_jobs=1): median {cold.median_ms:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Throughput of the synthesis pipeline through Stages 2-4, and where its time goes.

Stage 1 (sampling, gold solves, probes) is run once up front and its cache is copied into every
measured run, so each figure covers statement writing (Stage 2, with the static fidelity checks),
code rendering and extraction (Stage 3) and verification (Stage 4). The pipeline is run

* with the in-process verifier (no sandbox, no queue), as the baseline of the same work;
* through the verifier service (private redis-server, uvicorn API, rq workers in their sandboxes,
  batch endpoint) with 1 and with 2 workers; every run gets fresh key prefixes, so the service's
  result cache never answers.

Printed per run: work items per minute, statements (sample x path items, mutants excluded) per
minute, and the seconds spent per stage. Offline teacher only: the figures are the pipeline's own
cost, not an LLM's latency.

    .venv/bin/python benchmarks/synth_throughput.py [--variants CVRP VRPHTW ...] [--profiles 1 3]
        [--customers 6] [--workers 1 2] [--batch-size 16] [--no-mutants]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table
from vrpcoder_verifier.stack import LocalStack, RedisServer, purge, stack_settings

from vrpcoder_synth.config import GridConfig, SynthConfig, VerifierConfig
from vrpcoder_synth.pipeline import RunReport, run
from vrpcoder_synth.regenerate import OfflineCoder
from vrpcoder_synth.verifiers import Backend, InProcessBackend, ServiceBackend
from vrpcoder_synth.writers import OfflineWriter

DEFAULT_VARIANTS = ("CVRP", "VRPHTW", "HFVRP", "PDP", "MDVRPSTW", "SDVRP")


def _measure(config: SynthConfig, stage1: Path, workdir: Path, name: str, backend: Backend) -> tuple[RunReport, float]:
    out = workdir / name
    shutil.copytree(stage1 / ".work" / "stage1", out / ".work" / "stage1")
    started = time.perf_counter()
    report = run(config, out, writer=OfflineWriter(), coder=OfflineCoder(), backend=backend, fingerprint="benchmark")
    return report, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(DEFAULT_VARIANTS))
    parser.add_argument("--profiles", nargs="+", type=int, default=[1, 3])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--customers", type=int, default=6)
    parser.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--no-mutants", action="store_true")
    parser.add_argument("--executor", default=os.environ.get("VRPCODER_TEST_EXECUTOR", "auto"))
    args = parser.parse_args()
    console = Console(width=170)
    grid = GridConfig(variants=tuple(args.variants), profiles=tuple(args.profiles), seeds=tuple(args.seeds), customers=args.customers)
    base = SynthConfig(grid=grid, mutants=not args.no_mutants, verifier=VerifierConfig(time_limit=30.0, batch_size=args.batch_size))
    rows: list[tuple[str, RunReport, float]] = []
    with tempfile.TemporaryDirectory(prefix="synth-bench-") as tmp:
        workdir = Path(tmp)
        stage1 = workdir / "stage1"
        started = time.perf_counter()
        run(base, stage1, writer=OfflineWriter(), coder=OfflineCoder(), backend=InProcessBackend(30.0), fingerprint="stage1-only", stop_after=0)
        console.print(f"stage 1 (samples, gold solves, probes): {time.perf_counter() - started:.1f} s")
        report, seconds = _measure(base, stage1, workdir, "inprocess", InProcessBackend(time_limit=30.0))
        rows.append(("in-process verifier", report, seconds))
        server = RedisServer()
        server.start()
        try:
            for workers in args.workers:
                settings = stack_settings(server.url, executor=args.executor, allow_unsandboxed=True, max_time_limit=30.0, default_time_limit=30.0)
                with LocalStack(settings, workers=workers, log_dir=workdir / f"logs-{workers}") as stack:
                    backend = ServiceBackend(stack.base_url, stack.token, time_limit=30.0)
                    try:
                        report, seconds = _measure(base, stage1, workdir, f"service-{workers}", backend)
                    finally:
                        backend.close()
                purge(settings)
                rows.append((f"service, {workers} worker{'s' if workers > 1 else ''}", report, seconds))
        finally:
            server.close()
    table = Table(title="synthesis stages 2-4 (offline teacher)")
    for column in ("run", "items", "items/min", "statements/min", "accepted", "reserved", "statement s", "code s", "verify s", "wall s"):
        table.add_column(column, justify="right")
    for name, report, seconds in rows:
        counts = report.counts()
        statements = sum(1 for r in report.records if r.mutant is None)
        clock = report.clock.seconds
        table.add_row(
            name, str(len(report.records)), f"{60 * len(report.records) / seconds:.0f}", f"{60 * statements / seconds:.0f}",
            str(counts["accepted"]), str(counts["reserved"]), f"{clock['statement']:.2f}", f"{clock['code']:.2f}",
            f"{clock['verify']:.2f}", f"{seconds:.1f}",
        )
    console.print(table)
    console.print(f"machine: {os.cpu_count()} cores; grid {len(args.variants)} variants x profiles {args.profiles} x seeds {args.seeds}, {args.customers} customers")


if __name__ == "__main__":
    main()

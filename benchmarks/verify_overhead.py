"""Time of one full in-process verification (build + solve + every probe) vs the solve alone.

For each variant a few samples are built; the gold script plays the candidate. The candidate's own
build-and-solve time is measured separately (a plain build), then a full `verify` is timed. The
ratio is what constraint injection adds on top of running the candidate. Target: <= 1.5x on the
median sample (TSP and PDPTW excepted). Each sample is verified twice, with and without cost
injection (``VerifyConfig(check_costs=False)``, the paper's constant-objective query for feasible
probes), in alternating order, so the two columns share the machine's state. The median time to
build one grid point's samples (feasible probes, attacks, gold labels) is printed too, since the
sample builder runs inside many tests.

    .venv/bin/python benchmarks/verify_overhead.py [--points 2] [--variants ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from rich.console import Console
from rich.progress import track
from rich.table import Table

from vrpcoder.candidate import build_candidate
from vrpcoder.samples import build_grid_point
from vrpcoder.sampling import applicable_profiles
from vrpcoder.variants import VARIANTS
from vrpcoder.verification import VerifyConfig, verify

WITHOUT_COSTS = VerifyConfig(check_costs=False)
EXCEPTED = frozenset({"TSP", "PDPTW"})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=2)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    args = parser.parse_args()
    jobs = []
    for variant in args.variants:
        profiles = [p for p in applicable_profiles(variant) if p <= 12]
        jobs += [(variant, profiles[(5 * i + 4) % len(profiles)], i) for i in range(args.points)]
    rows: dict[str, list[tuple[float, float, int, float]]] = {}
    builds: dict[str, list[float]] = {}
    for variant, profile, seed in track(jobs, description="verifying"):
        started = time.perf_counter()
        samples = build_grid_point(variant, profile, seed).samples
        builds.setdefault(variant, []).append(time.perf_counter() - started)
        for sample in samples:
            started = time.perf_counter()
            build_candidate(sample.gold_code)
            solve = time.perf_counter() - started
            timed: dict[bool, float] = {}
            for costs in (True, False) if len(rows.get(variant, ())) % 2 == 0 else (False, True):
                started = time.perf_counter()
                verdict = verify(sample.gold_code, sample, None if costs else WITHOUT_COSTS)
                timed[costs] = time.perf_counter() - started
                assert verdict.passed, verdict
            rows.setdefault(variant, []).append((solve, timed[True], len(sample.probes), timed[False]))

    table = Table(title="full verification vs candidate solve alone (median over samples)")
    columns = ("variant", "samples", "probes/sample", "build/point [s]", "solve [s]", "verify [s]", "ratio",
               "no cost check [s]", "ratio without")
    for col in columns:
        table.add_column(col, justify="left" if col == "variant" else "right")
    worst = 0.0
    for variant, values in rows.items():
        solve = statistics.median(v[0] for v in values)
        full = statistics.median(v[1] for v in values)
        ratio = statistics.median(v[1] / v[0] for v in values)
        without = statistics.median(v[3] / v[0] for v in values)
        if variant not in EXCEPTED:
            worst = max(worst, ratio)
        table.add_row(variant, str(len(values)), f"{statistics.mean(v[2] for v in values):.1f}",
                      f"{statistics.median(builds[variant]):.2f}", f"{solve:.3f}", f"{full:.3f}", f"{ratio:.2f}x",
                      f"{statistics.median(v[3] for v in values):.3f}", f"{without:.2f}x")
    Console(width=180).print(table)
    every = [v for variant, values in rows.items() if variant not in EXCEPTED for v in values]
    if every:
        print(f"median sample (TSP, PDPTW excepted): verify / solve {statistics.median(v[1] / v[0] for v in every):.2f}x "
              f"with cost injection, {statistics.median(v[3] / v[0] for v in every):.2f}x without (target <= 1.5x)")
    print(f"worst per-variant median ratio (TSP, PDPTW excepted): {worst:.2f}x (target <= 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Median gold solve time per variant for n = 5..12 customers (one thread, size-limited licence).

Instances come from the sampler with a regular profile's layout and demand and the customer count
swept (pickup-and-delivery variants round odd n down to even). Every solve is audited by the
independent checker; a solve that is not optimal counts at the time limit and is flagged. Target
(benchmark, not test): median <= 1 s at n = 12 for every variant.

    .venv/bin/python benchmarks/gold_solve_time.py [--seeds 3] [--sizes 5 8 12] [--variants CVRP ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys

from rich.console import Console
from rich.progress import track
from rich.table import Table

from vrpcoder.audit import audit_gold
from vrpcoder.sampling import sample_instance
from vrpcoder.variants import VARIANTS

PROFILE_FOR_SCALE = 10
"""Large uniform (layout and demand range of the paper's biggest regular profile)."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(range(5, 13)))
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()

    jobs = [(v, n, s) for v in args.variants for n in args.sizes for s in range(args.seeds)]
    times: dict[tuple[str, int], list[float]] = {}
    untrusted: dict[tuple[str, int], int] = {}
    for variant, n, seed in track(jobs, description="gold solves"):
        instance = sample_instance(variant, PROFILE_FOR_SCALE, seed, customers=n)
        audit = audit_gold(instance, time_limit=args.time_limit)
        key = (variant, len(instance.customers))
        times.setdefault(key, []).append(audit.runtime)
        untrusted[key] = untrusted.get(key, 0) + (not audit.trusted)

    sizes = sorted({n for _, n in times})
    table = Table(title=f"median gold solve time [s] ({args.seeds} seeds, 1 thread; * = some solve not proven optimal)")
    table.add_column("variant")
    for n in sizes:
        table.add_column(f"n={n}", justify="right")
    worst_at_12 = 0.0
    for variant in args.variants:
        cells = []
        for n in sizes:
            values = times.get((variant, n))
            if not values:
                cells.append("-")
                continue
            median = statistics.median(values)
            if n == 12:
                worst_at_12 = max(worst_at_12, median)
            cells.append(f"{median:.2f}{'*' if untrusted[(variant, n)] else ''}")
        table.add_row(variant, *cells)
    Console().print(table)
    print(f"worst per-variant median at n=12: {worst_at_12:.2f} s (target <= 1 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Median gold solve time per variant for n = 5..12 customers (one thread, size-limited licence).

Instances come from the sampler with a regular profile's layout and demand and the customer count
swept (pickup-and-delivery variants round odd n down to even). Every solve is audited by the
independent checker; a solve that is not optimal counts at the time limit and is flagged. Target
(benchmark, not test): median <= 1 s at n = 12 for every variant.

``--compare`` solves every instance twice in the same run: with the old default formulation (the
vehicle-indexed model unless it would pass the licence and the two-index model states the instance:
``licence_needs_two_index``) and with the default now (the two-index model wherever it states the
instance: CVRP, MDVRP, OVRP, VRPB, VRPHTW, VRPSTW, MDVRPSTW, OVRPHTW with identical vehicles). The
other variants get the same model in both, so their two columns show the run's noise.

    .venv/bin/python benchmarks/gold_solve_time.py [--seeds 3] [--sizes 5 8 12] [--variants CVRP ...] [--compare]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable

from rich.console import Console
from rich.progress import track
from rich.table import Table
from vrpcoder.checker import check
from vrpcoder.gold import GoldStatus, solve_gold
from vrpcoder.gold.render import licence_needs_two_index
from vrpcoder.instances import Instance
from vrpcoder.sampling import sample_instance
from vrpcoder.variants import VARIANTS

PROFILE_FOR_SCALE = 10
"""Large uniform (layout and demand range of the paper's biggest regular profile)."""

MODES: dict[str, Callable[[Instance], bool | None]] = {
    "default now": lambda _instance: None,
    "old default": licence_needs_two_index,
}
"""Each mode's formulation for an instance (None: the renderer's choice)."""


def timed_solve(instance: Instance, two_index: bool | None, time_limit: float) -> tuple[float, bool]:
    """(seconds, trusted): Gurobi's runtime (the time limit when not proven optimal), and whether
    the checker priced the extracted routes feasible at the objective."""
    result = solve_gold(instance, time_limit=time_limit, two_index=two_index)
    if result.status is not GoldStatus.OPTIMAL or result.solution is None or result.objective is None:
        return time_limit, False
    report = check(instance, result.solution)
    trusted = report.feasible and abs(report.cost - result.objective) <= 1e-6 * max(1.0, abs(result.objective))
    return result.runtime, trusted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=list(range(5, 13)))
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--compare", action="store_true", help="the old default formulation and the default now, in one run")
    args = parser.parse_args()

    modes = list(MODES) if args.compare else ["default now"]
    jobs = [(v, n, s) for v in args.variants for n in args.sizes for s in range(args.seeds)]
    times: dict[tuple[str, str, int], list[float]] = {}
    untrusted: dict[tuple[str, str, int], int] = {}
    for variant, n, seed in track(jobs, description="gold solves"):
        instance = sample_instance(variant, PROFILE_FOR_SCALE, seed, customers=n)
        for mode in modes:
            seconds, trusted = timed_solve(instance, MODES[mode](instance), args.time_limit)
            key = (mode, variant, len(instance.customers))
            times.setdefault(key, []).append(seconds)
            untrusted[key] = untrusted.get(key, 0) + (not trusted)

    sizes = sorted({n for _, _, n in times})
    console = Console()
    for mode in modes:
        table = Table(
            title=f"median gold solve time [s], {mode} ({args.seeds} seeds, 1 thread; * = some solve not proven optimal)"
        )
        table.add_column("variant")
        for n in sizes:
            table.add_column(f"n={n}", justify="right")
        worst: tuple[float, str] = (0.0, "-")
        for variant in args.variants:
            cells = []
            for n in sizes:
                values = times.get((mode, variant, n))
                if not values:
                    cells.append("-")
                    continue
                median = statistics.median(values)
                if n == max(sizes):
                    worst = max(worst, (median, variant))
                cells.append(f"{median:.2f}{'*' if untrusted[(mode, variant, n)] else ''}")
            table.add_row(variant, *cells)
        console.print(table)
        above = sorted(
            v
            for v in args.variants
            if (mode, v, max(sizes)) in times and statistics.median(times[(mode, v, max(sizes))]) > 1.0
        )
        print(
            f"{mode}: worst per-variant median at n={max(sizes)}: {worst[0]:.2f} s ({worst[1]}); "
            f"above the 1 s target: {len(above)} {above}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

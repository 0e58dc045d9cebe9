"""Gold optimum vs PyVRP's best heuristic solution, per variant.

PyVRP shares no code with the gold scripts. For each sampled instance we solve the gold script to
proven optimality, run PyVRP for a fixed time, re-price PyVRP's routes exactly with the independent
checker, and classify: *agree* (same cost within 1e-6 relative), *gold better* (PyVRP's heuristic
missed the optimum — allowed), or *PyVRP better* (a legal plan cheaper than the "optimum": a
gold-script bug; the script exits 1). Usage:

    .venv/bin/python benchmarks/gold_vs_pyvrp.py [--seeds 3] [--seconds 1.0] [--variants CVRP VRPHTW ...]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from rich.console import Console
from rich.progress import track
from rich.table import Table

from vrpcoder.audit import audit_gold
from vrpcoder.checker import check
from vrpcoder.crosscheck import solve_pyvrp
from vrpcoder.sampling import sample_instance

VARIANTS = ("CVRP", "VRPHTW", "MDVRP", "HFVRP", "OVRP")
PROFILES = tuple(range(1, 13))
RTOL = 1e-6


def classify(gold: float, pyvrp: float) -> str:
    scale = max(1.0, abs(gold))
    if abs(gold - pyvrp) <= RTOL * scale:
        return "agree"
    return "gold better" if gold < pyvrp else "PyVRP better"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=2, help="seeds per (variant, profile)")
    parser.add_argument("--seconds", type=float, default=1.0, help="PyVRP run time per instance")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    args = parser.parse_args()

    jobs = [(v, p, s) for v in args.variants for p in PROFILES for s in range(args.seeds)]
    counts: dict[str, Counter[str]] = {v: Counter() for v in args.variants}
    for variant, profile, seed in track(jobs, description="gold vs PyVRP"):
        instance = sample_instance(variant, profile, seed)
        gold = audit_gold(instance)
        if not gold.trusted or gold.objective is None:
            counts[variant]["gold not trusted"] += 1
            continue
        found = solve_pyvrp(instance, seconds=args.seconds, seed=seed)
        if found is None:
            counts[variant]["PyVRP found nothing"] += 1
            continue
        report = check(instance, found)
        if not report.feasible:
            counts[variant]["PyVRP infeasible (scaling)"] += 1
            continue
        counts[variant][classify(gold.objective, report.cost)] += 1

    table = Table(title=f"gold optimum vs PyVRP ({args.seconds:g} s per instance)")
    for col in ("variant", "instances", "agree", "gold better", "PyVRP better", "other", "agreement"):
        table.add_column(col, justify="right" if col != "variant" else "left")
    for variant, c in counts.items():
        compared = c["agree"] + c["gold better"] + c["PyVRP better"]
        other = sum(c.values()) - compared
        rate = f"{100 * c['agree'] / compared:.1f}%" if compared else "-"
        table.add_row(variant, str(sum(c.values())), str(c["agree"]), str(c["gold better"]),
                      str(c["PyVRP better"]), str(other), rate)
    Console().print(table)
    return 1 if any(c["PyVRP better"] or c["gold not trusted"] for c in counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())

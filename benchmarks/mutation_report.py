"""Mutation report per variant: DIFF-only vs DIFF+INJ kill rates over planted mutants.

For each variant, samples are built for a few (profile, seed) points; each single-family omission
mutant of the gold script is verified on every sample of its instance. The report prints, per
variant, how many omission mutants DIFF alone kills and how many DIFF+INJ kills, plus the same for
relaxed and spurious mutants. Exit status 1 if DIFF+INJ misses an omission whose family has an
attacker and that is not an equivalent mutant (its rule implied by the variant's other rules).

    .venv/bin/python benchmarks/mutation_report.py [--points 2] [--variants CVRP VRPHTW ...]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict

from rich.console import Console
from rich.progress import track
from rich.table import Table

from vrpcoder.mutants import MutantKind, MutantReport, run_mutants
from vrpcoder.samples import build_grid_point
from vrpcoder.sampling import applicable_profiles
from vrpcoder.variants import VARIANTS


def _rate(killed: int, total: int) -> str:
    return f"{killed}/{total} ({100 * killed / total:.0f}%)" if total else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=2, help="(profile, seed) points per variant")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    args = parser.parse_args()

    jobs = []
    for variant in args.variants:
        profiles = [p for p in applicable_profiles(variant) if p <= 12]
        jobs += [(variant, profiles[(3 * i) % len(profiles)], i) for i in range(args.points)]
    reports: dict[str, list[MutantReport]] = defaultdict(list)
    for variant, profile, seed in track(jobs, description="mutants"):
        samples = build_grid_point(variant, profile, seed).samples
        if samples:
            reports[variant] += run_mutants(samples)

    table = Table(title="mutants killed: DIFF alone vs DIFF+INJ")
    for col in ("variant", "omit: DIFF", "omit: DIFF+INJ", "relax: DIFF", "relax: DIFF+INJ",
                "spurious: DIFF", "spurious: DIFF+INJ", "equivalent", "missed (attacked)"):
        table.add_column(col, justify="left" if col == "variant" else "right")
    missed_total = 0
    totals = defaultdict(int)
    for variant in args.variants:
        rows = reports.get(variant, [])
        cells = []
        for kind in MutantKind:
            group = [r for r in rows if r.kind is kind and not r.equivalent]
            diff, dual = sum(r.killed_by_diff for r in group), sum(r.killed_by_dual for r in group)
            totals[(kind, "n")] += len(group)
            totals[(kind, "diff")] += diff
            totals[(kind, "dual")] += dual
            cells += [_rate(diff, len(group)), _rate(dual, len(group))]
        missed = sorted({r.name for r in rows if r.kind is MutantKind.OMIT and r.has_attacker
                         and not r.equivalent and not r.killed_by_dual})
        missed_total += len(missed)
        equivalent = sorted({r.name for r in rows if r.equivalent})
        table.add_row(variant, *cells, ", ".join(equivalent) or "-", ", ".join(missed) or "none")
    Console().print(table)
    for kind in MutantKind:
        n = totals[(kind, "n")]
        print(f"{kind.value:9s} mutants: DIFF kills {_rate(totals[(kind, 'diff')], n)}, "
              f"DIFF+INJ kills {_rate(totals[(kind, 'dual')], n)}")
    print(f"attacked, non-equivalent omissions missed by DIFF+INJ: {missed_total}")
    return 1 if missed_total else 0


if __name__ == "__main__":
    sys.exit(main())

"""Mutation report per variant and family: the share of *samples* on which DIFF alone, DIFF+INJ, and
DIFF+INJ+cost injection catch each planted mutant.

For each variant, samples are built for a few (profile, seed) points; every mutant of the gold
script (a family omitted, relaxed the way LLM code gets it partly wrong, or a spurious rule added)
is verified on each sample on its own, because a sample is what one reward sees: a mutant caught
only on an attacked copy still earns full reward on the base sample. Per variant x family the
report prints caught/applied over samples for omissions, relaxations and spurious rules, which
probes did the catching, the equivalent mutants with the reason, and (where the library reports it)
which attackers produced each family's probe on the base sample. A second table gives, per variant,
the kill rates of the cost mutants (an objective that prices plans wrongly: penalty weight dropped
or doubled, earliness priced, lateness at departure, vehicle rates and fixed costs, and the paid
return leg of open routes) under DIFF / DIFF+INJ / DIFF+INJ+cost. Exit status 1 if a
non-equivalent omission or relaxation is caught on no sample of its grid point.

    .venv/bin/python benchmarks/mutation_report.py [--points 2] [--variants CVRP VRPHTW ...] [--kinds cost relax]

The script only uses names that existed before issue 19 as well (the cost columns read the newer
fields where they exist and fall back to DIFF+INJ), so the same file measures the old code (run it
with PYTHONPATH pointing at an older checkout) and the new.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import track
from rich.table import Table

from vrpcoder import mutants
from vrpcoder.mutants import MutantKind, is_equivalent, mutation_rules, run_mutants
from vrpcoder.samples import build_grid_point
from vrpcoder.sampling import applicable_profiles
from vrpcoder.variants import VARIANTS


@dataclass
class Tally:
    applied: int = 0
    diff: int = 0
    dual: int = 0
    full: int = 0
    """Caught by DIFF+INJ or cost injection."""
    points_missed: int = 0
    equivalent: set[str] = field(default_factory=set)
    caught_by: set[str] = field(default_factory=set)


def _rate(killed: int, total: int) -> str:
    return f"{killed}/{total}" if total else "-"


PRICING_RELAXATIONS = frozenset({"relax:open_route_pays_return"})
"""Relaxations that are cost mistakes too (listed with the cost mutants)."""


def _is_cost(name: str) -> bool:
    return name.startswith("cost:") or name in PRICING_RELAXATIONS


def _reason(rule: mutants.MutationRule, instances: list) -> str:  # type: ignore[type-arg]
    explain = getattr(mutants, "equivalence_reason", None)
    return (explain(rule, instances) if explain else None) or "equivalent"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=2, help="(profile, seed) points per variant")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--kinds", nargs="+", default=[k.value for k in MutantKind], choices=[k.value for k in MutantKind],
                        help="mutant kinds to run (default: all)")
    args = parser.parse_args()
    chosen = [MutantKind(k) for k in args.kinds]

    jobs = []
    for variant in args.variants:
        profiles = [p for p in applicable_profiles(variant) if p <= 12]
        jobs += [(variant, profiles[(3 * i) % len(profiles)], i) for i in range(args.points)]
    tallies: dict[tuple[str, str, MutantKind], Tally] = defaultdict(Tally)
    costs: dict[str, Tally] = defaultdict(Tally)
    per_rule: dict[str, Tally] = defaultdict(Tally)
    sources: dict[tuple[str, str], set[str]] = defaultdict(set)
    equivalents: dict[str, set[str]] = defaultdict(set)
    failed_points: list[str] = []
    for variant, profile, seed in track(jobs, description="mutants"):
        report = build_grid_point(variant, profile, seed)
        samples = report.samples
        if not samples:
            continue
        if hasattr(report, "sources"):
            for (name, family), found in report.sources().items():
                sources[(name, family.value)] |= set(found)
        instances = [s.instance for s in samples]
        applied = [r for r in mutation_rules(variant, chosen) if any(r.apply(s.gold_code, s) is not None for s in samples)]
        equivalent = {r.name for r in applied if is_equivalent(r, instances)}
        for rule in applied:
            if rule.name in equivalent:
                equivalents[variant].add(f"{rule.name} at p{profile} s{seed} ({_reason(rule, instances)})")
        caught_somewhere: dict[str, bool] = defaultdict(bool)
        for sample in samples:
            for result in run_mutants([sample], kinds=chosen):
                family = result.family.value if result.family else "-"
                tally = tallies[(variant, family, result.kind)]
                if result.name in equivalent:
                    tally.equivalent.add(result.name)
                    continue
                full = getattr(result, "killed_with_cost", result.killed_by_dual)
                groups = (tally, per_rule[result.name], *([costs[variant]] if _is_cost(result.name) else []))
                for t in groups:
                    t.applied += 1
                    t.diff += result.killed_by_diff
                    t.dual += result.killed_by_dual
                    t.full += full
                tally.caught_by |= {c.split(":", 1)[1] for c in result.caught_by if ":" in c}
                caught_somewhere[result.name] |= full
        for name, caught in caught_somewhere.items():
            if not caught and not name.startswith("spurious") and not _is_cost(name):
                failed_points.append(f"{variant} p{profile} s{seed}: {name}")

    kinds = [k for k in MutantKind if any(key[2] is k for key in tallies)]
    table = Table(title="share of samples that catch each mutant: DIFF alone | DIFF+INJ | DIFF+INJ+cost (non-equivalent mutants)")
    for col in ("variant", "family", *(k.value for k in kinds), "caught by", "base-sample probe source"):
        table.add_column(col)
    for variant in args.variants:
        families = sorted({f for (v, f, _k) in tallies if v == variant})
        for family in families:
            cells = []
            caught: set[str] = set()
            for kind in kinds:
                t = tallies.get((variant, family, kind))
                if t is None or not t.applied:
                    cells.append("-")
                    continue
                cells.append(f"{_rate(t.diff, t.applied)} | {_rate(t.dual, t.applied)} | {_rate(t.full, t.applied)}")
                caught |= t.caught_by
            src = ", ".join(sorted(sources.get((variant, family), set()))) or "-"
            table.add_row(variant, family, *cells, ", ".join(sorted(caught))[:70] or "-", src)
    Console(width=220).print(table)
    priced = Table(title="cost mutants (objective prices plans wrongly): samples caught / applied")
    for col in ("variant", "applied", "DIFF", "DIFF+INJ", "DIFF+INJ+cost"):
        priced.add_column(col, justify="left" if col == "variant" else "right")
    for variant in args.variants:
        t = costs.get(variant)
        if t is not None and t.applied:
            priced.add_row(variant, str(t.applied), _rate(t.diff, t.applied), _rate(t.dual, t.applied), _rate(t.full, t.applied))
    Console(width=220).print(priced)
    for variant in args.variants:
        if equivalents.get(variant):
            print(f"{variant} equivalent: " + "; ".join(sorted(equivalents[variant])))
    for kind in kinds:
        group = [t for (_, _, k), t in tallies.items() if k is kind]
        n = sum(t.applied for t in group)
        print(f"{kind.value:9s} mutants over samples: DIFF {_rate(sum(t.diff for t in group), n)}, "
              f"DIFF+INJ {_rate(sum(t.dual for t in group), n)}, DIFF+INJ+cost {_rate(sum(t.full for t in group), n)}")
    print("per mutant over samples (DIFF | DIFF+INJ | DIFF+INJ+cost): " + "; ".join(
        f"{name} {_rate(t.diff, t.applied)} | {_rate(t.dual, t.applied)} | {_rate(t.full, t.applied)}"
        for name, t in sorted(per_rule.items())))
    print("non-equivalent omissions/relaxations caught on no sample of their grid point: "
          + (", ".join(failed_points) or "none"))
    return 1 if failed_points else 0


if __name__ == "__main__":
    sys.exit(main())

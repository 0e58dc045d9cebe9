"""One rule alone (issue 28.2): how often each sub-rule probe is built on the base sample, and which
probes catch each sub-rule mutant there.

For every variant and (profile, seed) of a small grid, the base sample is built on the instance
with ``--customers`` customers (no attacked copies: the probes live on the sample's own instance).
The first table counts, per variant, the points whose base sample kept each sub-rule probe (a
probe whose ``AttackerInfo.rules`` is set); the second, per sub-rule mutant
(``vrpcoder.mutants.SUBRULES``), on how many base samples it was caught, by which probes, and on how
many it is equivalent (no verifier can catch it there).

    nice .venv/bin/python benchmarks/subrule_coverage.py [--profiles 1 2 3] [--seeds 0 1]
        [--customers 6] [--variants VRPB PDP ...] [--no-mutants]
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict

from rich.console import Console
from rich.progress import track
from rich.table import Table

from vrpcoder.mutants import SUBRULES, failures, is_equivalent, mutation_rules
from vrpcoder.samples import Sample, build_samples
from vrpcoder.sampling import applicable_profiles, sample_instance
from vrpcoder.variants import ATTACKERS, VARIANTS, Attacker
from vrpcoder.verification import VerifyConfig, verify

SUB_RULE_ATTACKERS = [a for a, info in ATTACKERS.items() if info.rules]


def _base(variant: str, profile: int, seed: int, customers: int) -> Sample | None:
    instance = sample_instance(variant, profile, seed, customers=customers)
    report = build_samples(instance, seed=seed, parameter_attacks=False)
    return report.samples[0] if report.samples else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", nargs="+", type=int, default=[1, 2, 3])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--customers", type=int, default=6)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--no-mutants", action="store_true", help="count the probes only")
    args = parser.parse_args()
    console = Console()
    config = VerifyConfig(time_limit=60.0)

    points = [
        (v, p, s) for v in args.variants for p in args.profiles if p in applicable_profiles(v) for s in args.seeds
    ]
    built: dict[str, Counter[Attacker]] = defaultdict(Counter)
    totals: Counter[str] = Counter()
    caught: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])  # applied, caught, equivalent
    names = {r.name for r in SUBRULES}
    for variant, profile, seed in track(points, description="base samples", console=console):
        base = _base(variant, profile, seed, args.customers)
        if base is None:
            continue
        totals[variant] += 1
        built[variant].update(p.attacker for p in base.probes if p.attacker in SUB_RULE_ATTACKERS)
        if args.no_mutants:
            continue
        for rule in (r for r in mutation_rules(variant) if r.name in names):
            code = rule.apply(base.gold_code, base)
            if code is None:
                continue
            found = [f for f in failures(verify(code, base, config)) if f.startswith("s") or f == "diff"]
            counts = tally[(variant, rule.name)]
            counts[0] += 1
            counts[1] += bool(found)
            counts[2] += is_equivalent(rule, [base.instance])
            caught[(variant, rule.name)].update(found)

    probes = Table(title=f"sub-rule probes kept on the base sample ({args.customers} customers)")
    probes.add_column("variant")
    probes.add_column("points")
    probes.add_column("probe: points kept")
    for variant in args.variants:
        spec = VARIANTS[variant]
        allowed = {*spec.on_instance, *spec.enabled_attackers, *spec.derived}
        shown = [f"{a.value} {built[variant][a]}" for a in SUB_RULE_ATTACKERS if a in allowed]
        probes.add_row(variant, str(totals[variant]), ", ".join(shown))
    console.print(probes)
    if args.no_mutants:
        return
    kills = Table(title="sub-rule mutants on the base sample")
    for column in ("variant", "mutant", "caught/applied", "equivalent", "caught by"):
        kills.add_column(column)
    for (variant, name), (applied, hit, equivalent) in sorted(tally.items()):
        by = ", ".join(f"{probe} {n}" for probe, n in caught[(variant, name)].most_common())
        kills.add_row(variant, name, f"{hit}/{applied}", str(equivalent), by or "-")
    console.print(kills)


if __name__ == "__main__":
    main()

"""Time to build every sample of one grid point per variant, and how many probes each sample carries.

Stage 1 (``vrpcoder.samples.build_samples``) runs once per grid point in synthesis, evaluation and
many tests, and every probe it keeps costs one INJ query per verification; this prints both sides
of that trade per variant: the build's wall clock, the samples it made (base and attacked copies),
and the feasible and violating probes per base sample and per attacked copy.

    nice -n 10 .venv/bin/python benchmarks/sample_build.py [--variants CVRP VRPHTW] [--profile 1] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from rich.console import Console
from rich.progress import track
from rich.table import Table

from vrpcoder.probes import Label
from vrpcoder.samples import BASE_KIND, Sample, build_grid_point
from vrpcoder.sampling import applicable_profiles
from vrpcoder.variants import VARIANTS


def _counts(samples: list[Sample]) -> tuple[float, float]:
    """Mean feasible and violating probes per sample (nan when there is none)."""
    if not samples:
        return float("nan"), float("nan")
    feasible = [sum(p.label is Label.FEASIBLE for p in s.probes) for s in samples]
    violating = [len(s.probes) - f for s, f in zip(samples, feasible, strict=True)]
    return statistics.mean(feasible), statistics.mean(violating)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS))
    parser.add_argument("--profile", type=int, default=1, help="profile of the grid point (the variant's first applicable one if it does not apply)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    table = Table(title=f"samples of one grid point (profile {args.profile}, seed {args.seed}) per variant")
    for col in ("variant", "samples", "base +/-", "copies +/-", "probes/sample", "build [s]"):
        table.add_column(col, justify="left" if col == "variant" else "right")
    seconds: list[float] = []
    probes: list[int] = []
    for variant in track(args.variants, description="building"):
        profiles = applicable_profiles(variant)
        profile = args.profile if args.profile in profiles else profiles[0]
        started = time.perf_counter()
        samples = build_grid_point(variant, profile, args.seed).samples
        elapsed = time.perf_counter() - started
        seconds.append(elapsed)
        probes += [len(s.probes) for s in samples]
        base = _counts([s for s in samples if s.kind == BASE_KIND])
        copies = _counts([s for s in samples if s.kind != BASE_KIND])
        table.add_row(
            variant, str(len(samples)), f"{base[0]:.0f}/{base[1]:.0f}", f"{copies[0]:.1f}/{copies[1]:.1f}",
            f"{statistics.mean(len(s.probes) for s in samples):.1f}" if samples else "-", f"{elapsed:.2f}",
        )
    Console(width=120).print(table)
    print(
        f"total build {sum(seconds):.1f} s, median per variant {statistics.median(seconds):.2f} s, "
        f"max {max(seconds):.2f} s; probes per sample: mean {statistics.mean(probes):.2f} over {len(probes)} samples"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

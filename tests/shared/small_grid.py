"""The samples of one small grid point per variant (5 customers at profile 1), built once per test
session: the sample-completeness and feasible-freedom tests both read them."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from vrpcoder.samples import Sample, build_grid_point
from vrpcoder.verification import Verdict

POINT = (1, 0)
"""(profile, seed) of the small grid point: 5 customers (4 for the pickup-and-delivery variants)."""
FLAWED = Path(__file__).resolve().parents[1] / "data" / "candidates" / "flawed"
"""Independently written scripts with one deliberate flaw each (a rule left out or one the
statement does not have), in the data-block convention of ``vrpcoder_synth.formulations``."""


@cache
def grid_samples(variant: str, profile: int = POINT[0], seed: int = POINT[1]) -> tuple[Sample, ...]:
    """Every sample (base first, then the attacked copies) of one grid point."""
    samples = tuple(build_grid_point(variant, profile, seed).samples)
    assert samples and samples[0].kind == "base", f"no base sample for {variant} at p{profile} s{seed}"
    return samples


def describe(verdict: Verdict) -> str:
    probes = ", ".join(f"{p.name}={p.verdict.value}{'' if p.passed else '(!)'}" for p in verdict.probes)
    return f"{verdict.sample_id}: diff={verdict.diff} reward={verdict.reward} [{probes}]"

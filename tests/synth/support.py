"""Small real samples for the synthesis tests (Stage 1 with real gold solves), built once per session."""

from __future__ import annotations

from functools import cache

from vrpcoder.samples import Sample, build_samples
from vrpcoder.sampling import sample_instance


@cache
def grid_samples(variant: str, profile: int = 1, seed: int = 0, customers: int = 5) -> tuple[Sample, ...]:
    """Every sample of one tiny grid point (base first)."""
    report = build_samples(sample_instance(variant, profile, seed, customers=customers), seed=seed)
    assert report.samples and report.samples[0].kind == "base"
    return tuple(report.samples)

"""Stage-1 samples: every kept probe is confirmed by gold INJ and by the independent checker."""

from __future__ import annotations

import pytest

from vrpcoder.checker import check
from vrpcoder.probes import Label
from vrpcoder.samples import BASE_KIND, ProbeOutcome, Sample, build_grid_point
from vrpcoder.sampling import applicable_profiles
from vrpcoder.variants import ATTACKERS, VARIANTS, get_variant
from vrpcoder.verification import verify

QUICK = [("CVRP", 2, 0), ("TSP", 1, 0), ("VRPHTW", 3, 0), ("SDVRP", 1, 0), ("HFVRP", 2, 0), ("PDP", 4, 0), ("VRPB", 2, 0)]


@pytest.fixture(scope="module", params=QUICK, ids=[f"{v}-p{p}-s{s}" for v, p, s in QUICK])
def built(request: pytest.FixtureRequest) -> tuple[str, list[Sample], object]:
    variant, profile, seed = request.param
    report = build_grid_point(variant, profile, seed)
    return variant, report.samples, report


def test_base_sample_first_with_the_feasible_probe_first(built: tuple[str, list[Sample], object]) -> None:
    variant, samples, _ = built
    assert samples, f"no sample for {variant}"
    assert samples[0].kind == BASE_KIND
    for sample in samples:
        assert sample.probes[0].label is Label.FEASIBLE and sample.probes[0].attacker is None
        assert all(p.label is Label.INFEASIBLE for p in sample.probes[1:])
        assert len(sample.probes) >= 2


def test_labels_agree_with_the_independent_checker(built: tuple[str, list[Sample], object]) -> None:
    _, samples, report = built
    for sample in samples:
        for probe in sample.probes:
            result = check(sample.instance, probe.solution)
            assert result.feasible is (probe.label is Label.FEASIBLE)
            assert result.families == (() if probe.family is None else (probe.family,))
    assert not [r for r in report.records if r.outcome is ProbeOutcome.DISAGREEMENT]  # type: ignore[attr-defined]


def test_probe_families_come_from_the_variant_table(built: tuple[str, list[Sample], object]) -> None:
    variant, samples, _ = built
    spec = get_variant(variant)
    for sample in samples:
        for probe in sample.probes[1:]:
            assert probe.attacker in spec.enabled_attackers
            assert probe.family is ATTACKERS[probe.attacker].target
        if sample.kind != BASE_KIND:
            assert ATTACKERS[spec.enabled_attackers[[a.value for a in spec.enabled_attackers].index(sample.kind)]].parametric


def test_gold_passes_its_own_sample_with_full_reward(built: tuple[str, list[Sample], object]) -> None:
    _, samples, _ = built
    for sample in samples:
        verdict = verify(sample.gold_code, sample)
        assert verdict.passed, verdict
        assert verdict.reward == pytest.approx(1.0)


def test_samples_round_trip_through_json(built: tuple[str, list[Sample], object]) -> None:
    _, samples, _ = built
    for sample in samples:
        assert Sample.model_validate_json(sample.model_dump_json()) == sample


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_grid_gold_passes_all_probes_and_families_match_the_table(variant: str) -> None:
    """>= 20 samples per variant over profiles and seeds: 100% gold pass, no disagreement."""
    samples: list[Sample] = []
    disagreements = 0
    profiles = applicable_profiles(variant)
    seed = 0
    while len(samples) < 20 and seed < 10:
        for profile in profiles:
            report = build_grid_point(variant, profile, seed)
            samples += report.samples
            disagreements += sum(r.outcome is ProbeOutcome.DISAGREEMENT for r in report.records)
        seed += 1
    assert len(samples) >= 20
    assert disagreements == 0
    seen = {p.attacker for s in samples for p in s.probes[1:]}
    assert seen == set(get_variant(variant).enabled_attackers)
    for sample in samples:
        assert verify(sample.gold_code, sample).passed

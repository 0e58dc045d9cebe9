"""Stage-1 samples: every kept probe is confirmed by gold INJ and by the independent checker."""

from __future__ import annotations

import pytest

from vrpcoder.checker import check, schedule
from vrpcoder.families import Family
from vrpcoder.relaxation import capacity_usage
from vrpcoder.probes import Label
from vrpcoder.samples import BASE_KIND, ProbeOutcome, Sample, build_grid_point
from vrpcoder.sampling import applicable_profiles
from vrpcoder.variants import ATTACKERS, VARIANTS, Attacker, Module, get_variant
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
        assert sample.probes[0].name == "s+"
        labels = [p.label for p in sample.probes]
        feasible = labels.count(Label.FEASIBLE)
        assert labels == [Label.FEASIBLE] * feasible + [Label.INFEASIBLE] * (len(labels) - feasible)
        assert all(p.attacker is None and p.variety for p in sample.probes[1:feasible])
        if sample.kind != BASE_KIND:
            assert sample.probes[feasible].attacker == Attacker(sample.kind), "a copy's own probe leads its violating ones"
        assert len(sample.probes) >= 2


def test_attacked_copies_are_named_after_the_attack_that_made_them(built: tuple[str, list[Sample], object]) -> None:
    """Issue 19: copies of one grid point differ in data and reference objective, so each names
    itself (``CVRP-p2-s0+capacity_overload``); sample ids stay base name + kind."""
    variant, samples, _ = built
    base = samples[0].instance.name
    assert base.startswith(f"{variant}-p") and "+" not in base
    for sample in samples:
        assert sample.id == f"{base}-{sample.kind}"
        expected = base if sample.kind == BASE_KIND else f"{base}+{sample.kind}"
        assert sample.instance.name == expected
        assert f"NAME = {expected!r}" in sample.gold_code
    attacked = [s for s in samples if s.kind != BASE_KIND]
    assert len({s.instance.name for s in samples}) == len({s.kind for s in samples})
    if variant in ("CVRP", "VRPHTW"):
        assert attacked, f"the {variant} point has attacked copies"


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
        for probe in (p for p in sample.probes if p.attacker is not None):
            assert probe.attacker in (*spec.enabled_attackers, *spec.on_instance, *spec.derived)
            assert probe.family is ATTACKERS[probe.attacker].target
        if sample.kind != BASE_KIND:
            assert ATTACKERS[spec.enabled_attackers[[a.value for a in spec.enabled_attackers].index(sample.kind)]].parametric
            parametric = [p.attacker for p in sample.probes if p.attacker is not None and ATTACKERS[p.attacker].parametric]
            assert parametric == [Attacker(sample.kind)], "a copy carries no other copy's parameter probe"


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
    seen = {p.attacker for s in samples for p in s.probes if p.attacker is not None}
    assert set(get_variant(variant).enabled_attackers) <= seen
    for sample in samples:
        assert verify(sample.gold_code, sample).passed


@pytest.mark.parametrize(("variant", "profile", "seed"), [("CVRP", 2, 0), ("VRPHTW", 4, 1), ("DCVRP", 4, 1), ("VRPB", 4, 1), ("MDVRP", 4, 1)])
def test_base_sample_probes_every_family_on_its_own_instance(variant: str, profile: int, seed: int) -> None:
    """Issue 19.1: the base sample alone carries a violating probe for each family its variant encodes
    (capacity, distance, windows, backhaul order, other depot), all on the unchanged instance I*."""
    report = build_grid_point(variant, profile, seed)
    base = report.samples[0]
    assert base.kind == BASE_KIND
    probed = {f for p in base.probes if p.attacker is not None for f in ATTACKERS[p.attacker].reveals}
    wanted = set(get_variant(variant).families) - {Family.ROUTE_STRUCTURE}
    if get_variant(variant).has(Module.MD):
        wanted.add(Family.ROUTE_STRUCTURE)
    assert wanted <= probed
    for probe in base.probes:
        report_ = check(base.instance, probe.solution)
        assert report_.families == (() if probe.family is None else (probe.family,))
    sources = report.sources()
    assert all(sources[(variant, f)] != ("none",) for f in wanted)


def test_edge_probe_breaks_its_rule_by_little() -> None:
    """Issue 19.2: the capacity edge probe overloads its route by less than any single customer's
    demand (it is the first pile past the limit), and the time-window edge probe is late by less
    than the paper's swap probe on the attacked copy is."""
    report = build_grid_point("VRPHTW", 4, 1)
    base = report.samples[0]
    instance = base.instance
    edge = next(p for p in base.probes if p.attacker is Attacker.CAPACITY_EDGE)
    capacity = instance.vehicles[0].capacity or 0.0
    excess = max(capacity_usage(instance, r) - capacity for r in edge.solution.routes if r.visits)
    assert 0 < excess < max(c.demand for c in instance.customers)
    late = next(p for p in base.probes if p.attacker is Attacker.TIME_WINDOW_EDGE)
    lateness = max(
        start - instance.customer(v).window.end  # type: ignore[union-attr]
        for r in late.solution.routes
        for v, start in zip(r.visits, schedule(instance, r), strict=True)
    )
    assert 0 < lateness < 10.0


def test_base_sample_carries_far_apart_feasible_probes_confirmed_by_gold() -> None:
    """Issue 14.3: besides s+ the base sample carries named feasible probes (one with fewer vehicles
    than the fleet where any plan has one), each accepted by the gold script and the checker."""
    report = build_grid_point("VRPHTW", 4, 1)
    base = report.samples[0]
    feasible = [p for p in base.probes if p.label is Label.FEASIBLE]
    names = [p.name for p in feasible]
    assert names[0] == "s+" and len(names) >= 3 and len(set(names)) == len(names)
    fleet = len(base.instance.vehicles)
    assert any(sum(1 for r in p.solution.routes if r.visits) < fleet for p in feasible)
    verdict = verify(base.gold_code, base)
    assert verdict.passed and all(r.passed for r in verdict.probes if r.label is Label.FEASIBLE)


def test_gold_derived_probe_fills_a_family_no_edge_probe_reaches() -> None:
    """Issue 14.4: on this instance no plan near s+ misses a window without breaking another rule;
    the gold model without its window module, asked for a late start, supplies the probe, and the
    build report names that source."""
    report = build_grid_point("VRPHTW", 1, 0)
    base = report.samples[0]
    sources = report.sources()[("VRPHTW", Family.TIME_WINDOW)]
    assert "derived_time_window" in sources and not {"time_window_edge", "service_time_edge"} & set(sources)
    probe = next(p for p in base.probes if p.attacker is Attacker.DERIVED_TIME_WINDOW)
    assert check(base.instance, probe.solution).families == (Family.TIME_WINDOW,)
    assert verify(base.gold_code, base).passed

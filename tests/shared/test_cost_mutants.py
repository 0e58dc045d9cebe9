"""Cost mutants (``vrpcoder.mutants.COSTS``): gold scripts whose objective prices plans wrongly.

Where the optimum does not move, DIFF and INJ pass them; cost injection prices every feasible probe
and catches each one whose wrong term a probe pays. The harness reports the three kill rates apart.
"""

from __future__ import annotations

import pytest

from tests.shared.test_cost_injection import _late_probe, samples
from vrpcoder.mutants import COSTS, MutantKind, caught_without_cost, mutation_rules, run_mutants
from vrpcoder.variants import VARIANTS, Module, get_variant

STW_RULES = {"cost:late_penalty_dropped", "cost:late_penalty_doubled", "cost:earliness_priced", "cost:lateness_at_departure"}
HF_RULES = {"cost:one_rate_for_all", "cost:type_rate_changed", "cost:one_fixed_cost_for_all", "cost:type_fixed_cost_changed"}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_cost_rules_belong_to_the_variants_that_price_those_terms(variant: str) -> None:
    spec = get_variant(variant)
    names = {r.name for r in mutation_rules(variant, [MutantKind.COST])}
    assert names == (STW_RULES if spec.has(Module.STW) else set()) | (HF_RULES if spec.has(Module.HF) else set())
    assert all(r.kind is MutantKind.COST and r.family is None for r in COSTS)


def test_a_mixed_fleet_priced_wrongly_is_caught_by_cost_injection_alone() -> None:
    base = samples("HFVRP", 1, 0, 6)[0]
    reports = {r.name: r for r in run_mutants([base], kinds=[MutantKind.COST])}
    assert set(reports) == HF_RULES
    for name in ("cost:one_rate_for_all", "cost:type_rate_changed"):
        report = reports[name]
        assert not report.killed_by_diff and not report.killed_by_dual, report.caught_by
        assert report.killed_with_cost and report.samples_caught_with_cost == 1
        assert all(c.startswith("base:cost:s+") for c in report.caught_by)


def test_soft_window_pricing_mistakes_are_caught_on_a_late_plan() -> None:
    """The sample's own late feasible plan pays the lateness terms: a dropped, doubled or displaced
    penalty prices it otherwise, while DIFF and every probe still pass."""
    sample = samples("VRPSTW", 7, 0, 6)[0]
    probe = _late_probe(sample)
    reports = {r.name: r for r in run_mutants([sample], kinds=[MutantKind.COST])}
    for name in ("cost:late_penalty_dropped", "cost:late_penalty_doubled", "cost:lateness_at_departure"):
        report = reports[name]
        assert not report.killed_by_dual and report.killed_with_cost, (name, report.caught_by)
        assert f"base:cost:{probe.name}" in report.caught_by


def test_failures_name_cost_checks_apart_from_diff_and_inj() -> None:
    assert caught_without_cost(["diff", "cost:s+"]) and caught_without_cost(["s-:capacity_overload"])
    assert not caught_without_cost(["cost:s+", "cost:s+:fullest"]) and not caught_without_cost([])

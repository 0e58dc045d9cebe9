"""Issue-3 acceptance: for every variant, sampled instances across profiles solve to proven
optimality, and the independent checker finds the extracted routes feasible at the same cost.
Also the independent heuristic (PyVRP) never beats a gold optimum."""

from __future__ import annotations

import pytest
from vrpcoder.audit import audit_gold
from vrpcoder.checker import check
from vrpcoder.crosscheck import solve_pyvrp
from vrpcoder.gold.render import choose_features
from vrpcoder.sampling import applicable_profiles, sample_instance
from vrpcoder.variants import VARIANTS

PER_VARIANT = 10


def grid(variant: str, count: int) -> list[tuple[int, int]]:
    """``count`` (profile, seed) points cycling through every applicable profile."""
    profiles = applicable_profiles(variant)
    return [(profiles[i % len(profiles)], i // len(profiles)) for i in range(count)]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_one_instance_per_variant_is_trusted(variant: str) -> None:
    audit = audit_gold(sample_instance(variant, 3, 0))
    assert audit.trusted, audit


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_ten_instances_per_variant_are_trusted(variant: str) -> None:
    for profile, seed in grid(variant, PER_VARIANT):
        audit = audit_gold(sample_instance(variant, profile, seed), time_limit=120)
        assert audit.trusted, (profile, seed, audit)


CROSS = ["CVRP", "VRPHTW", "MDVRP", "HFVRP", "OVRP"]


@pytest.mark.parametrize("variant", CROSS)
def test_pyvrp_never_beats_the_gold_optimum(variant: str) -> None:
    instance = sample_instance(variant, 5, 0)
    gold = audit_gold(instance)
    assert gold.trusted and gold.objective is not None
    found = solve_pyvrp(instance, seconds=0.5)
    assert found is not None
    report = check(instance, found)
    assert report.feasible
    assert gold.objective <= report.cost + 1e-6 * max(1.0, gold.objective)


TWO_INDEX_VARIANTS = {"CVRP", "MDVRP", "OVRP", "VRPB", "VRPHTW", "VRPSTW", "MDVRPSTW", "OVRPHTW"}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_sampled_instances_get_the_two_index_gold_exactly_where_it_states_them(variant: str) -> None:
    """The two-index model (faster, and its size does not grow with the fleet) is the gold of every
    sampled instance of the eight variants with identical vehicles; every other variant keeps the
    vehicle-indexed gold, which can state a rule of one vehicle."""
    for profile in applicable_profiles(variant):
        instance = sample_instance(variant, profile, 0)
        assert choose_features(instance).two_index is (variant in TWO_INDEX_VARIANTS), (variant, profile)

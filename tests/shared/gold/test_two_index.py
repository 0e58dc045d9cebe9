"""The two-index gold model (identical vehicles, fleet as one bound per depot): the gold wherever it
states the instance, equal to the vehicle-indexed model where both fit the licence, and the oracle
of its own probes on the library sub-instances whose vehicle-indexed model would not fit."""

from __future__ import annotations

from pathlib import Path

import pytest
from vrpcoder.checker import check
from vrpcoder.gold import GoldStatus, render_gold, solve_gold
from vrpcoder.gold.render import (
    LICENCE_LIMIT,
    choose_features,
    is_two_index,
    licence_needs_two_index,
    model_size,
    two_index_allowed,
)
from vrpcoder.importers import import_instance
from vrpcoder.samples import build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.verification import verify

DATA = Path(__file__).resolve().parents[2] / "data" / "instances"


@pytest.mark.parametrize(
    ("path", "customers", "two_index"),
    [
        ("solomon/C101.txt", 10, False),  # 1,440 vehicle-indexed variables: fits
        ("solomon/C101.txt", 12, True),  # 2,352 with the fleet of 12: does not
        ("mdvrp/p01", 5, False),
        ("mdvrp/p01", 8, True),  # 4 depots x 4 vehicles: 2,520
        ("cvrplib/A-n32-k5.vrp", 12, False),
    ],
)
def test_the_licence_rule_names_exactly_the_instances_the_vehicle_indexed_model_cannot_state(
    path: str, customers: int, two_index: bool
) -> None:
    """The gold is the two-index model on all of them (identical vehicles); the licence rule, which
    the gold-derived attackers follow (they need the vehicle index), names where it must be."""
    instance = import_instance(DATA / path, customers=customers)
    three = model_size(render_gold(instance, two_index=False))
    assert (max(three) > LICENCE_LIMIT) is two_index
    assert licence_needs_two_index(instance) is two_index
    assert choose_features(instance).two_index
    assert is_two_index(render_gold(instance))
    assert not is_two_index(render_gold(instance, two_index=False))
    assert max(model_size(render_gold(instance))) <= LICENCE_LIMIT


TWO_INDEX_VARIANTS = ["CVRP", "MDVRP", "OVRP", "VRPB", "VRPHTW", "VRPSTW", "MDVRPSTW", "OVRPHTW"]


def test_only_identical_vehicles_of_known_modules_get_the_two_index_model() -> None:
    for variant in TWO_INDEX_VARIANTS:
        assert two_index_allowed(sample_instance(variant, 5, 0, customers=6)), variant
    for variant in ("HFVRP", "SDVRP", "DCVRP", "MCVRP", "PDP", "TSP"):
        assert not two_index_allowed(sample_instance(variant, 5, 0, customers=6)), variant
    with pytest.raises(ValueError, match="cannot state"):
        render_gold(sample_instance("SDVRP", 5, 0, customers=6), two_index=True)


def with_fleet(variant: str, seed: int, customers: int, size: int):  # noqa: ANN201 - an Instance
    """A sampled instance whose fleet is ``size`` identical vehicles spread over its depots."""
    base = sample_instance(variant, 5, seed, customers=customers)
    first = {}
    for vehicle in base.vehicles:
        first.setdefault(vehicle.depot, vehicle)
    per_depot = size // len(first)
    return base.model_copy(update={"vehicles": tuple(first[d] for d in sorted(first) for _ in range(per_depot))})


@pytest.mark.parametrize("variant", TWO_INDEX_VARIANTS)
@pytest.mark.parametrize("seed", [0, 1])
def test_both_models_agree_on_the_optimum_and_the_routes_check(variant: str, seed: int) -> None:
    instance = sample_instance(variant, 5, seed, customers=8)
    three = solve_gold(instance, two_index=False)
    two = solve_gold(instance, two_index=True)
    assert three.status is GoldStatus.OPTIMAL and two.status is GoldStatus.OPTIMAL
    assert two.objective == pytest.approx(three.objective, rel=1e-6)
    assert two.solution is not None
    report = check(instance, two.solution)
    assert report.feasible, report.violations
    assert report.cost == pytest.approx(two.objective, rel=1e-6)


@pytest.mark.parametrize(("path", "customers"), [("solomon/C101.txt", 12), ("mdvrp/p01", 8)])
def test_two_index_gold_labels_its_probes_and_passes_them(path: str, customers: int) -> None:
    instance = import_instance(DATA / path, customers=customers)
    assert choose_features(instance).two_index
    report = build_samples(instance, relax_instance=False)
    assert report.samples, report.records
    assert all(r.outcome.value in ("kept", "not_applicable") for r in report.records), report.records
    base = report.samples[0]
    assert "x[i, j] = 1 when a vehicle drives" in base.gold_code
    assert len(base.probes) >= 3  # s+ and violating probes, every one confirmed by gold and checker
    for sample in report.samples:
        verdict = verify(sample.gold_code, sample)
        assert verdict.reward == pytest.approx(1.0), verdict


@pytest.mark.slow
@pytest.mark.parametrize("variant", TWO_INDEX_VARIANTS)
def test_a_fleet_of_twelve_at_twelve_customers_gets_a_gold_that_passes_its_own_probes(variant: str) -> None:
    instance = with_fleet(variant, 1, 12, 12)
    assert max(model_size(render_gold(instance, two_index=False))) > LICENCE_LIMIT
    assert choose_features(instance).two_index
    report = build_samples(instance, relax_instance=False)
    assert report.samples, report.records
    assert all(r.outcome.value in ("kept", "not_applicable") for r in report.records), report.records
    for sample in report.samples:
        assert verify(sample.gold_code, sample).reward == pytest.approx(1.0)

"""Depot-free cycles the gold model admits without its subtour module (``vrpcoder.attacks.cycles``):
why ``omit:subtour`` survived at VRPB profile 4 seed 1, and the proof that it is equivalent there."""

from __future__ import annotations

from itertools import combinations

import pytest
from vrpcoder.attacks.cycles import cycles_impossible
from vrpcoder.candidate import build_candidate
from vrpcoder.families import Family
from vrpcoder.gold import remove_family, render_gold
from vrpcoder.injection import InjVerdict, inject
from vrpcoder.mutants import is_equivalent, mutation_rules
from vrpcoder.samples import build_grid_point
from vrpcoder.sampling import sample_instance


@pytest.fixture(scope="module")
def vrpb_point():  # type: ignore[no-untyped-def]
    """The samples of VRPB profile 4 seed 1, where the omission survived."""
    return build_grid_point("VRPB", 4, 1).samples


def test_no_two_backhauls_fit_one_vehicle_at_that_point(vrpb_point) -> None:  # type: ignore[no-untyped-def]
    """The data behind the proof: any backhaul-only cycle overloads its vehicle on its own."""
    instance = vrpb_point[0].instance
    capacity = instance.vehicles[0].capacity
    backhauls = [c.demand for c in instance.customers if c.backhaul]
    assert capacity is not None and len(backhauls) >= 2
    assert all(a + b > capacity for a, b in combinations(backhauls, 2))


@pytest.mark.parametrize("two_index", [False, True], ids=["vehicle-indexed", "two-index"])
def test_that_point_admits_no_cycle_without_the_subtour_module(vrpb_point, two_index: bool) -> None:  # type: ignore[no-untyped-def]
    for sample in vrpb_point:
        assert cycles_impossible(sample.instance, two_index=two_index), sample.id


def test_the_subtour_probe_is_rejected_by_the_mutant_through_the_vehicles_load(vrpb_point) -> None:  # type: ignore[no-untyped-def]
    """The vehicle-indexed model without its subtour module counts the probe's cycle into the load
    of the vehicle that drives it: rejected, and accepted once capacity goes too."""
    base = vrpb_point[0]
    probe = next(p for p in base.probes if p.family is Family.SUBTOUR)
    assert probe.solution.cycles
    gold = render_gold(base.instance, two_index=False)
    without_subtour = build_candidate(remove_family(gold, Family.SUBTOUR.value))
    assert inject(without_subtour, base.instance, probe).verdict is InjVerdict.INFEASIBLE
    without_both = remove_family(remove_family(gold, Family.SUBTOUR.value), Family.CAPACITY.value)
    assert inject(build_candidate(without_both), base.instance, probe).verdict is InjVerdict.FEASIBLE


@pytest.mark.parametrize(
    ("variant", "profile", "seed", "two_index", "impossible"),
    [
        ("CVRP", 2, 1, False, False),  # a light cycle rides on a vehicle with room to spare
        ("TSP", 1, 0, None, False),  # nothing but the subtour rule forbids a cycle
        ("VRPHTW", 1, 0, None, True),  # start times grow along every arc
        ("CVRP", 2, 1, True, True),  # two-index loads grow along every customer-to-customer arc
    ],
)
def test_cycles_are_found_where_the_other_rules_allow_them(
    variant: str, profile: int, seed: int, two_index: bool | None, impossible: bool
) -> None:
    instance = sample_instance(variant, profile, seed)
    assert cycles_impossible(instance, two_index=two_index) is impossible


def test_the_mutation_harness_calls_the_omission_equivalent_at_that_point(vrpb_point) -> None:  # type: ignore[no-untyped-def]
    rule = next(r for r in mutation_rules("VRPB") if r.name == "omit:subtour")
    assert is_equivalent(rule, [s.instance for s in vrpb_point])
    tsp = next(r for r in mutation_rules("TSP") if r.name == "omit:subtour")
    assert not is_equivalent(tsp, [sample_instance("TSP", 1, 0)])

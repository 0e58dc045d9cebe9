"""The attacker registry against sampled instances of all 21 variants.

Every result must be an attack that meets the checker half of the label rule (s+ feasible and s-
breaking exactly the target family on the attack's instance) or a skip with a reason, and a
parameter attack may only tighten its own bound on the attacked copy, never another one.
"""

from __future__ import annotations

from collections import Counter

import pytest
from vrpcoder.attacks.derived import REQUIREMENTS, RULE_REQUIREMENTS
from vrpcoder.attacks import ATTACKERS_IMPL, Attack, AttackSkipped, BoundKind, run_attack, run_attacks
from vrpcoder.checker import check
from vrpcoder.feasible import construct_feasible, feasible_probe
from vrpcoder.instances import Instance
from vrpcoder.relaxation import relax
from vrpcoder.sampling import applicable_profiles, sample_instance, sample_with_plan
from vrpcoder.solutions import Solution
from vrpcoder.variants import ATTACKERS, DERIVED_ATTACKERS, DERIVED_RULE_ATTACKERS, VARIANTS, Attacker

from tests.shared.attacks.tiny import Case, plan

BASE_PAIRS = {
    "SDVRP": (Attacker.SD_REMOVE_CUSTOMER, Attacker.SD_ISOLATED_SUBTOUR),
}
BASE_PAIR = (Attacker.REMOVE_CUSTOMER, Attacker.SUBTOUR_CYCLE)


def sampled(variant: str, profile: int, seed: int) -> tuple[Instance, Solution]:
    """I* and s+ of a sampled instance, as the pipeline builds them."""
    instance = sample_instance(variant, profile, seed)
    probe = feasible_probe(instance)
    assert probe is not None, f"no s+ for {variant} profile {profile} seed {seed}"
    return relax(instance, probe.solution), probe.solution


def looseness(instance: Instance) -> dict[str, float]:
    """Every bound as a number that grows when the bound is relaxed (window starts negated)."""
    out: dict[str, float] = {}
    for k, vehicle in enumerate(instance.vehicles):
        if vehicle.capacity is not None:
            out[f"capacity/{k}"] = vehicle.capacity
        for c, limit in enumerate(vehicle.compartment_capacity or ()):
            out[f"compartment/{k}/{c}"] = limit
    if instance.max_route_distance is not None:
        out["distance"] = instance.max_route_distance
    for node, customer in zip(instance.customer_nodes, instance.customers, strict=True):
        if customer.window is not None:
            out[f"window/{node}/open"] = -customer.window.start
            out[f"window/{node}/close"] = customer.window.end
    for d, depot in enumerate(instance.depots):
        if depot.window is not None:
            out[f"depot/{d}/open"] = -depot.window.start
            out[f"depot/{d}/close"] = depot.window.end
    return out


def attacked_keys(result: Attack) -> set[str]:
    bound = result.bound
    assert bound is not None
    keys = looseness(result.instance)
    vehicles = (
        {str(bound.vehicle)}
        if bound.vehicle is not None
        else {str(k) for k in range(len(result.instance.vehicles))}
    )
    if bound.kind is BoundKind.CAPACITY:
        return {key for key in keys if key.startswith("capacity/") and key.split("/")[1] in vehicles}
    if bound.kind is BoundKind.COMPARTMENT_CAPACITY:
        return {f"compartment/{k}/{bound.compartment}" for k in vehicles}
    if bound.kind is BoundKind.MAX_ROUTE_DISTANCE:
        return {"distance"}
    return {key for key in keys if key.startswith("window/")}


def assert_sound(star: Instance, plus: Solution, result: Attack | AttackSkipped) -> None:
    if isinstance(result, AttackSkipped):
        assert result.reason
        return
    info = ATTACKERS[result.attacker]
    assert result.family is info.target
    assert check(result.instance, plus).feasible, f"{result.attacker}: s+ infeasible on the attack's instance"
    assert check(result.instance, result.solution).families == (info.target,), result.attacker
    if not info.parametric:
        assert result.instance == star
        return
    before, after = looseness(star), looseness(result.instance)
    assert before.keys() == after.keys()
    tightened = attacked_keys(result)
    for key in before:
        if key in tightened:
            assert after[key] <= before[key] + 1e-9, f"{result.attacker}: {key} was loosened"
        else:
            assert after[key] >= before[key] - 1e-9, f"{result.attacker}: {key} was tightened"


# ---- the registry -----------------------------------------------------------------------------


def test_every_attacker_has_an_implementation() -> None:
    """Plan-editing attackers are in ATTACKERS_IMPL; the gold-derived ones run through
    ``vrpcoder.attacks.derived`` with one requirement per family (and per rule of a compound
    family that has its own)."""
    derived = {
        *DERIVED_ATTACKERS.values(),
        *DERIVED_RULE_ATTACKERS.values(),
        Attacker.DERIVED_SERVICE_TIME,
        Attacker.DERIVED_WAITING,
    }
    assert set(ATTACKERS_IMPL) == set(Attacker) - derived
    assert {ATTACKERS[a].target for a in derived} == set(REQUIREMENTS)
    assert set(DERIVED_RULE_ATTACKERS) == set(RULE_REQUIREMENTS)


def test_an_attacker_the_variant_does_not_enable_is_refused(cvrp: Case) -> None:
    with pytest.raises(ValueError, match="not enabled for CVRP"):
        run_attack(Attacker.TIME_WINDOW, cvrp.instance, cvrp.plus)


def test_an_infeasible_s_plus_is_refused(cvrp: Case) -> None:
    with pytest.raises(ValueError, match="not feasible"):
        run_attack(Attacker.REMOVE_CUSTOMER, cvrp.instance, plan((0, (1, 2, 3)), (1, (4,))))


def test_run_attacks_runs_the_variants_attackers_in_table_order(cvrp: Case) -> None:
    results = run_attacks(cvrp.instance, cvrp.plus, seed=2)
    assert [r.attacker for r in results] == list(cvrp.instance.spec.enabled_attackers)
    assert results == run_attacks(cvrp.instance, cvrp.plus, seed=2)


# ---- sampled instances ------------------------------------------------------------------------


REGULAR_PROFILES = range(1, 13)
"""Profiles 1-12: several vehicles and at least five customers, so the base pair always exists."""


def solver_free_plans(variant: str, profile: int, seed: int) -> list[tuple[Instance, Solution]]:
    """(I*, s+) for the heuristic's plan and for the sampler's own reference plan: two plan shapes,
    and no time-limited solve whose answer could change with the machine's load."""
    instance, reference = sample_with_plan(variant, profile, seed)
    plans = [p for p in (construct_feasible(instance), reference) if p is not None]
    return [(relax(instance, p), p) for p in plans]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_variant_on_every_profile_once(variant: str) -> None:
    for profile in applicable_profiles(variant):
        for star, plus in solver_free_plans(variant, profile, 0):
            results = run_attacks(star, plus, seed=0)
            assert [r.attacker for r in results] == list(star.spec.enabled_attackers)
            for result in results:
                assert_sound(star, plus, result)
            if profile in REGULAR_PROFILES:
                base = BASE_PAIRS.get(variant, BASE_PAIR)
                assert all(isinstance(r, Attack) for r in results if r.attacker in base), (profile, results)


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_variant_over_all_its_profiles(variant: str) -> None:
    """Base pair on at least 80 % and every other enabled attacker on at least 60 % of the grid
    (single-vehicle profiles and tight pickup-delivery windows leave some probes impossible)."""
    made: Counter[Attacker] = Counter()
    total = 0
    for profile in applicable_profiles(variant):
        for seed in (1, 2, 3):
            star, plus = sampled(variant, profile, seed)
            total += 1
            for result in run_attacks(star, plus, seed=seed):
                assert_sound(star, plus, result)
                made[result.attacker] += isinstance(result, Attack)
    base = BASE_PAIRS.get(variant, BASE_PAIR)
    for attacker in VARIANTS[variant].enabled_attackers:
        share = made[attacker] / total
        assert share >= (0.8 if attacker in base else 0.6), f"{attacker.value}: {made[attacker]}/{total}"

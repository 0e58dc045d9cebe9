"""One rule alone (issue 28.2), end to end on small sampled instances: for each rule of a compound
family, the base sample carries a probe the checker finds breaking that rule alone, the gold
script passes the sample with full reward, and the gold script with just that rule taken out
(``vrpcoder.mutants.SUBRULES``) fails that probe.

Each point is a small grid point (6 customers) whose base sample admits the probe; a few use the
sampled instance with one number changed where no sampled one admits it (sampled depots close
after any route can return; sampled pair quantities are never equal). Split delivery's load is
probed on the base sample too (before, only its attacked copies carried a capacity probe).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import pytest
from vrpcoder.checker import check, return_time
from vrpcoder.families import Rule
from vrpcoder.feasible import feasible_probe
from vrpcoder.instances import Instance, TimeWindow
from vrpcoder.mutants import SUBRULES, equivalence_reason, failures, is_equivalent, mutation_rules
from vrpcoder.probes import Probe
from vrpcoder.samples import Sample, build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.variants import ATTACKERS, Attacker
from vrpcoder.verification import VerifyConfig, verify

CUSTOMERS = 6
CONFIG = VerifyConfig(time_limit=60.0)


def _tight_depot(instance: Instance) -> Instance:
    """The depot closes 5 after s+'s latest return (sampled depots close after any route can be back)."""
    found = feasible_probe(instance)
    assert found is not None
    back = max(return_time(instance, r) for r in found.solution.routes if r.visits)
    depot = instance.depots[0].model_copy(update={"window": TimeWindow(start=0.0, end=round(back + 5.0, 2))})
    return instance.model_copy(update={"depots": (depot,), "name": f"{instance.name}-tight-depot"})


def _equal_pairs(instance: Instance) -> Instance:
    """Every pair carries the smallest quantity (sampled quantities are never equal)."""
    least = min(p.quantity for p in instance.pairs)
    pairs = tuple(p.model_copy(update={"quantity": least}) for p in instance.pairs)
    return instance.model_copy(update={"pairs": pairs, "name": f"{instance.name}-equal-pairs"})


EDITS = {"tight_depot": _tight_depot, "equal_pairs": _equal_pairs}


@cache
def base_sample(variant: str, profile: int, seed: int, edit: str | None = None) -> Sample:
    instance = sample_instance(variant, profile, seed, customers=CUSTOMERS)
    if edit is not None:
        instance = EDITS[edit](instance)
    report = build_samples(instance, seed=seed, parameter_attacks=False, relax_instance=edit is None)
    base = report.samples[0]
    assert base.kind == "base"
    return base


@cache
def gold_passes(variant: str, profile: int, seed: int, edit: str | None = None) -> bool:
    sample = base_sample(variant, profile, seed, edit)
    verdict = verify(sample.gold_code, sample, CONFIG)
    return verdict.passed and verdict.reward == pytest.approx(1.0)


@dataclass(frozen=True)
class Case:
    variant: str
    point: tuple[int, int]
    attacker: Attacker
    rule: Rule
    mutant: str
    edit: str | None = None
    old_probe: Attacker | None = None
    """The probe that breaks more than this rule (or another rule of it), which the mutant passes."""

    @property
    def id(self) -> str:
        return f"{self.variant}-p{self.point[0]}s{self.point[1]}-{self.attacker.value}-{self.mutant}"


CASES = (
    Case("VRPB", (1, 0), Attacker.BACKHAUL_ORDER, Rule.LINEHAUL_FIRST, "omit:linehaul_first"),
    Case("VRPB", (4, 0), Attacker.BACKHAUL_START, Rule.LINEHAUL_START, "omit:linehaul_start"),
    Case("VRPB", (4, 1), Attacker.DERIVED_BACKHAUL_START, Rule.LINEHAUL_START, "omit:linehaul_start",
         old_probe=Attacker.BACKHAUL_ORDER),
    Case("TSP", (1, 0), Attacker.EXTRA_ROUTE, Rule.FLEET_SIZE, "omit:one_route"),
    Case("CVRP", (1, 0), Attacker.EXTRA_ROUTE, Rule.FLEET_SIZE, "omit:fleet_size"),
    Case("PDP", (1, 0), Attacker.EXTRA_ROUTE, Rule.FLEET_SIZE, "omit:one_route"),
    Case("MDVRP", (1, 0), Attacker.FOREIGN_DEPOT_START, Rule.OWN_DEPOT, "relax:route_start_any_depot",
         old_probe=Attacker.OTHER_DEPOT_RETURN),
    Case("HFMDVRP", (1, 1), Attacker.FOREIGN_DEPOT_START, Rule.OWN_DEPOT, "relax:route_start_any_depot"),
    Case("PDP", (1, 0), Attacker.PRECEDENCE_CARRIED, Rule.PICKUP_FIRST, "relax:precedence_by_load",
         old_probe=Attacker.PRECEDENCE),
    Case("PDPSTW", (1, 0), Attacker.PRECEDENCE_CARRIED, Rule.PICKUP_FIRST, "relax:precedence_by_load",
         old_probe=Attacker.PRECEDENCE),
    Case("PDP", (1, 0), Attacker.PAIR_EXCHANGE, Rule.SAME_VEHICLE, "relax:pairing_by_load", edit="equal_pairs",
         old_probe=Attacker.SPLIT_PD_PAIR),
    Case("VRPHTW", (1, 0), Attacker.WAITING_EDGE, Rule.WINDOW_CLOSE, "omit:window_open"),
    Case("OVRPHTW", (2, 0), Attacker.DERIVED_WAITING, Rule.WINDOW_CLOSE, "omit:window_open"),
    Case("VRPHTW", (1, 0), Attacker.TIME_WINDOW_EDGE, Rule.WINDOW_CLOSE, "relax:time_window_no_close"),
    Case("VRPHTW", (2, 0), Attacker.DEPOT_CLOSE_EDGE, Rule.DEPOT_CLOSE, "omit:depot_close", edit="tight_depot"),
    Case("MCVRP", (1, 1), Attacker.COMPARTMENT_EDGE, Rule.COMPARTMENT_LOAD, "omit:compartment_load[1]",
         old_probe=Attacker.OTHER_COMPARTMENT_EDGE),
    Case("MCVRP", (1, 1), Attacker.OTHER_COMPARTMENT_EDGE, Rule.COMPARTMENT_LOAD, "omit:compartment_load[0]",
         old_probe=Attacker.COMPARTMENT_EDGE),
    Case("MCVRP", (2, 1), Attacker.DERIVED_COMPARTMENT, Rule.COMPARTMENT_LOAD, "omit:compartment_load[0]",
         old_probe=Attacker.COMPARTMENT_EDGE),
    Case("HFVRP", (1, 0), Attacker.SMALLEST_VEHICLE_EDGE, Rule.LOAD, "relax:capacity_largest_for_all"),
    Case("HFMCVRP", (1, 0), Attacker.SMALLEST_VEHICLE_COMPARTMENT_EDGE, Rule.COMPARTMENT_LOAD,
         "relax:compartment_largest_for_all"),
    Case("HFVRP", (4, 3), Attacker.MIDDLE_VEHICLE_EDGE, Rule.LOAD, "relax:capacity_middle_as_largest",
         old_probe=Attacker.SMALLEST_VEHICLE_EDGE),
    Case("HFMCVRP", (4, 1), Attacker.MIDDLE_VEHICLE_COMPARTMENT_EDGE, Rule.COMPARTMENT_LOAD,
         "relax:compartment_middle_as_largest", old_probe=Attacker.SMALLEST_VEHICLE_COMPARTMENT_EDGE),
    Case("DCVRP", (1, 0), Attacker.DISTANCE_EDGE, Rule.ROUTE_DISTANCE, "relax:distance_fleet_total"),
    Case("SDVRP", (1, 0), Attacker.SPLIT_LOAD_EDGE, Rule.LOAD, "omit:capacity"),
    Case("SDVRP", (1, 0), Attacker.SPLIT_LOAD_EDGE, Rule.LOAD, "omit:delivery_coupling"),
    Case("SDVRP", (1, 0), Attacker.EXTRA_ROUTE, Rule.FLEET_SIZE, "omit:one_route"),
)


def _probe(sample: Sample, attacker: Attacker) -> Probe:
    found = [p for p in sample.probes if p.attacker is attacker]
    assert found, f"no {attacker.value} probe on {sample.id}: {[p.name for p in sample.probes]}"
    return found[0]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_rule_alone_is_probed_and_its_omission_caught(case: Case) -> None:
    sample = base_sample(case.variant, *case.point, case.edit)
    probe = _probe(sample, case.attacker)
    report = check(sample.instance, probe.solution)
    assert report.rules == (case.rule,), [v.detail for v in report.violations]
    if ATTACKERS[case.attacker].single:
        assert len(report.violations) == 1
    assert gold_passes(case.variant, *case.point, case.edit)

    (rule,) = [r for r in mutation_rules(case.variant) if r.name == case.mutant]
    mutant = rule.apply(sample.gold_code, sample)
    assert mutant is not None and mutant != sample.gold_code
    verdict = verify(mutant, sample, CONFIG)
    failed = failures(verdict)
    assert probe.name in failed, failed
    assert verdict.reward is not None and verdict.reward < 1.0
    if case.old_probe is not None:
        old = _probe(sample, case.old_probe)
        assert old.name not in failed, f"{old.name} already catches {case.mutant}: the case shows nothing new"


def test_every_sub_rule_mutant_has_a_case() -> None:
    assert {r.name for r in SUBRULES} - {c.mutant for c in CASES} == set()


def test_a_compartment_no_plan_overloads_alone_makes_its_omission_equivalent() -> None:
    """MCVRP profile 2 seed 0: compartment 0 can be overloaded only together with compartment 1
    (the gold model without the compartment rule, asked for compartment 0 alone, proves it), so
    a script without compartment 0's limit has the gold's feasible set there; compartment 1's
    omission is caught."""
    sample = base_sample("MCVRP", 2, 0)
    rules = {r.name: r for r in mutation_rules("MCVRP")}
    assert is_equivalent(rules["omit:compartment_load[0]"], [sample.instance])
    assert not is_equivalent(rules["omit:compartment_load[1]"], [sample.instance])
    reason = equivalence_reason(rules["omit:compartment_load[0]"], [sample.instance])
    assert reason is not None and "compartment 0" in reason


def test_a_middle_vehicle_whose_compartments_fill_its_total_makes_its_capacity_relaxation_equivalent() -> None:
    """HFMCVRP profile 4 seed 1: the middle vehicle (capacity 30) has compartments of 16.41 and 13.59,
    30 together, so its total never binds before them and giving it the largest total changes no
    plan's feasibility; the mutation report once counted this as a miss. Its compartments
    themselves still bind, so their relaxation stays a bug to catch."""
    instance = sample_instance("HFMCVRP", 4, 1)
    middle = [v for v in instance.vehicles if v.capacity == 30.0]
    assert middle and sum(middle[0].compartment_capacity or ()) <= 30.0 + 1e-6
    rules = {r.name: r for r in mutation_rules("HFMCVRP")}
    assert is_equivalent(rules["relax:capacity_middle_as_largest"], [instance])
    assert not is_equivalent(rules["relax:compartment_middle_as_largest"], [instance])
    roomier = tuple(
        v.model_copy(update={"compartment_capacity": tuple(2 * c for c in v.compartment_capacity or ())})
        if v.capacity == 30.0 else v
        for v in instance.vehicles
    )
    assert sum(c.demand for c in instance.customers) > 30.0
    wider = instance.model_copy(update={"vehicles": roomier})
    assert not is_equivalent(rules["relax:capacity_middle_as_largest"], [wider]), "its total binds once its rooms exceed it"

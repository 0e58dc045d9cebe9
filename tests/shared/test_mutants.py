"""Mutation harness: planted omissions are caught, and DIFF alone is shown to miss some."""

from __future__ import annotations

import pytest
from vrpcoder.candidate import build_candidate
from vrpcoder.families import Family
from vrpcoder.gold import is_two_index, remove_family, render_gold
from vrpcoder.instances import Customer, Depot, Instance, Vehicle
from vrpcoder.mutants import (
    ONE_FORMULATION,
    MutantKind,
    equivalence_reason,
    every_vehicle_needed,
    is_equivalent,
    is_equivalent_omission,
    mutation_rules,
    run_mutants,
)
from vrpcoder.samples import build_grid_point, build_samples
from vrpcoder.sampling import applicable_profiles, sample_instance
from vrpcoder.variants import Module, get_variant
from vrpcoder.verification import verify


@pytest.fixture(scope="module")
def cvrp_reports() -> list:  # type: ignore[type-arg]
    return run_mutants(build_grid_point("CVRP", 2, 1).samples)


def test_every_attacked_omission_is_killed_by_the_dual_verifier(cvrp_reports: list) -> None:  # type: ignore[type-arg]
    omissions = [r for r in cvrp_reports if r.kind is MutantKind.OMIT and r.has_attacker]
    assert {r.family for r in omissions} == {Family.COVERAGE, Family.ROUTE_STRUCTURE, Family.SUBTOUR, Family.CAPACITY}
    assert all(r.killed_by_dual for r in omissions if not r.equivalent)
    # the two-index gold's loads forbid depot-free cycles by themselves ...
    assert [r.family for r in omissions if r.equivalent] == [Family.SUBTOUR]


def test_the_vehicle_indexed_subtour_omission_is_killed_on_samples_of_the_two_index_gold() -> None:
    """... and the vehicle-indexed script without subtour elimination (cycles within a vehicle's
    capacity) still fails the subtour probe the two-index gold labels."""
    base = build_grid_point("CVRP", 2, 1).samples[0]
    assert is_two_index(base.gold_code)
    mutant = remove_family(render_gold(base.instance, two_index=False), Family.SUBTOUR.value)
    verdict = verify(mutant, base)
    assert "s-:subtour_cycle" in [p.name for p in verdict.probes if p.judged and not p.passed]


def test_diff_alone_misses_a_mutant_the_dual_verifier_kills(cvrp_reports: list) -> None:  # type: ignore[type-arg]
    blind = [r for r in cvrp_reports if r.killed_by_dual and not r.killed_by_diff]
    assert blind, "expected at least one mutant in DIFF's blind spot"
    spurious = next(r for r in cvrp_reports if r.name == "spurious:arc_ban")
    assert spurious.killed_by_dual and "base:s+" in spurious.caught_by


def test_relaxed_capacity_is_caught_by_the_overload_probe(cvrp_reports: list) -> None:  # type: ignore[type-arg]
    relaxed = next(r for r in cvrp_reports if r.name == "relax:capacity_global")
    assert relaxed.killed_by_dual
    assert any("capacity_overload" in c for c in relaxed.caught_by)


def test_rules_follow_the_variant() -> None:
    names = {r.name for r in mutation_rules("DCVRP")}
    assert {"omit:distance", "relax:distance_no_return_leg"} <= names
    assert "relax:time_window_no_close" not in names
    assert {r.name for r in mutation_rules("TSP", [MutantKind.OMIT])} == {
        "omit:coverage", "omit:route_structure", "omit:subtour", "omit:fleet_size", "omit:one_route"
    }


@pytest.mark.parametrize(
    ("variant", "family", "equivalent"),
    [("VRPHTW", Family.SUBTOUR, True), ("VRPSTW", Family.SUBTOUR, True), ("CVRP", Family.SUBTOUR, False),
     ("VRPHTW", Family.CAPACITY, False)],
)
def test_equivalent_omissions_are_declared_in_one_table(variant: str, family: Family, equivalent: bool) -> None:
    assert is_equivalent_omission(variant, family) is equivalent


def test_time_window_omission_in_a_timed_variant_is_killed() -> None:
    reports = run_mutants(build_grid_point("VRPHTW", 2, 1).samples, kinds=[MutantKind.OMIT, MutantKind.RELAX])
    by_name = {r.name: r for r in reports}
    assert by_name["omit:time_window"].killed_by_dual
    assert by_name["relax:time_window_no_close"].killed_by_dual
    assert by_name["omit:subtour"].equivalent


def test_pooled_compartments_are_caught_by_the_compartment_probe() -> None:
    """The probe overloads one compartment while the holds taken together still fit, so a model
    that pools them into one hold accepts it."""
    reports = run_mutants(build_grid_point("MCVRP", 1, 0).samples, kinds=[MutantKind.RELAX])
    pooled = next(r for r in reports if r.name == "relax:compartment_pooled")
    assert pooled.killed_by_dual
    assert any("compartment_overload" in c for c in pooled.caught_by)


DEPOT = Depot(x=50, y=50)


def _fleet(capacities: tuple[float | None, ...], demands: tuple[float, ...], backhaul: tuple[bool, ...] = (), variant: str = "CVRP") -> Instance:
    flags = backhaul or (False,) * len(demands)
    customers = tuple(
        Customer(x=40 + 5 * i, y=45, demand=d, backhaul=b) for i, (d, b) in enumerate(zip(demands, flags, strict=True))
    )
    return Instance(
        name="fleet", variant=variant, depots=(DEPOT,), customers=customers,
        vehicles=tuple(Vehicle(capacity=c) for c in capacities),
    )


@pytest.mark.parametrize(
    ("name", "instance", "needed"),
    [
        ("one vehicle", _fleet((10,), (3, 3)), True),
        ("demand beyond one vehicle", _fleet((10, 10), (6, 6)), True),
        ("one vehicle carries everything", _fleet((10, 10), (4, 5)), False),
        ("exactly one vehicle's load", _fleet((10, 10), (5, 5)), False),
        ("the larger vehicles can do without the smallest", _fleet((5, 20, 30), (10, 10, 10), variant="HFVRP"), False),
        ("the two largest are not enough", _fleet((12, 20, 25), (15, 15, 16), variant="HFVRP"), True),
        ("pickups and deliveries each fit one vehicle", _fleet((10, 10), (6, 6), (False, True), "VRPB"), False),
        ("pickups alone need two vehicles", _fleet((10, 10), (2, 6, 6), (False, True, True), "VRPB"), True),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_fleet_is_fully_needed_when_load_says_so(name: str, instance: Instance, needed: bool) -> None:
    assert every_vehicle_needed(instance) is needed


def test_uncapacitated_fleets_are_never_shown_fully_needed() -> None:
    pdptw = build_grid_point("PDPTW", 1, 0).samples[0].instance
    assert len(pdptw.vehicles) > 1 and every_vehicle_needed(pdptw) is False


def test_linehaul_only_capacity_is_equivalent_only_where_pickups_always_fit() -> None:
    rule = next(r for r in mutation_rules("VRPB") if r.name == "relax:capacity_linehaul_only")
    light = _fleet((10, 10), (6, 6, 4, 5), backhaul=(False, False, True, True), variant="VRPB")
    heavy = _fleet((10, 10), (6, 6, 5, 6), backhaul=(False, False, True, True), variant="VRPB")
    assert is_equivalent(rule, [light])
    assert not is_equivalent(rule, [light, heavy])


def test_every_vehicle_used_is_equivalent_only_where_each_instance_implies_it() -> None:
    rule = next(r for r in mutation_rules("CVRP") if r.name == "spurious:every_vehicle_used")
    tight, slack = _fleet((10, 10), (6, 6)), _fleet((10, 10), (4, 5))
    assert is_equivalent(rule, [tight])
    assert not is_equivalent(rule, [tight, slack])
    arc_ban = next(r for r in mutation_rules("CVRP") if r.name == "spurious:arc_ban")
    assert not is_equivalent(arc_ban, [tight])
    omit_subtour = next(r for r in mutation_rules("VRPHTW") if r.name == "omit:subtour")
    assert is_equivalent(omit_subtour, [build_grid_point("VRPHTW", 1, 0).samples[0].instance])
    with pytest.raises(ValueError, match="no instance"):
        is_equivalent(rule, [])


# ---- issue 19 acceptance: one sample catches what DIFF cannot -----------------------------------


def _collinear_cvrp() -> Instance:
    """Two customers on each side of the depot on one line: a route through both sides costs
    exactly what two routes cost, so the capacity rule (each side fills a vehicle) does not move
    the optimum, yet a plan that piles both sides onto one vehicle breaks it."""
    customers = tuple(Customer(x=x, y=0.0, demand=5.0) for x in (-10.0, -20.0, 10.0, 20.0))
    return Instance(
        name="collinear",
        variant="CVRP",
        depots=(Depot(x=0.0, y=0.0),),
        customers=customers,
        vehicles=(Vehicle(capacity=10.0), Vehicle(capacity=10.0)),
    )


def test_base_sample_catches_a_script_without_capacity_where_the_optimum_does_not_move() -> None:
    base = build_samples(_collinear_cvrp()).samples[0]
    assert base.kind == "base"
    mutant = remove_family(base.gold_code, Family.CAPACITY.value)
    verdict = verify(mutant, base)
    assert verdict.diff, "capacity must not move this instance's optimum"
    failed = [p.name for p in verdict.probes if p.judged and not p.passed]
    assert failed == ["s-:capacity_edge"]
    assert not verdict.passed and verdict.reward is not None and verdict.reward < 1.0


def _rule(variant: str, name: str):  # type: ignore[no-untyped-def]
    return next(r for r in mutation_rules(variant) if r.name == name)


def test_time_window_base_sample_catches_a_script_without_service_times() -> None:
    base = build_grid_point("VRPHTW", 4, 0).samples[0]
    mutant = _rule("VRPHTW", "relax:service_time_omitted").apply(base.gold_code, base)
    assert mutant is not None and "SERVICE[i] + DIST[i][j] - big_m" not in mutant
    verdict = verify(mutant, base)
    assert verdict.diff
    assert "s-:service_time_edge" in [p.name for p in verdict.probes if p.judged and not p.passed]


def test_mdvrp_script_that_ends_routes_at_any_depot_is_caught() -> None:
    base = build_grid_point("MDVRP", 1, 0).samples[0]
    mutant = _rule("MDVRP", "relax:route_end_any_depot").apply(base.gold_code, base)
    assert mutant is not None
    verdict = verify(mutant, base)
    assert verdict.diff, "on this instance ending anywhere does not lower the optimum"
    assert [p.name for p in verdict.probes if p.judged and not p.passed] == ["s-:other_depot_return"]
    assert verify(base.gold_code, base).passed


def test_spurious_mutants_are_caught_by_a_named_feasible_probe() -> None:
    """Issue 14.3: forcing every vehicle out, or ending service before the window closes, is caught
    by one of the base sample's far-apart feasible probes, and the report names which."""
    reports = {r.name: r for r in run_mutants(build_grid_point("VRPHTW", 4, 1).samples[:1])}
    every = reports["spurious:every_vehicle_used"]
    assert every.killed_by_dual and "base:s+:fewest_vehicles" in every.caught_by
    tightened = reports["spurious:windows_tightened"]
    assert tightened.killed_by_dual and any(c.startswith("base:s+") for c in tightened.caught_by)


def test_every_vehicle_used_is_shown_equivalent_by_the_gold_fleet_minimum() -> None:
    """Where no plan leaves a vehicle home, the gold model proves it and the mutant is equivalent."""
    rule = _rule("CVRP", "spurious:every_vehicle_used")
    spread = _fleet((10, 10), (6, 6))
    assert is_equivalent(rule, [spread])
    reason = equivalence_reason(rule, [spread])
    assert reason is not None and "every vehicle" in reason


@pytest.mark.parametrize("variant", ["VRPHTW", "OVRPHTW", "VRPB", "DCVRP", "MDVRP", "OVRP"])
def test_new_partial_implementation_mutants_apply_to_the_gold_script(variant: str) -> None:
    base = build_grid_point(variant, 2, 0).samples[0]
    spec = get_variant(variant)
    names = {r.name for r in mutation_rules(variant)}
    expected = {
        "relax:service_time_omitted": spec.has(Module.HTW),
        "spurious:windows_tightened": spec.has(Module.HTW),
        "relax:capacity_backhaul_only": spec.has(Module.BH),
        "relax:route_end_any_depot": spec.has(Module.MD),
        "relax:open_route_pays_return": spec.has(Module.OPEN),
        "spurious:capacity_reduced": True,
    }
    for name, wanted in expected.items():
        if spec.has(Module.BH) or name != "relax:capacity_backhaul_only":
            assert (name in names) is wanted or (name == "relax:capacity_backhaul_only" and not wanted)
        if wanted:
            assert _rule(variant, name).apply(base.gold_code, base) is not None, name


# ---- one rule, one meaning, on both gold models -----------------------------------------------

TWO_INDEX_VARIANTS = ["CVRP", "MDVRP", "OVRP", "VRPB", "VRPHTW", "VRPSTW", "MDVRPSTW", "OVRPHTW"]


@pytest.fixture(scope="module", params=TWO_INDEX_VARIANTS)
def both_golds(request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """A base sample of ``variant`` and its gold script in each formulation."""
    sample = build_samples(sample_instance(request.param, 2, 0, customers=7), relax_instance=False).samples[0]
    scripts = {two: render_gold(sample.instance, two_index=two) for two in (False, True)}
    assert is_two_index(scripts[True]) and not is_two_index(scripts[False])
    return request.param, sample, scripts


def _optimum(code: str) -> tuple[int, float | None]:
    model = build_candidate(code).model
    return model.Status, (round(model.ObjVal, 6) if model.SolCount else None)


def test_every_rule_applies_to_both_gold_models_alike(both_golds) -> None:  # type: ignore[no-untyped-def]
    """Each rule applies to the two-index gold exactly where it applies to the vehicle-indexed one,
    and the two mutants are the same mistake: the same optimum (the same problem, stated with or
    without the vehicle index). The one exception is by design: without the subtour module the
    two-index loads still forbid cycles, so that mutant keeps the gold optimum (an equivalent one)."""
    variant, sample, scripts = both_golds
    for rule in mutation_rules(variant):
        mutants = {two: rule.apply(script, sample) for two, script in scripts.items()}
        if rule.name in ONE_FORMULATION:
            # a part of route structure only one formulation states (see ONE_FORMULATION)
            assert {two for two, code in mutants.items() if code is not None} == {ONE_FORMULATION[rule.name]}, rule.name
            continue
        assert (mutants[False] is None) is (mutants[True] is None), rule.name
        if mutants[True] is None:
            continue
        assert mutants[True] != scripts[True], rule.name
        optima = {two: _optimum(code) for two, code in mutants.items() if code is not None}
        if rule.name == "omit:subtour" and is_equivalent(rule, [sample.instance]):
            assert optima[True] == _optimum(scripts[True]), optima
        else:
            assert optima[True] == optima[False], (rule.name, optima)


@pytest.mark.parametrize("variant", TWO_INDEX_VARIANTS)
def test_the_new_rules_apply_to_the_two_index_gold(variant: str) -> None:
    """The rewrites that named the vehicle-indexed text alone (a capacity per vehicle, ``used[k]``)
    have a two-index counterpart (the arc ban, which needs an arc s+ uses and the optimum does not,
    is checked on both models above)."""
    spec = get_variant(variant)
    sample = build_samples(sample_instance(variant, 2, 1, customers=6), relax_instance=False).samples[0]
    assert is_two_index(sample.gold_code)
    applied = {r.name for r in mutation_rules(variant) if r.apply(sample.gold_code, sample) is not None}
    expected = {"spurious:every_vehicle_used", "spurious:capacity_reduced"}
    expected |= {"relax:capacity_linehaul_only", "relax:capacity_backhaul_only"} if spec.has(Module.BH) else {"relax:capacity_global"}
    expected |= {"relax:route_end_any_depot"} if spec.has(Module.MD) else set()
    expected |= {"relax:open_route_pays_return"} if spec.has(Module.OPEN) else set()
    expected |= {"relax:service_time_omitted", "spurious:windows_tightened"} if spec.has(Module.HTW) else set()
    assert expected <= applied, expected - applied


def test_subtour_omission_is_equivalent_where_two_index_loads_forbid_cycles() -> None:
    """Two-index loads grow along every customer-to-customer arc, so without the subtour module
    no depot-free cycle is feasible: the same optimum as the gold, and declared equivalent."""
    instance = sample_instance("CVRP", 2, 0, customers=7)
    sample = build_samples(instance, relax_instance=False).samples[0]
    rule = _rule("CVRP", "omit:subtour")
    assert _optimum(rule.apply(sample.gold_code, sample)) == _optimum(sample.gold_code)
    assert is_equivalent(rule, [instance])
    reason = equivalence_reason(rule, [instance])
    assert reason is not None and "two-index" in reason
    three = rule.apply(render_gold(instance, two_index=False), sample)
    assert _optimum(three)[1] < _optimum(sample.gold_code)[1]  # the vehicle-indexed omission admits cycles
    # two customers without demand can form a cycle whose loads never grow (one alone cannot)
    free = instance.model_copy(
        update={"customers": (*(c.model_copy(update={"demand": 0.0}) for c in instance.customers[:2]), *instance.customers[2:])}
    )
    assert not is_equivalent(rule, [free])
    lone = instance.model_copy(update={"customers": (instance.customers[0].model_copy(update={"demand": 0.0}), *instance.customers[1:])})
    assert is_equivalent(rule, [lone])


# ---- no rule stops applying unnoticed ---------------------------------------------------------------

_FORMULATION = {"omit:one_route", "omit:fleet_size"}
"""Route-count rows one gold formulation states and the other does not (two-index: a fleet bound per
depot; vehicle-indexed: one route per vehicle); TSP has neither."""
_NO_BACKHAUL = {"relax:capacity_backhaul_only", "relax:capacity_linehaul_only"}
"""Capacity rewrites of the linehaul/backhaul split, offered wherever capacity is, applying with it."""

NOT_APPLYING: dict[str, set[str]] = {
    "TSP": {"omit:fleet_size", "spurious:capacity_reduced"},
    "CVRP": {"omit:one_route", *_NO_BACKHAUL},
    "MDVRP": {"omit:one_route", *_NO_BACKHAUL},
    "MCVRP": {"omit:fleet_size", *_NO_BACKHAUL},
    "PDP": {"omit:fleet_size", *_NO_BACKHAUL, "relax:capacity_global", "spurious:capacity_reduced"},
    "OVRP": {"omit:one_route", *_NO_BACKHAUL},
    "DCVRP": {"omit:fleet_size", *_NO_BACKHAUL},
    "VRPB": {"omit:one_route", "relax:capacity_global"},
    "SDVRP": {"omit:fleet_size", *_NO_BACKHAUL, "relax:capacity_global", "relax:coverage_leq"},
    "VRPHTW": {"omit:one_route", *_NO_BACKHAUL},
    "VRPSTW": {"omit:one_route", *_NO_BACKHAUL},
    "HFVRP": {"omit:fleet_size", *_NO_BACKHAUL},
    "HFMDVRP": {"omit:fleet_size", *_NO_BACKHAUL},
    "HFMCVRP": {"omit:fleet_size", *_NO_BACKHAUL},
    "HFVRPHTW": {"omit:fleet_size", *_NO_BACKHAUL},
    "MDVRPSTW": {"omit:one_route", *_NO_BACKHAUL},
    "PDPSTW": {"omit:fleet_size", *_NO_BACKHAUL, "relax:capacity_global", "spurious:capacity_reduced"},
    "PDPTW": {"omit:fleet_size", "relax:pairing_by_load", "relax:precedence_by_load", "spurious:capacity_reduced"},
    "OVRPHTW": {"omit:depot_close", "omit:one_route", *_NO_BACKHAUL},
    "MCVRPSTW": {"omit:fleet_size", *_NO_BACKHAUL},
    "DCVRPHTW": {"omit:fleet_size", *_NO_BACKHAUL},
}
"""The rules a variant offers whose text rewrite finds nothing in its gold script, as measured: besides
the two sets above, load rewrites where the gold tracks no load the way they expect (pickup and
delivery, split delivery, the backhaul variant's two loads; PDPTW is uncapacitated), the split
variant's coverage row, and the depot close on open routes (no route returns)."""


@pytest.mark.parametrize("variant", sorted(NOT_APPLYING))
def test_every_offered_rule_rewrites_the_gold_script_unless_the_table_says_why(variant: str) -> None:
    """A rule whose rewrite finds no text is skipped without a word, so rewording a gold module would
    switch its mutants off and every kill rate would still look whole. Pinning the exceptions makes
    that change fail here instead."""
    points = [build_grid_point(variant, profile, 0).samples[0] for profile in list(applicable_profiles(variant))[:2]]
    offered = {r.name for r in mutation_rules(variant)}
    applied = {r.name for r in mutation_rules(variant) for s in points if r.apply(s.gold_code, s) is not None}
    assert offered - applied == NOT_APPLYING[variant]


def test_the_table_of_rules_that_do_not_apply_covers_every_variant() -> None:
    from vrpcoder.variants import VARIANTS

    assert set(NOT_APPLYING) == set(VARIANTS)

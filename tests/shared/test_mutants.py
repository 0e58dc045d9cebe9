"""Mutation harness: planted omissions are caught, and DIFF alone is shown to miss some."""

from __future__ import annotations

import pytest

from vrpcoder.families import Family
from vrpcoder.mutants import MutantKind, is_equivalent_omission, mutation_rules, run_mutants
from vrpcoder.samples import build_grid_point


@pytest.fixture(scope="module")
def cvrp_reports() -> list:  # type: ignore[type-arg]
    return run_mutants(build_grid_point("CVRP", 2, 1).samples)


def test_every_attacked_omission_is_killed_by_the_dual_verifier(cvrp_reports: list) -> None:  # type: ignore[type-arg]
    omissions = [r for r in cvrp_reports if r.kind is MutantKind.OMIT and r.has_attacker]
    assert {r.family for r in omissions} == {Family.COVERAGE, Family.SUBTOUR, Family.CAPACITY}
    assert all(r.killed_by_dual for r in omissions)


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
        "omit:coverage", "omit:route_structure", "omit:subtour"
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

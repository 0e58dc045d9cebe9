"""Solving gold scripts: every variant to optimality, checked against the checker and brute force."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

import gurobipy as gp
import pytest
from vrpcoder.checker import check
from vrpcoder.gold import (
    GoldResult,
    GoldStatus,
    extract_solution,
    module_names,
    remove_family,
    remove_module,
    render_gold,
    solve_gold,
    solve_script,
    strip_joint_modules,
)
from vrpcoder.gold.render import two_index_allowed
from vrpcoder.instances import Instance
from vrpcoder.solutions import Solution
from vrpcoder.variants import VARIANTS, Module

from tests.shared.bruteforce import brute_force_optimum

ALL_VARIANTS = list(VARIANTS)
ENUMERABLE = [v for v in ALL_VARIANTS if not VARIANTS[v].has(Module.SPLIT)]
RTOL = 1e-6


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= RTOL * max(1.0, abs(a), abs(b))


def _assert_sane(instance: Instance, solution: Solution) -> None:
    """Structure a gold plan must have, stated without the checker."""
    assert not solution.cycles
    vehicles = [r.vehicle for r in solution.routes]
    assert len(vehicles) == len(set(vehicles)), "a vehicle drives two routes"
    for route in solution.routes:
        assert route.depot == instance.vehicles[route.vehicle].depot
        assert route.visits and set(route.visits) <= set(instance.customer_nodes)
        assert len(route.visits) == len(set(route.visits)), "a route visits a customer twice"
    visits = Counter(solution.visited)
    if instance.has(Module.SPLIT):
        assert set(visits) == set(instance.customer_nodes)
        delivered: Counter[int] = Counter()
        for route in solution.routes:
            assert route.deliveries is not None
            for node, qty in zip(route.visits, route.deliveries, strict=True):
                delivered[node] += qty
        for node in instance.customer_nodes:
            assert math.isclose(delivered[node], instance.customer(node).demand, abs_tol=1e-6)
    else:
        assert visits == Counter(instance.customer_nodes)
    for pair in instance.pairs:
        route = next(r for r in solution.routes if pair.pickup in r.visits)
        assert route.visits.index(pair.pickup) < route.visits.index(pair.delivery)


def _x_entries(script: str, pattern: str = r"x\[\d+,\d+,\d+\]") -> int:
    namespace: dict[str, object] = {"__name__": "gold_test"}
    exec(compile(script, "<gold>", "exec"), namespace)
    build = namespace["build_model"]
    assert callable(build)
    model = build()
    try:
        return sum(1 for v in model.getVars() if re.fullmatch(pattern, v.VarName))
    finally:
        model.dispose()


@pytest.fixture(scope="module")
def gold_results(tiny_instance: Callable[..., Instance]) -> dict[str, tuple[Instance, GoldResult]]:
    return {v: (tiny_instance(v), solve_gold(tiny_instance(v))) for v in ALL_VARIANTS}


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_gold_reaches_a_sane_optimum(
    variant: str, gold_results: dict[str, tuple[Instance, GoldResult]]
) -> None:
    instance, result = gold_results[variant]
    assert result.status == GoldStatus.OPTIMAL, result.detail
    assert result.solution is not None and result.objective is not None
    assert result.bound is not None and _close(result.bound, result.objective)
    _assert_sane(instance, result.solution)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_routing_variable_spans_all_nodes_and_vehicles(
    variant: str, tiny_instance: Callable[..., Instance]
) -> None:
    """x[i, j, k] over every node pair and vehicle; the two-index gold (where it is chosen) has
    x[i, j] over every node pair (its route structure rule bans self loops and depot-to-depot legs,
    as the vehicle-indexed one does, so a script without that rule may use them in both)."""
    instance = tiny_instance(variant)
    expected = instance.num_nodes**2 * len(instance.vehicles)
    assert _x_entries(render_gold(instance, two_index=False)) == expected
    if two_index_allowed(instance):
        assert _x_entries(render_gold(instance), r"x\[\d+,\d+\]") == instance.num_nodes**2


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_checker_finds_the_gold_plan_feasible_at_the_same_cost(
    variant: str, gold_results: dict[str, tuple[Instance, GoldResult]]
) -> None:
    instance, result = gold_results[variant]
    assert result.solution is not None and result.objective is not None
    report = check(instance, result.solution)
    assert report.violations == ()
    assert _close(report.cost, result.objective)


@pytest.mark.parametrize("variant", ENUMERABLE)
def test_gold_optimum_equals_the_enumerated_optimum(
    variant: str, gold_results: dict[str, tuple[Instance, GoldResult]]
) -> None:
    instance, result = gold_results[variant]
    assert result.objective is not None
    assert _close(brute_force_optimum(instance)[0], result.objective)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(1, 6))
@pytest.mark.parametrize("variant", ENUMERABLE)
def test_gold_agrees_with_enumeration_on_more_instances(
    variant: str, seed: int, tiny_instance: Callable[..., Instance]
) -> None:
    instance = tiny_instance(variant, seed)
    result = solve_gold(instance)
    try:
        optimum = brute_force_optimum(instance)[0]
    except ValueError as exc:
        assert "no route plan is feasible" in str(exc)
        assert result.status == GoldStatus.INFEASIBLE
        return
    assert (
        result.status == GoldStatus.OPTIMAL and result.objective is not None and result.solution is not None
    )
    assert _close(optimum, result.objective)
    report = check(instance, result.solution)
    assert report.violations == () and _close(report.cost, result.objective)


def test_splitting_never_costs_more_than_not_splitting(tiny_instance: Callable[..., Instance]) -> None:
    split = tiny_instance("SDVRP")
    whole = Instance.model_validate({**split.model_dump(), "variant": "CVRP"})
    split_cost, whole_cost = solve_gold(split).objective, solve_gold(whole).objective
    assert split_cost is not None and whole_cost is not None
    assert split_cost <= whole_cost + RTOL * whole_cost


def _families_with_modules(variant: str) -> list[str]:
    return [f.value for f in VARIANTS[variant].families]


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_dropping_any_family_still_runs_and_only_relaxes(
    variant: str, gold_results: dict[str, tuple[Instance, GoldResult]]
) -> None:
    instance, gold = gold_results[variant]
    assert gold.objective is not None
    script = render_gold(instance)
    for family in _families_with_modules(variant):
        for mutant in (remove_family(script, family), remove_module(script, family)):
            assert family not in module_names(mutant)
            result = solve_script(mutant, instance)
            assert result.status in (GoldStatus.OPTIMAL, GoldStatus.TIME_LIMIT), (family, result.detail)
            assert result.objective is not None
            assert result.objective <= gold.objective + RTOL * max(1.0, gold.objective), family


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_joint_cuts_do_not_change_the_optimum(
    variant: str, gold_results: dict[str, tuple[Instance, GoldResult]]
) -> None:
    instance, gold = gold_results[variant]
    assert gold.objective is not None
    plain = solve_script(strip_joint_modules(render_gold(instance)), instance)
    assert plain.status == GoldStatus.OPTIMAL and plain.objective is not None
    assert _close(plain.objective, gold.objective)


def test_a_model_too_large_for_the_licence_is_reported_as_such(
    instance_factory: Callable[..., Instance],
) -> None:
    result = solve_gold(instance_factory("CVRP", 40, 4, 0))
    assert result.status == GoldStatus.SIZE_LIMITED_LICENCE
    assert result.solution is None and result.objective is None


def test_stopping_early_with_an_incumbent_reports_it(tiny_instance: Callable[..., Instance]) -> None:
    instance = tiny_instance("CVRP")
    script = render_gold(instance).replace(
        "    m.optimize()", "    m.Params.SolutionLimit = 1\n    m.optimize()"
    )
    result = solve_script(script, instance)
    assert result.status == GoldStatus.TIME_LIMIT
    assert result.solution is not None and result.objective is not None
    assert check(instance, result.solution).violations == ()


BROKEN_SCRIPTS: list[tuple[str, str, str]] = [
    ("syntax error", "def build_model(:\n", "SyntaxError"),
    ("no build_model", "x = 1\n", "no build_model"),
    ("not a model", "def build_model():\n    return 42\n", "returned int"),
    ("raises", "def build_model():\n    raise RuntimeError('boom')\n", "RuntimeError: boom"),
]


@pytest.mark.parametrize(("case", "script", "detail"), BROKEN_SCRIPTS, ids=[b[0] for b in BROKEN_SCRIPTS])
def test_broken_scripts_are_errors_not_exceptions(
    case: str, script: str, detail: str, tiny_instance: Callable[..., Instance]
) -> None:
    result = solve_script(script, tiny_instance("CVRP"))
    assert result.status == GoldStatus.ERROR
    assert result.detail is not None and detail in result.detail


def test_extraction_needs_a_solution_and_a_routing_variable(tiny_instance: Callable[..., Instance]) -> None:
    instance = tiny_instance("TSP")
    with gp.Model() as model:
        model.Params.OutputFlag = 0
        y = model.addVar(name="y")
        model.optimize()
        with pytest.raises(ValueError, match="no routing variable named 'x'"):
            extract_solution(model, instance)
        model.addConstr(y <= -1)
        model.optimize()
        with pytest.raises(ValueError, match="no solution"):
            extract_solution(model, instance)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_eight_customers_solve_to_a_checked_optimum(
    variant: str, instance_factory: Callable[..., Instance]
) -> None:
    instance = instance_factory(variant, 8, 3, 0)
    result = solve_gold(instance, time_limit=60)
    assert result.status == GoldStatus.OPTIMAL, result.detail
    assert result.solution is not None and result.objective is not None
    _assert_sane(instance, result.solution)
    report = check(instance, result.solution)
    assert report.violations == () and _close(report.cost, result.objective)

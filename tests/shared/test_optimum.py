"""The candidate's own optimum (the third operator) and DIFF against the candidate's own MIP gap.

Real candidates, real solves: a 2-index VRPHTW script whose clock runs along the reversed arcs (its
optimum is a true optimum driven backwards: the reference cost, windows broken), a correct script
that stops at a loose MIP gap, and a script without capacity whose proven bound excludes the
reference. The decoding of ``x`` into routes is also tested on its own, without a solver.
"""

from __future__ import annotations

import re

import pytest

from tests.shared.test_independent_candidates import candidate_text, render
from vrpcoder.families import Family
from vrpcoder.instances import Customer, Depot, Instance, TimeWindow, Vehicle
from vrpcoder.optimum import check_optimum, decode_tours, judge_plan
from vrpcoder.samples import Sample, build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.verification import RewardWeights, VerifyConfig, verify
from vrpcoder_client.verdicts import PlanRoute

REVERSED_CLOCK = '''"""VRPHTW, 2-index: the time propagation reads x[j, i] where it means x[i, j], so the clock runs
along every route backwards (windows hold on the reversed route, not on the one driven)."""
import math

import gurobipy as gp
from gurobipy import GRB

# @data-begin
# @data-end


def build_model():
    V = range(N)
    d = {(i, j): math.dist(COORDS[i], COORDS[j]) for i in V for j in V if i != j}
    m = gp.Model("vrphtw_reversed_clock")
    m.Params.OutputFlag = 0
    x = m.addVars(d.keys(), vtype=GRB.BINARY, name="x")
    t = m.addVars(V, name="t")
    u = m.addVars(CUSTOMERS, name="u")
    m.setObjective(x.prod(d), GRB.MINIMIZE)
    m.addConstrs(x.sum(i, "*") == 1 for i in CUSTOMERS)
    m.addConstrs(x.sum("*", i) == 1 for i in CUSTOMERS)
    m.addConstr(x.sum(0, "*") <= K)
    m.addConstr(x.sum(0, "*") == x.sum("*", 0))
    big = max(b for _, b in WINDOW.values()) + max(d.values()) + max(SERVICE.values())
    for i in V:
        for j in CUSTOMERS:
            if i != j:
                m.addConstr(t[j] >= t[i] + SERVICE[i] + d[i, j] - big * (1 - x[j, i]))
    for i in CUSTOMERS:
        m.addConstr(t[i] >= WINDOW[i][0])
        m.addConstr(t[i] <= WINDOW[i][1])
        m.addConstr(u[i] >= DEMAND[i])
        m.addConstr(u[i] <= Q)
        for j in CUSTOMERS:
            if i != j:
                m.addConstr(u[j] >= u[i] + DEMAND[j] - Q * (1 - x[i, j]))
    m.optimize()
    return m
'''


def _line_instance() -> Instance:
    """Three customers on a bend whose windows admit one driving order only: 0 -> 1 -> 2 -> 3 -> 0
    (cost 52.36); driven backwards it costs the same and arrives late at customers 2 and 1."""
    return Instance(
        name="windows-one-way",
        variant="VRPHTW",
        depots=(Depot(x=0, y=0, window=TimeWindow(start=0, end=200)),),
        customers=(
            Customer(x=10, y=0, demand=1, window=TimeWindow(start=0, end=12)),
            Customer(x=20, y=0, demand=1, window=TimeWindow(start=15, end=25)),
            Customer(x=20, y=10, demand=1, window=TimeWindow(start=25, end=40)),
        ),
        vehicles=(Vehicle(capacity=10), Vehicle(capacity=10)),
    )


def _base_sample(instance: Instance) -> Sample:
    report = build_samples(instance, seed=0, relax_instance=False, parameter_attacks=False)
    assert report.samples, report.records
    return report.samples[0]


# ---- the optimum check on real candidates ----------------------------------------------------


def test_an_optimum_that_breaks_a_window_at_the_reference_cost_fails_the_optimum_check() -> None:
    sample = _base_sample(_line_instance())
    verdict = verify(render(REVERSED_CLOCK, sample.instance), sample)
    assert verdict.diff, (verdict.objective, sample.reference_objective)  # same cost: DIFF cannot see it
    optimum = verdict.optimum
    assert optimum is not None and not optimum.passed
    assert optimum.families == (Family.TIME_WINDOW,)
    assert [r.visits for r in optimum.routes] == [(3, 2, 1)]
    assert "0 -> 3 -> 2 -> 1 -> 0" in optimum.violations[0].detail
    assert optimum.cost == pytest.approx(sample.reference_objective)
    assert not verdict.passed
    assert "optimum:time_window" in verdict.failed_checks
    assert "diff" not in verdict.failed_checks
    # DIFF's credit is gated by the optimum check; the paper's reward (no gate) would pay it.
    weights = RewardWeights()
    assert verdict.reward == pytest.approx(weights.build + weights.inj * verdict.inj_fraction)
    ungated = verify(
        render(REVERSED_CLOCK, sample.instance), sample, VerifyConfig(weights=RewardWeights(optimum_gates_diff=False))
    )
    assert ungated.reward == pytest.approx(weights.build + weights.diff + weights.inj * ungated.inj_fraction)
    assert not ungated.passed


def test_a_correct_candidate_passes_the_optimum_check_with_its_plan_reported() -> None:
    sample = _base_sample(_line_instance())
    verdict = verify(sample.gold_code, sample)
    assert verdict.passed and verdict.reward == pytest.approx(1.0)
    assert verdict.optimum is not None and verdict.optimum.passed
    assert [r.visits for r in verdict.optimum.routes] == [(1, 2, 3)]
    assert verdict.failed_checks == ()


# ---- DIFF against the candidate's own MIP gap ----------------------------------------------------

_LOOSE_GAP_POINT = ("CVRP", 5, 1, 8)
"""A grid point where the gold script stopped at a 30 % gap reports an objective about 38 % above
the optimum, with a bound below it."""


def _with_gap(code: str, gap: float) -> str:
    """The script with its MIP gap loosened just before it optimizes."""
    loosened, count = re.subn(r"^(\s*)(m\.optimize\()", rf"\1m.Params.MIPGap = {gap!r}\n\1\2", code, flags=re.M)
    assert count == 1
    return loosened


def test_a_solve_stopped_at_its_gap_is_continued_before_diff_decides() -> None:
    variant, profile, seed, customers = _LOOSE_GAP_POINT
    sample = build_samples(sample_instance(variant, profile, seed, customers=customers), seed=0).samples[0]
    verdict = verify(_with_gap(sample.gold_code, 0.3), sample)
    check = verdict.diff_check
    assert check is not None and check.continued
    assert check.objective is not None and check.objective > sample.reference_objective + check.tolerance
    assert check.bound is not None and check.bound <= sample.reference_objective
    assert check.gap is not None and check.gap > 0.01
    assert check.final_objective == pytest.approx(sample.reference_objective, abs=1e-6)
    assert verdict.objective == check.final_objective
    assert verdict.diff and verdict.passed and verdict.reward == pytest.approx(1.0)


def test_a_bound_that_excludes_the_reference_fails_diff_at_once() -> None:
    """Without capacity the model's proven optimum lies below the reference: nothing to continue."""
    sample = build_samples(sample_instance("CVRP", 5, 1, customers=8), seed=0).samples[0]
    template = candidate_text("cvrp_flow_2index_arclist.py")
    verdict = verify(render(template, sample.instance, omit="capacity"), sample)
    check = verdict.diff_check
    assert check is not None and not check.continued
    assert verdict.objective is not None and verdict.objective < sample.reference_objective - check.tolerance
    assert check.bound is not None and check.bound < sample.reference_objective
    assert not verdict.diff and "diff" in verdict.failed_checks


# ---- decoding x without a solver -----------------------------------------------------------------


def _two_depots() -> Instance:
    return Instance(
        name="two-depots",
        variant="MDVRP",
        depots=(Depot(x=0, y=0), Depot(x=100, y=0)),
        customers=tuple(Customer(x=10.0 * k, y=5, demand=1) for k in range(1, 5)),
        vehicles=(Vehicle(depot=0, capacity=10), Vehicle(depot=1, capacity=10)),
    )


def test_decoding_reads_routes_cycles_and_multiplicities() -> None:
    instance = _line_instance()
    identity = list(range(instance.num_nodes))
    decoded = decode_tours(instance, {(0, 1): 1.0, (1, 0): 0.9999999, (2, 3): 1.0, (3, 2): 1.0}, identity)
    assert [(t.start, t.visits, t.end, t.closed) for t in decoded.tours] == [(0, (1,), 0, False), (None, (2, 3), None, True)]
    check = check_optimum(instance, {(0, 1): 1.0, (1, 0): 1.0, (2, 3): 1.0, (3, 2): 1.0}, identity, dims=2)
    assert not check.passed and Family.SUBTOUR in check.families
    # 2-index split delivery: the same arc driven twice is value 2
    twice = decode_tours(instance, {(0, 1): 2.0, (1, 0): 2.0}, identity)
    assert [t.visits for t in twice.tours] == [(1,), (1,)]


def test_decoding_translates_positions_and_refuses_fractional_values() -> None:
    instance = _line_instance()
    # the candidate put the depot at position 3 and customers 1, 2, 3 at positions 0, 1, 2
    position_of = [3, 0, 1, 2]
    check = check_optimum(instance, {(3, 0): 1.0, (0, 1): 1.0, (1, 2): 1.0, (2, 3): 1.0}, position_of, dims=2)
    assert check.passed, check.violations
    assert [r.visits for r in check.routes] == [(1, 2, 3)]
    fractional = check_optimum(instance, {(3, 0): 0.5, (0, 3): 0.5}, position_of, dims=2)
    assert not fractional.passed and "not integral" in fractional.violations[0].detail


def test_a_route_that_ends_at_another_depot_breaks_route_structure() -> None:
    instance = _two_depots()
    values = {(0, 2): 1.0, (2, 3): 1.0, (3, 4): 1.0, (4, 5): 1.0, (5, 1): 1.0}
    check = check_optimum(instance, values, list(range(instance.num_nodes)), dims=2)
    assert not check.passed
    assert check.families == (Family.ROUTE_STRUCTURE,)
    assert check.routes[0].end_depot == 1


def test_a_depot_layer_third_index_is_matched_to_vehicles_of_that_depot() -> None:
    instance = _two_depots()
    values = {(0, 2, 0): 1.0, (2, 3, 0): 1.0, (3, 0, 0): 1.0, (1, 5, 1): 1.0, (5, 4, 1): 1.0, (4, 1, 1): 1.0}
    check = check_optimum(instance, values, list(range(instance.num_nodes)), dims=3, layers=(0, 1))
    assert check.passed, check.violations
    assert sorted((r.vehicle, r.depot) for r in check.routes) == [(0, 0), (1, 1)]


def test_judging_a_reported_plan_again_needs_no_solver() -> None:
    """What the sandbox's supervisor runs on a child's report: the plan alone decides."""
    instance = _line_instance()
    forward = judge_plan(instance, [PlanRoute(vehicle=0, depot=0, visits=(1, 2, 3))], [], reading="")
    backward = judge_plan(instance, [PlanRoute(vehicle=0, depot=0, visits=(3, 2, 1))], [], reading="")
    assert forward.passed and not backward.passed
    assert forward.cost == pytest.approx(backward.cost)


def test_a_depot_layer_third_index_is_said_in_the_verdict() -> None:
    """Issue 19: a 3-index x whose third index is the depot (two layers, a fleet of four) earns its
    full reward, and the verdict says how x was read."""
    from tests.shared.test_independent_candidates import CASES, Case

    case = next(c for c in CASES if c.file == "mdvrp_3index_depot_layers.py")
    sample = Case(case.file, case.variant, case.style, point=(9, 0, 6)).samples()[0]
    assert sample.instance.num_depots == 2 and len(sample.instance.vehicles) == 4
    verdict = verify(render(case.template(), sample.instance), sample)
    assert verdict.passed and verdict.reward == pytest.approx(1.0), verdict.failed_checks
    assert verdict.routing_variable is not None and "one value per depot" in verdict.routing_variable
    assert verdict.optimum is not None and verdict.optimum.passed
    assert all(sample.instance.vehicles[r.vehicle].depot == r.depot for r in verdict.optimum.routes)

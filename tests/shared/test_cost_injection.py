"""Cost injection: a feasible probe's price under the candidate's own objective must be the checker's.

INJ asks feasibility only, so an objective that prices plans wrongly is invisible wherever the
optimum happens not to move: a soft-window model with its penalty weights dropped, or a mixed fleet
priced at one vehicle's rate. The candidates here are written from the problem statement (data
block convention of ``tests/shared/test_independent_candidates.py``); their bugs sit in
``# @omit`` blocks, so the buggy script is the correct one with one block deleted. The gold scripts
of every variant must price every feasible probe exactly as the checker does, and so must every
correct independent candidate (``test_independent_candidates.py`` runs them all through ``verify``).
"""

from __future__ import annotations

from functools import cache
from itertools import permutations
from pathlib import Path

import pytest

from tests.shared.test_independent_candidates import candidate_text, render
from vrpcoder.candidate import build_candidate
from vrpcoder.checker import check
from vrpcoder.injection import probe_fixes
from vrpcoder.instances import Instance
from vrpcoder.pricing import plan_price, price_terms
from vrpcoder.probes import Label, Probe
from vrpcoder.samples import Sample, build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import VARIANTS
from vrpcoder.verification import RewardWeights, VerifyConfig, check_cost, verify
from vrpcoder_client.verdicts import PriceKind

PRICED = Path(__file__).resolve().parents[1] / "data" / "candidates" / "priced"
CONFIG = VerifyConfig(time_limit=60.0)


@cache
def samples(variant: str, profile: int, seed: int, customers: int) -> tuple[Sample, ...]:
    return tuple(build_samples(sample_instance(variant, profile, seed, customers=customers), seed=0).samples)


def _priced(file: str, sample: Sample, omit: str | None = None) -> str:
    return render((PRICED / file).read_text(), sample.instance, omit)


# ---- the gold scripts price as the checker does ------------------------------------------------


def _gold_prices_every_feasible_probe(sample: Sample) -> list[str]:
    verdict = verify(sample.gold_code, sample, CONFIG)
    feasible = [p.name for p in sample.probes if p.label is Label.FEASIBLE]
    problems = [] if [c.probe for c in verdict.costs] == feasible else [f"{sample.id}: cost checks {verdict.costs}"]
    for cost in verdict.costs:
        if not (cost.judged and cost.passed):
            problems.append(f"{sample.id} {cost.probe}: objective {cost.objective} price {cost.price} ({cost.detail})")
    if not verdict.passed:
        problems.append(f"{sample.id}: not passed, {verdict.failed_checks}")
    return problems


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_gold_script_prices_every_feasible_probe_as_the_checker(variant: str) -> None:
    problems = [p for s in samples(variant, 1, 0, 5) for p in _gold_prices_every_feasible_probe(s)]
    assert not problems, "\n".join(problems)


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize(("profile", "seed"), [(2, 1), (3, 2), (4, 0), (5, 1), (9, 2)])
def test_the_gold_script_prices_as_the_checker_on_more_grid_points(variant: str, profile: int, seed: int) -> None:
    try:
        built = samples(variant, profile, seed, 8)
    except ValueError as exc:  # a profile the variant does not take
        pytest.skip(str(exc))
    problems = [p for s in built for p in _gold_prices_every_feasible_probe(s)]
    assert not problems, "\n".join(problems)


# ---- a dropped penalty weight ------------------------------------------------------------------

STW = "vrpstw_3index_vehicle_clocks.py"


def late_plan(instance: Instance, plan: Solution) -> Solution:
    """A feasible plan as late as reordering gets it: the routes' customers (two routes merged into
    one where the vehicle carries both) in the order that makes them latest. A soft-window CVRP
    rule cares only for loads, which reordering does not change, so every candidate is feasible
    wherever the checker says so."""
    routes = [r for r in plan.routes if r.visits]
    options = [plan]
    for i, j in [(i, j) for i in range(len(routes)) for j in range(i + 1, len(routes))] + [(i, i) for i in range(len(routes))]:
        visits = routes[i].visits + (routes[j].visits if j != i else ())
        rest = tuple(r for n, r in enumerate(routes) if n not in (i, j))
        for order in permutations(visits) if len(visits) <= 6 else [visits]:
            merged = routes[i].model_copy(update={"visits": tuple(order)})
            options.append(plan.model_copy(update={"routes": (merged, *rest)}))
    feasible = [o for o in options if check(instance, o).feasible]
    return max(feasible, key=lambda o: _late(instance, o))


def _lateness(instance: Instance, route: Route) -> float:
    return _late(instance, Solution(routes=(route,)))


def _late(instance: Instance, plan: Solution) -> float:
    return sum(t.value for t in price_terms(instance, plan) if t.kind is PriceKind.LATENESS)


def _late_probe(sample: Sample) -> Probe:
    """The sample's own late feasible plan (``s+:late_service``, built for every soft-window sample
    whose instance admits one)."""
    late = [p for p in sample.probes if p.label is Label.FEASIBLE and _late(sample.instance, p.solution) > 1.0]
    assert late, "no late feasible probe on this sample"
    return late[0]


def _on_time_only(sample: Sample) -> Sample:
    """The sample as it was before late feasible probes existed: only its on-time plans."""
    kept = tuple(p for p in sample.probes if p.label is Label.INFEASIBLE or _late(sample.instance, p.solution) == 0.0)
    return sample.model_copy(update={"probes": kept})


@pytest.fixture(scope="module")
def stw_sample() -> Sample:
    """A VRPSTW base sample (profile 7 seed 0) whose optimum is on time: a dropped penalty weight
    does not move it, so DIFF and INJ cannot see the bug; its late feasible probe can."""
    sample = samples("VRPSTW", 7, 0, 6)[0]
    assert any(p.variety == "late_service" for p in sample.probes), [p.name for p in sample.probes]
    return sample


def test_a_dropped_penalty_weight_passes_where_no_feasible_plan_is_late(stw_sample: Sample) -> None:
    """The blind spot the late-service probe closes: without a late feasible plan, DIFF matches,
    every probe passes and the cost checks agree."""
    on_time = _on_time_only(stw_sample)
    verdict = verify(_priced(STW, on_time, omit="late_weight"), on_time, CONFIG)
    assert verdict.diff and verdict.passed and all(c.judged and c.passed for c in verdict.costs)


def test_a_dropped_penalty_weight_fails_the_cost_check_on_a_late_plan(stw_sample: Sample) -> None:
    sample, probe = stw_sample, _late_probe(stw_sample)
    correct = verify(_priced(STW, sample), sample, CONFIG)
    assert correct.passed and correct.reward == pytest.approx(1.0), correct.failed_checks
    verdict = verify(_priced(STW, sample, omit="late_weight"), sample, CONFIG)
    late = next(c for c in verdict.costs if c.probe == probe.name)
    assert late.judged and not late.passed
    assert late.objective is not None and late.price is not None and abs(late.objective - late.price) > 1.0
    assert {t.kind for t in late.terms} >= {PriceKind.DISTANCE, PriceKind.LATENESS}
    assert late.routes and {r.visits for r in late.routes} == {r.visits for r in probe.solution.routes if r.visits}
    assert {p.name for p in late.objective_parts} >= {"x", "late"}
    assert verdict.diff and all(p.passed for p in verdict.probes), "only the price tells it apart"
    assert not verdict.passed and any(c.startswith("cost") for c in verdict.failed_checks)
    assert verdict.reward == pytest.approx(0.2 + 0.3), "a wrong price takes DIFF's credit"
    paper = verify(_priced(STW, sample, omit="late_weight"), sample, VerifyConfig(weights=RewardWeights.paper()))
    assert paper.reward == pytest.approx(1.0) and not paper.passed


def test_the_pricing_function_prices_a_plan_of_the_tests_own(stw_sample: Sample) -> None:
    plan = late_plan(stw_sample.instance, stw_sample.probes[0].solution)
    assert check(stw_sample.instance, plan).feasible and _late(stw_sample.instance, plan) > 1.0
    probe = Probe(label=Label.FEASIBLE, solution=plan, variety="late_in_test")
    sample = stw_sample.model_copy(update={"probes": (*stw_sample.probes, probe)})
    correct = check_cost(build_candidate(_priced(STW, sample)), sample, probe, CONFIG)
    dropped = check_cost(build_candidate(_priced(STW, sample, omit="late_weight")), sample, probe, CONFIG)
    assert correct.judged and correct.passed and correct.objective == pytest.approx(plan_price(sample.instance, probe.solution))
    assert dropped.judged and not dropped.passed and dropped.price == correct.price


# ---- a wrong vehicle rate ----------------------------------------------------------------------

HF = "hfvrp_3index_vehicle_flows.py"


def test_one_rate_for_the_whole_fleet_fails_the_cost_check() -> None:
    """At profile 1 seed 0 the base sample's optimum stays the reference (the rate bug does not
    move it), so DIFF passes; the feasible probes on the dearer vehicles are priced too low."""
    sample = samples("HFVRP", 1, 0, 6)[0]
    correct = verify(_priced(HF, sample), sample, CONFIG)
    assert correct.passed and all(c.judged and c.passed for c in correct.costs), correct.failed_checks
    verdict = verify(_priced(HF, sample, omit="own_rates"), sample, CONFIG)
    assert verdict.diff and all(p.passed for p in verdict.probes)
    failed = [c for c in verdict.costs if c.judged and not c.passed]
    assert failed and all(c.objective is not None and c.price is not None and c.objective != c.price for c in failed)
    assert not verdict.passed and verdict.reward == pytest.approx(0.5)


def test_a_two_index_x_on_a_differently_priced_fleet_is_not_priced_and_says_so() -> None:
    sample = samples("HFVRP", 1, 0, 6)[0]
    verdict = verify(render(candidate_text("hfvrp_2index_arc_ownership_mtz_cap.py"), sample.instance), sample, CONFIG)
    assert verdict.costs and not any(c.judged for c in verdict.costs)
    assert verdict.passed and verdict.routing_variable is not None and "priced differently" in verdict.routing_variable


def test_turning_the_check_off_leaves_no_cost_checks() -> None:
    sample = samples("HFVRP", 1, 0, 6)[0]
    verdict = verify(_priced(HF, sample, omit="own_rates"), sample, VerifyConfig(check_costs=False))
    assert verdict.costs == () and verdict.passed


# ---- the whole plan is pinned ------------------------------------------------------------------


def _instance(variant: str) -> Instance:
    return samples(variant, 1, 0, 5)[0].instance


@pytest.mark.parametrize(("variant", "returns"), [("CVRP", True), ("OVRP", False)])
def test_the_whole_plan_pins_each_routes_depot_arcs_and_leaves_open_returns_free(variant: str, returns: bool) -> None:
    instance = _instance(variant)
    route = Route(vehicle=0, depot=0, visits=tuple(instance.customer_nodes))
    plan = Solution(routes=(route,))
    fixes = {(f.tag, f.u, f.v): f.rhs for f in probe_fixes(instance, plan, pin_vehicles=False, whole_plan=True)}
    first, last = route.visits[0], route.visits[-1]
    assert fixes[("plan_out", 0, first)] == 1
    assert all(fixes[("plan_out", 0, c)] == 0 for c in route.visits[1:])
    assert (fixes.get(("plan_in", last, 0)) == 1) is returns
    assert any(tag == "plan_in" for tag, _, _ in fixes) is returns
    assert not any(tag.startswith("plan") for tag, _, _ in (
        (f.tag, f.u, f.v) for f in probe_fixes(instance, plan, pin_vehicles=False)
    ))

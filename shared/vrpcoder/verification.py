"""The dual verifier, in process: build once, DIFF against the reference, INJ every probe.

The candidate is built and solved once; every probe reuses that model (INJ restores it after each
query), so a full verification costs one candidate solve plus one query per probe. A feasible
probe's query is also its cost injection (beyond the paper): the whole plan pinned, the model's own
objective kept, and that objective compared with the checker's price of the plan.
Errors keep the SandboxFusion split: a candidate fault (it does not build, has no routing
variable, ...) scores what it earned; an ``infrastructure`` fault is ours and carries no reward.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field
import gurobipy as gp
from vrpcoder_client.verdicts import (
    CostCheck,
    DiffCheck,
    OptimumCheck,
    PlanRoute,
    PlanViolation,
    ProbeResult,
    RewardWeights,
    Verdict,
    all_passed,
    cost_checks_passed,
    passed_fraction,
    reward,
)

from vrpcoder.candidate import BuiltCandidate, Outcome, bound_admits, build_candidate, continue_solve
from vrpcoder.errors import ErrorKind, VerificationError, VerificationFailure
from vrpcoder.families import Family
from vrpcoder.injection import (
    InjResult,
    InjVerdict,
    Isolate,
    NodeMap,
    RoutingVariable,
    inject,
    match_routing_variable,
    run_here,
)
from vrpcoder.instances import Instance
from vrpcoder.numbering import candidate_node_map, layer_note
from vrpcoder.optimum import check_optimum, reads_layer_as_vehicle
from vrpcoder.pricing import plan_price, price_terms, terms_behind_gap
from vrpcoder.probes import Encoding, Label, Probe, choose_encoding
from vrpcoder.relabelling import judgeable_by_arcs
from vrpcoder.samples import Sample


class VerifyConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    weights: RewardWeights = RewardWeights()
    diff_tolerance: float = Field(default=1e-3, ge=0.0)
    """Absolute objective tolerance of DIFF (the paper's evaluation uses 1e-3)."""
    time_limit: float = Field(default=60.0, gt=0.0)
    """Cap on the candidate's own solve and on each probe query, in seconds."""
    threads: int = Field(default=1, ge=1)
    check_costs: bool = True
    """Cost injection on every feasible probe (beyond the paper). Off, a feasible probe gets the
    paper's constant-objective feasibility query and the verdict carries no cost checks (used to
    measure what the check costs; the paper's *reward* is ``RewardWeights.paper()``)."""


_UNJUDGEABLE_NOTE = (
    "x has no vehicle index: probes that break a rule only for the vehicles their routes are on "
    "were not judged (a relabelling of their routes is feasible)"
)


@dataclass(frozen=True, slots=True)
class _Query:
    """One INJ call: a probe, under its own encoding or (the control) under another."""

    index: int
    encoding: Encoding | None = None


def _query_plan(sample: Sample, askable: Sequence[int]) -> list[_Query]:
    """The INJ calls in a random order, the feasible probe asked twice.

    The candidate's callbacks run inside every INJ call and can read the model, injected rows
    included. A callback that answered "infeasible" to whatever looks like a violating probe
    (the vehicle-binding rows of its encoding, or every call after the first) would pass every
    probe whatever its model lacks. So the feasible probe is asked once more under the violating
    probes' encoding (the control: a correct model accepts it too), and the calls come in an order
    drawn afresh for every verification, so neither the rows nor the position tell a callback
    which answer is expected.
    """
    queries = [_Query(i) for i in askable]
    plus = [i for i in askable if sample.probes[i].label is Label.FEASIBLE]
    if plus and any(sample.probes[i].label is Label.INFEASIBLE for i in askable):
        # With several feasible probes the control is one of them, drawn afresh each time, so a
        # callback cannot learn which feasible plan will come back under the violating encoding.
        queries.append(_Query(_ORDER.choice(plus), choose_encoding(sample.instance.spec, Label.INFEASIBLE)))
    _ORDER.shuffle(queries)
    return queries


_ORDER = random.SystemRandom()
"""Not seeded from anything a candidate can see."""


def _judge_probes(
    built: BuiltCandidate, sample: Sample, xvar: RoutingVariable, node_map: NodeMap, config: VerifyConfig,
    isolate: Isolate,
) -> tuple[list[ProbeResult], list[CostCheck]]:
    """INJ on every probe the matched ``x`` can be asked about, in sample order, and cost injection
    on every feasible one (in the same query where the plan's price can be pinned down)."""
    instance = sample.instance
    askable = [i for i, p in enumerate(sample.probes) if xvar.dims == 3 or judgeable_by_arcs(instance, p)]
    unpriceable = unpriceable_reason(instance, xvar) if config.check_costs else None
    answers: dict[int, InjResult] = {}
    controls: dict[int, InjResult] = {}
    costs: dict[int, CostCheck] = {}
    ask = _Asker(built, instance, xvar, node_map, config, isolate)
    for query in _query_plan(sample, askable):
        probe = sample.probes[query.index]
        if query.encoding is None and probe.label is Label.FEASIBLE and config.check_costs:
            if unpriceable is None:
                answers[query.index], costs[query.index] = _ask_and_price(ask, probe, config.diff_tolerance)
                continue
            costs[query.index] = _unjudged_cost(probe, plan_price(instance, probe.solution), 0.0, unpriceable)
        (answers if query.encoding is None else controls)[query.index] = ask(probe, query.encoding)
    results = [
        _probe_result(probe, answers[i], controls.get(i)) if i in answers else _unjudgeable(probe)
        for i, probe in enumerate(sample.probes)
    ]
    return results, [costs[i] for i in sorted(costs)]


@dataclass(frozen=True, slots=True)
class _Asker:
    """One INJ call on the built candidate (a plain feasibility query, or with ``price`` the
    cost-injection query)."""

    built: BuiltCandidate
    instance: Instance
    xvar: RoutingVariable
    node_map: NodeMap
    config: VerifyConfig
    isolate: Isolate

    def __call__(self, probe: Probe, encoding: Encoding | None = None, *, price: bool = False) -> InjResult:
        return inject(
            self.built, self.instance, probe, xvar=self.xvar, node_map=self.node_map, encoding=encoding,
            time_limit=self.config.time_limit, threads=self.config.threads, isolate=self.isolate, price=price,
        )


def unpriceable_reason(instance: Instance, xvar: RoutingVariable) -> str | None:
    """Why the plans' prices cannot be pinned down through this ``x`` (None when they can).

    The price of a route depends on its vehicle only through that vehicle's fixed cost and rate.
    Where the vehicles of each depot are priced alike, pinning a route's arcs and depot pins its
    price whatever vehicle the model puts on it. Otherwise only an ``x`` whose third index is the
    vehicle (INJ's direct fixing) says which vehicle drives the route; a 2-index ``x`` (or a third
    index that is not the fleet's) lets the model price the route on another vehicle, and no
    verdict on that price would be fair."""
    if _priced_alike_per_depot(instance) or reads_layer_as_vehicle(instance, xvar.dims, xvar.vehicles):
        return None
    return (
        "x does not say which vehicle drives a route and the fleet's vehicles are priced differently: "
        "the feasible probes' prices were not checked"
    )


def _priced_alike_per_depot(instance: Instance) -> bool:
    price: dict[int, tuple[float, float]] = {}
    return all(price.setdefault(v.depot, (v.fixed_cost, v.cost_per_distance)) == (v.fixed_cost, v.cost_per_distance) for v in instance.vehicles)


_CANDIDATE_FAULTS = frozenset({ErrorKind.BUILD_ERROR, ErrorKind.NOT_A_MODEL})
"""Errors of the cost-injection query that a plain feasibility query would meet again (the
candidate's callback raised, its model is gone): they stand as INJ's answer."""


def _ask_and_price(ask: _Asker, probe: Probe, tolerance: float) -> tuple[InjResult, CostCheck]:
    """INJ's answer on a feasible probe and its cost check, in one query where that is sound.

    The cost-injection query pins more than the feasibility query, so a plan it finds feasible is
    INJ's "feasible" as well. Anything else (the whole plan rejected, an unbounded objective, a
    solve that ran out of time) is asked again as the paper's feasibility query, which decides INJ;
    the price is then judged only where the answer already tells that it is wrong: an objective
    unbounded at a feasible plan, or a model that accepts the plan's customer arcs but not its
    depot arcs (it routes a plan's customers only from or back to other depots than the plan's)."""
    priced = ask(probe, price=True)
    price = plan_price(ask.instance, probe.solution)
    if priced.verdict is InjVerdict.FEASIBLE:
        if priced.objective is None:
            return priced, _unjudged_cost(probe, price, priced.seconds, f"the priced solve ended {priced.status}, not optimal")
        return priced, _cost_check(ask.instance, probe, priced, price, tolerance)
    if priced.error is not None and priced.error.kind in _CANDIDATE_FAULTS:
        return priced, _unjudged_cost(probe, price, priced.seconds, f"the priced solve failed ({priced.error.detail})")
    answer = ask(probe)
    answer = answer.model_copy(update={"seconds": answer.seconds + priced.seconds})
    if answer.verdict is not InjVerdict.FEASIBLE:
        return answer, _unjudged_cost(probe, price, priced.seconds, "the model rejects the plan (INJ fails it)")
    if priced.verdict is InjVerdict.INFEASIBLE:
        wrong = "the model accepts the plan's customer arcs but rejects the plan with its own depot arcs"
    elif priced.status == "unbounded":
        wrong = "the model's objective is unbounded at this plan"
    else:
        return answer, _unjudged_cost(probe, price, priced.seconds, f"the priced solve ended {priced.status} without a price")
    return answer, CostCheck(
        probe=probe.name, objective=None, price=price, passed=False, detail=wrong, routes=_plan_routes(probe),
        terms=price_terms(ask.instance, probe.solution), seconds=priced.seconds,
    )


def check_cost(
    built: BuiltCandidate, sample: Sample, probe: Probe, config: VerifyConfig | None = None, *, isolate: Isolate = run_here
) -> CostCheck:
    """Cost injection of one feasible plan on a built candidate, outside a full verification: its
    ``x`` matched and mapped as ``verify_built`` does, the plan pinned and priced the same way
    (``probe`` need not be one of the sample's own: a test can bring a plan of its own)."""
    if probe.label is not Label.FEASIBLE:
        raise ValueError(f"only feasible plans are priced; {probe.name} is labelled {probe.label.value}")
    config = config or VerifyConfig()
    instance = sample.instance
    xvar, _ = match_routing_variable(built.model, built.python_x, instance.num_nodes)
    node_map, _ = candidate_node_map(built.node_table, sample.node_id_map, instance.num_nodes)
    reason = unpriceable_reason(instance, xvar)
    if reason is not None:
        return _unjudged_cost(probe, plan_price(instance, probe.solution), 0.0, reason)
    return _ask_and_price(_Asker(built, instance, xvar, node_map, config, isolate), probe, config.diff_tolerance)[1]


def _unjudged_cost(probe: Probe, price: float, seconds: float, detail: str) -> CostCheck:
    return CostCheck(probe=probe.name, objective=None, price=price, passed=False, judged=False, detail=detail, seconds=seconds)


def _cost_check(instance: Instance, probe: Probe, priced: InjResult, price: float, tolerance: float) -> CostCheck:
    objective = priced.objective
    assert objective is not None
    gap = objective - price
    if abs(gap) <= tolerance:
        return CostCheck(probe=probe.name, objective=objective, price=price, passed=True, seconds=priced.seconds)
    terms = price_terms(instance, probe.solution)
    differing = terms_behind_gap(terms, gap, tolerance)
    where = "; ".join(t.detail for t in differing) or "no single kind of price term accounts for it"
    return CostCheck(
        probe=probe.name, objective=objective, price=price, passed=False,
        detail=f"the model prices the plan at {objective:.6g}, the checker at {price:.6g} (gap {gap:+.6g}: {where})",
        routes=_plan_routes(probe), terms=terms, differing=differing, objective_parts=priced.objective_parts,
        seconds=priced.seconds,
    )


def _plan_routes(probe: Probe) -> tuple[PlanRoute, ...]:
    return tuple(
        PlanRoute(vehicle=r.vehicle, depot=r.depot, visits=r.visits, end_depot=r.end_depot)
        for r in probe.solution.routes
        if r.visits
    )


def _probe_result(probe: Probe, answer: InjResult, control: InjResult | None) -> ProbeResult:
    expected = InjVerdict.FEASIBLE if probe.label is Label.FEASIBLE else InjVerdict.INFEASIBLE
    passed = answer.verdict is expected and (control is None or control.verdict is expected)
    return ProbeResult(
        name=probe.name,
        family=probe.family,
        label=probe.label,
        verdict=answer.verdict,
        control=control.verdict if control is not None else None,
        passed=passed,
        seconds=answer.seconds + (control.seconds if control is not None else 0.0),
        error=answer.error or (control.error if control is not None else None),
    )


def _unjudgeable(probe: Probe) -> ProbeResult:
    return ProbeResult(
        name=probe.name, family=probe.family, label=probe.label, verdict=InjVerdict.UNJUDGEABLE, passed=False, seconds=0.0
    )


def failed_verdict(sample: Sample, error: VerificationError, seconds: float = 0.0) -> Verdict:
    """The verdict of a candidate that produced no model (or a job that produced no verdict):
    zero for a candidate fault, no reward at all for ours."""
    return Verdict(
        sample_id=sample.id,
        build=False,
        status=None,
        objective=None,
        reference_objective=sample.reference_objective,
        diff=False,
        probes=(),
        passed=False,
        reward=None if not error.kind.is_candidate_fault else 0.0,
        error=error,
        build_seconds=seconds,
    )


def verify(candidate_code: str, sample: Sample, config: VerifyConfig | None = None) -> Verdict:
    config = config or VerifyConfig()
    started = time.perf_counter()
    try:
        built = build_candidate(candidate_code, time_limit=config.time_limit, threads=config.threads)
    except VerificationFailure as failure:
        return failed_verdict(sample, failure.error, time.perf_counter() - started)
    return verify_built(built, sample, config)


def verify_built(built: BuiltCandidate, sample: Sample, config: VerifyConfig, *, isolate: Isolate = run_here) -> Verdict:
    """DIFF, the optimum check and INJ on an already built candidate (the sandbox worker calls this
    directly, with an ``isolate`` that runs every solve where the candidate's callback may run on a
    thread of its own).

    Order matters: the candidate's solve is continued first where its gap still admits the
    reference (DIFF then judges the final objective), its optimal ``x`` is read next, and INJ,
    which resets the model after every query, comes last."""
    diff_check, outcome = _decide_diff(built, sample.reference_objective, config, isolate)
    diff = outcome.objective is not None and abs(outcome.objective - sample.reference_objective) <= config.diff_tolerance
    spent = (diff_check is not None and diff_check.continued) or budget_spent(config, built.build_seconds)
    error = None if diff else solve_error(outcome, spent, sample.reference_objective, config.diff_tolerance)
    probes: list[ProbeResult] = []
    costs: list[CostCheck] = []
    notes: list[str] = []
    optimum: OptimumCheck | None = None
    probe_started = time.perf_counter()
    try:
        instance = sample.instance
        xvar, routing_note = match_routing_variable(built.model, built.python_x, instance.num_nodes)
        node_map, table_note = candidate_node_map(built.node_table, sample.node_id_map, instance.num_nodes)
        notes += [note for note in (routing_note, table_note, layer_note(instance, xvar)) if note]
    except VerificationFailure as failure:
        error = error or failure.error
        probes = [
            ProbeResult(name=p.name, family=p.family, label=p.label, verdict=InjVerdict.ERROR, passed=False, seconds=0.0, error=failure.error)
            for p in sample.probes
        ]
    else:
        if outcome.has_solution:
            optimum = _check_own_optimum(built, instance, xvar, node_map)
        probes, costs = _judge_probes(built, sample, xvar, node_map, config, isolate)
        unpriced = unpriceable_reason(instance, xvar) if costs else None
        notes += [unpriced] if unpriced else []
        error = error or next((p.error for p in probes if p.error is not None), None)
    if not all(p.judged for p in probes):
        notes.append(_UNJUDGEABLE_NOTE)
    inj_fraction = passed_fraction(probes)
    optimum_ok = optimum is None or optimum.passed
    cost_ok = cost_checks_passed(costs)
    infrastructure = error is not None and not error.kind.is_candidate_fault
    return Verdict(
        sample_id=sample.id,
        build=True,
        status=outcome.status,
        objective=outcome.objective,
        reference_objective=sample.reference_objective,
        diff=diff,
        probes=tuple(probes),
        passed=all_passed(diff, probes, optimum_ok, cost_ok),
        reward=None if infrastructure else reward(True, diff, inj_fraction, config.weights, optimum_ok=optimum_ok, cost_ok=cost_ok),
        error=error,
        routing_variable="; ".join(notes) or None,
        build_seconds=built.build_seconds,
        probe_seconds=time.perf_counter() - probe_started,
        diff_check=diff_check,
        optimum=optimum,
        costs=tuple(costs),
    )


def _decide_diff(
    built: BuiltCandidate, reference: float, config: VerifyConfig, isolate: Isolate
) -> tuple[DiffCheck | None, Outcome]:
    """DIFF's record, and the outcome DIFF judges: the candidate's own, or, where its solve stopped
    at a gap whose bound still admits the reference (or on the time limit before any solution),
    the outcome of that solve continued with the gap closed within what is left of the job's time
    limit. The record is None only for a solve that ended without a solution for another reason."""
    first = built.outcome
    unsolved = not first.has_solution and first.status == _TIME_LIMIT
    if not first.has_solution and not unsolved:
        return None, first
    record = DiffCheck(
        objective=first.objective, bound=first.bound, gap=first.gap, tolerance=config.diff_tolerance,
        final_objective=first.objective, final_bound=first.bound, final_status=first.status,
    )
    left = config.time_limit - built.build_seconds
    if not (unsolved or bound_admits(first, reference, config.diff_tolerance)) or budget_spent(config, built.build_seconds):
        return record, first
    started = time.perf_counter()
    try:
        final = isolate(continue_solve, built.model, built.callback, left, config.threads)
    except gp.GurobiError:
        return record, first  # the continued solve failed: DIFF judges what the candidate reached
    final = final if final.has_solution or unsolved else first
    return record.model_copy(
        update={
            "continued": True, "final_objective": final.objective, "final_bound": final.bound,
            "final_status": final.status, "seconds": time.perf_counter() - started,
        }
    ), final


_MIN_CONTINUATION_SECONDS = 0.5
_TIME_LIMIT = "time_limit"
_UNBOUNDED_STATUSES = frozenset({"unbounded", "inf_or_unbd"})
INFINITE_OBJECTIVE = 1e30
"""Gurobi reports the objective of an unbounded model as +-1e+30 (or infinity): no value at all."""


def budget_spent(config: VerifyConfig, build_seconds: float) -> bool:
    """Whether the candidate's build and solve left too little of the time limit to continue its solve."""
    return config.time_limit - build_seconds < _MIN_CONTINUATION_SECONDS


def solve_error(outcome: Outcome, spent: bool, reference: float, tolerance: float) -> VerificationError | None:
    """Why the solve DIFF judged gives no objective to compare, when DIFF failed:

    - ``unbounded``: Gurobi's status says so, or the objective is infinite (-1e+30): a rule that
      bounds the objective is missing. The candidate's fault: it keeps what it earned otherwise.
    - ``time_budget``: the job's time limit is ``spent`` (the solve was continued with the gap
      closed for what was left of it, or nothing was left) and the solve stopped on it with a
      bound that still admits the reference, or with no solution at all. The budget was too small
      to tell: no reward, since reward noise would punish correct code; raise ``time_limit``.
      A candidate that lowers its own time limit gets its solve continued under ours first.
    - ``solver_status``: no solution for another reason (infeasible, interrupted, ...).
    """
    infinite = outcome.objective is not None and not abs(outcome.objective) < INFINITE_OBJECTIVE
    if outcome.status in _UNBOUNDED_STATUSES or infinite:
        return VerificationError(
            kind=ErrorKind.UNBOUNDED,
            detail=f"the model is unbounded (status {outcome.status}, objective {outcome.objective}): "
            "a rule that bounds the objective is missing",
        )
    unproven = outcome.bound is None or not math.isfinite(outcome.bound)  # no bound excludes anything
    if outcome.status == _TIME_LIMIT and spent and (
        not outcome.has_solution or unproven or bound_admits(outcome, reference, tolerance)
    ):
        found = "no solution" if not outcome.has_solution else f"objective {outcome.objective}, bound {outcome.bound}"
        return VerificationError(
            kind=ErrorKind.TIME_BUDGET,
            detail=f"the candidate's solve stopped on the time limit ({found}) while the reference {reference} was still "
            "possible: the budget was too small to decide (raise time_limit)",
        )
    if not outcome.has_solution:
        return VerificationError(kind=ErrorKind.SOLVER_STATUS, detail=f"candidate solve ended {outcome.status} without a solution")
    return None


def _check_own_optimum(built: BuiltCandidate, instance: Instance, xvar: RoutingVariable, node_map: NodeMap) -> OptimumCheck:
    """The optimum check on the model's incumbent ``x`` (read now: INJ resets the model)."""
    keys = list(xvar.arcs)
    try:
        values = built.model.getAttr("X", [xvar.arcs[key] for key in keys]) if keys else []
    except gp.GurobiError as exc:  # the candidate's callback reset or changed its model mid-solve
        unread = PlanViolation(family=Family.ROUTE_STRUCTURE, detail=f"x's values cannot be read ({exc})")
        return OptimumCheck(passed=False, violations=(unread,), reading="x unreadable")
    return check_optimum(
        instance, dict(zip(keys, map(float, values), strict=True)), node_map.index, dims=xvar.dims, layers=xvar.vehicles
    )

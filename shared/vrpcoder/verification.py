"""The dual verifier, in process: build once, DIFF against the reference, INJ every probe.

The candidate is built and solved once; every probe reuses that model (INJ restores it after each
query), so a full verification costs one candidate solve plus one feasibility query per probe.
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
    DiffCheck,
    OptimumCheck,
    PlanViolation,
    ProbeResult,
    RewardWeights,
    Verdict,
    all_passed,
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
from vrpcoder.optimum import check_optimum
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
) -> list[ProbeResult]:
    """INJ on every probe the matched ``x`` can be asked about, in sample order."""
    instance = sample.instance
    askable = [i for i, p in enumerate(sample.probes) if xvar.dims == 3 or judgeable_by_arcs(instance, p)]
    answers: dict[int, InjResult] = {}
    controls: dict[int, InjResult] = {}
    for query in _query_plan(sample, askable):
        result = inject(
            built, instance, sample.probes[query.index], xvar=xvar, node_map=node_map, encoding=query.encoding,
            time_limit=config.time_limit, threads=config.threads, isolate=isolate,
        )
        (answers if query.encoding is None else controls)[query.index] = result
    return [
        _probe_result(probe, answers[i], controls.get(i)) if i in answers else _unjudgeable(probe)
        for i, probe in enumerate(sample.probes)
    ]


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
        probes = _judge_probes(built, sample, xvar, node_map, config, isolate)
        error = error or next((p.error for p in probes if p.error is not None), None)
    if not all(p.judged for p in probes):
        notes.append(_UNJUDGEABLE_NOTE)
    inj_fraction = passed_fraction(probes)
    optimum_ok = optimum is None or optimum.passed
    infrastructure = error is not None and not error.kind.is_candidate_fault
    return Verdict(
        sample_id=sample.id,
        build=True,
        status=outcome.status,
        objective=outcome.objective,
        reference_objective=sample.reference_objective,
        diff=diff,
        probes=tuple(probes),
        passed=all_passed(diff, probes, optimum_ok),
        reward=None if infrastructure else reward(True, diff, inj_fraction, config.weights, optimum_ok=optimum_ok),
        error=error,
        routing_variable="; ".join(notes) or None,
        build_seconds=built.build_seconds,
        probe_seconds=time.perf_counter() - probe_started,
        diff_check=diff_check,
        optimum=optimum,
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

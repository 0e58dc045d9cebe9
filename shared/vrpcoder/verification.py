"""The dual verifier, in process: build once, DIFF against the reference, INJ every probe.

The candidate is built and solved once; every probe reuses that model (INJ restores it after each
query), so a full verification costs one candidate solve plus one feasibility query per probe.
Errors keep the SandboxFusion split: a candidate fault (it does not build, has no routing
variable, ...) scores what it earned; an ``infrastructure`` fault is ours and carries no reward.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from vrpcoder.candidate import BuiltCandidate, build_candidate, model_outcome
from vrpcoder.errors import ErrorKind, VerificationError, VerificationFailure
from vrpcoder.families import Family
from vrpcoder.injection import InjVerdict, NodeMap, inject, match_routing_variable
from vrpcoder.probes import Label, Probe
from vrpcoder.relabelling import judgeable_by_arcs
from vrpcoder.samples import Sample


class RewardWeights(BaseModel):
    """r = build * w_build + diff * w_diff + inj_fraction * w_inj (paper: 0.2 / 0.5 / 0.3)."""

    model_config = ConfigDict(frozen=True)

    build: float = 0.2
    diff: float = 0.5
    inj: float = 0.3


class VerifyConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    weights: RewardWeights = RewardWeights()
    diff_tolerance: float = Field(default=1e-3, ge=0.0)
    """Absolute objective tolerance of DIFF (the paper's evaluation uses 1e-3)."""
    time_limit: float = Field(default=60.0, gt=0.0)
    """Cap on the candidate's own solve and on each probe query, in seconds."""
    threads: int = Field(default=1, ge=1)


class ProbeResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    family: Family | None
    label: Label
    verdict: InjVerdict
    passed: bool
    seconds: float
    error: VerificationError | None = None

    @property
    def judged(self) -> bool:
        """False for a probe the candidate's model could not be asked about (``UNJUDGEABLE``): it
        counts neither for nor against the candidate."""
        return self.verdict is not InjVerdict.UNJUDGEABLE


class Verdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    sample_id: str
    build: bool
    status: str | None
    objective: float | None
    reference_objective: float
    diff: bool
    probes: tuple[ProbeResult, ...]
    passed: bool
    reward: float | None
    """None only for infrastructure faults (TRL's "no reward"), never a silent zero."""
    error: VerificationError | None
    routing_variable: str | None = None
    """How ``x`` was matched when not by its Gurobi names ``x[...]``, and which probes it could not
    be asked about (spec: say so in the verdict)."""
    build_seconds: float = 0.0
    probe_seconds: float = 0.0

    @property
    def inj_fraction(self) -> float:
        return passed_fraction(self.probes)


def passed_fraction(probes: Sequence[ProbeResult]) -> float:
    """Share of the judged probes whose INJ verdict equals their label (0 when none was judged)."""
    judged = [p for p in probes if p.judged]
    return sum(p.passed for p in judged) / len(judged) if judged else 0.0


def all_passed(diff: bool, probes: Sequence[ProbeResult]) -> bool:
    """DIFF holds, some probe was judged, and every judged probe passed."""
    judged = [p for p in probes if p.judged]
    return diff and bool(judged) and all(p.passed for p in judged)


_UNJUDGEABLE_NOTE = (
    "x has no vehicle index: probes that break a rule only for the vehicles their routes are on "
    "were not judged (a relabelling of their routes is feasible)"
)


def _unjudgeable(probe: Probe) -> ProbeResult:
    return ProbeResult(
        name=probe.name, family=probe.family, label=probe.label, verdict=InjVerdict.UNJUDGEABLE, passed=False, seconds=0.0
    )


def reward(build: bool, diff: bool, inj_fraction: float, weights: RewardWeights) -> float:
    return weights.build * build + weights.diff * diff + weights.inj * inj_fraction


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


def verify_built(built: BuiltCandidate, sample: Sample, config: VerifyConfig) -> Verdict:
    """DIFF and INJ on an already built candidate (the sandbox worker calls this directly)."""
    outcome = model_outcome(built.model)
    diff = outcome.objective is not None and abs(outcome.objective - sample.reference_objective) <= config.diff_tolerance
    error: VerificationError | None = None
    if not outcome.has_solution:
        error = VerificationError(kind=ErrorKind.SOLVER_STATUS, detail=f"candidate solve ended {outcome.status} without a solution")
    probes: list[ProbeResult] = []
    routing_note: str | None = None
    probe_started = time.perf_counter()
    try:
        instance = sample.instance
        xvar, routing_note = match_routing_variable(built.model, built.namespace, instance.num_nodes)
        node_map = NodeMap.from_candidate(built.namespace, sample.node_id_map, instance.num_nodes)
    except VerificationFailure as failure:
        error = error or failure.error
        probes = [
            ProbeResult(name=p.name, family=p.family, label=p.label, verdict=InjVerdict.ERROR, passed=False, seconds=0.0, error=failure.error)
            for p in sample.probes
        ]
    else:
        for probe in sample.probes:
            if xvar.dims == 2 and not judgeable_by_arcs(instance, probe):
                probes.append(_unjudgeable(probe))
                continue
            result = inject(built, instance, probe, xvar=xvar, node_map=node_map, time_limit=config.time_limit, threads=config.threads)
            expected = InjVerdict.FEASIBLE if probe.label is Label.FEASIBLE else InjVerdict.INFEASIBLE
            probes.append(
                ProbeResult(
                    name=probe.name,
                    family=probe.family,
                    label=probe.label,
                    verdict=result.verdict,
                    passed=result.verdict is expected,
                    seconds=result.seconds,
                    error=result.error,
                )
            )
            if error is None and result.error is not None:
                error = result.error
    if not all(p.judged for p in probes):
        routing_note = _UNJUDGEABLE_NOTE if routing_note is None else f"{routing_note}; {_UNJUDGEABLE_NOTE}"
    inj_fraction = passed_fraction(probes)
    infrastructure = error is not None and not error.kind.is_candidate_fault
    return Verdict(
        sample_id=sample.id,
        build=True,
        status=outcome.status,
        objective=outcome.objective,
        reference_objective=sample.reference_objective,
        diff=diff,
        probes=tuple(probes),
        passed=all_passed(diff, probes),
        reward=None if infrastructure else reward(True, diff, inj_fraction, config.weights),
        error=error,
        routing_variable=routing_note,
        build_seconds=built.build_seconds,
        probe_seconds=time.perf_counter() - probe_started,
    )

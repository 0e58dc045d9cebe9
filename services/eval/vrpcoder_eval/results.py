"""Per-item results of a run, and how a verdict becomes one.

One ``ItemResult`` per benchmark item, appended to ``RUN_DIR/results.jsonl`` as soon as it is
known, so an interrupted run loses nothing and a re-run skips what is done. ``pass_at_1`` is the
paper's instance-level criterion (the script builds, solves and its optimum matches the reference
within the tolerance); ``dual_pass`` is the verifier's full verdict (``Verdict.passed``: DIFF, every
judged INJ probe answered right, its optimum check and its cost checks), the objective alone for a
DIFF-only item.
Items the run could not score (the model endpoint or the verifier failed, or the licence's size
limit) are ``unscored``: they are listed, left out of the rates, and retried on resume.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError
from vrpcoder_client.verdicts import ErrorKind, InjVerdict, Verdict

from vrpcoder_eval.benchmark import BenchmarkItem, BenchmarkName, LineProblem

NO_CODE = "no_code"
WRONG_OBJECTIVE = "wrong_objective"
INJ_FAILED = "inj_failed"
OPTIMUM_FAILED = "optimum_failed"
"""DIFF and every probe passed, but the verifier's optimum check found the plan the candidate's own
model settles on breaking a rule (``Verdict.optimum``)."""
COST_FAILED = "cost_failed"
"""DIFF, every probe and the optimum check passed, but cost injection found a feasible plan the
candidate's own objective prices otherwise than the checker (``Verdict.costs``)."""
PASS = "pass"


class ItemStatus(StrEnum):
    SCORED = "scored"
    UNSCORED = "unscored"


class ProbeOutcome(BaseModel):
    """One INJ probe as the metrics need it (a flattened ``ProbeResult``)."""

    model_config = ConfigDict(frozen=True)

    name: str
    family: str | None
    label: str
    verdict: str
    passed: bool
    judged: bool


class ItemResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_id: str
    benchmark: BenchmarkName
    variant: str | None
    source: str
    reference_objective: float
    status: ItemStatus
    outcome: str
    """``pass``, ``wrong_objective``, ``inj_failed``, ``optimum_failed``, ``cost_failed``, ``no_code``, an ``ErrorKind`` value, or for an
    unscored item what kept it from being scored."""
    build: bool = False
    diff: bool = False
    inj: bool | None = None
    """All judged probes passed; None for a DIFF-only item (no sample) or when nothing was judged."""
    pass_at_1: bool = False
    dual_pass: bool = False
    objective: float | None = None
    solver_status: str | None = None
    error_kind: str | None = None
    error_detail: str | None = None
    probes: tuple[ProbeOutcome, ...] = ()
    failed_checks: tuple[str, ...] = ()
    """The verifier's own list (``build``, ``diff``, ``optimum:<family>``, ``cost:<kind>``, ``inj:<family>``)."""
    code: str | None = None
    finish_reason: str | None = None
    completion_tokens: int | None = None


def _probes(verdict: Verdict) -> tuple[ProbeOutcome, ...]:
    return tuple(
        ProbeOutcome(
            name=p.name,
            family=None if p.family is None else str(p.family),
            label=str(p.label),
            verdict=str(p.verdict),
            passed=p.passed,
            judged=p.verdict is not InjVerdict.UNJUDGEABLE,
        )
        for p in verdict.probes
    )


def _base(item: BenchmarkItem) -> dict[str, object]:
    return {
        "item_id": item.id,
        "benchmark": item.benchmark,
        "variant": item.variant,
        "source": item.source,
        "reference_objective": item.reference_objective,
    }


def unscored(item: BenchmarkItem, reason: str, detail: str, code: str | None = None) -> ItemResult:
    return ItemResult(**_base(item), status=ItemStatus.UNSCORED, outcome=reason, error_detail=detail, code=code)  # type: ignore[arg-type]


def no_code(item: BenchmarkItem, finish_reason: str | None, tokens: int | None) -> ItemResult:
    return ItemResult(
        **_base(item), status=ItemStatus.SCORED, outcome=NO_CODE, error_kind=NO_CODE,  # type: ignore[arg-type]
        error_detail="the completion holds no code block", finish_reason=finish_reason, completion_tokens=tokens,
    )


def from_verdict(
    item: BenchmarkItem, verdict: Verdict, code: str, *, finish_reason: str | None = None, tokens: int | None = None,
) -> ItemResult:
    """Classify a verdict. For a DIFF-only item the probes (none) and any failure to match a routing
    variable (its placeholder sample has no real instance) say nothing and are ignored."""
    with_inj = item.sample_id is not None
    error = verdict.error
    if error is not None and not error.kind.is_candidate_fault:
        return unscored(item, error.kind.value, error.detail, code)
    probes = _probes(verdict) if with_inj else ()
    judged = [p for p in probes if p.judged]
    inj = all(p.passed for p in judged) if with_inj and judged else None
    has_objective = verdict.build and verdict.objective is not None
    if not verdict.build:
        outcome = error.kind.value if error is not None else ErrorKind.BUILD_ERROR.value
    elif not has_objective:
        outcome = error.kind.value if error is not None else ErrorKind.SOLVER_STATUS.value
    elif not verdict.diff:
        outcome = WRONG_OBJECTIVE
    elif with_inj and inj is not True:
        outcome = INJ_FAILED
    elif with_inj and not verdict.optimum_ok:
        outcome = OPTIMUM_FAILED
    elif with_inj and not verdict.passed:
        outcome = COST_FAILED
    else:
        outcome = PASS
    pass_at_1 = verdict.build and verdict.diff
    reported_error = error if (with_inj or not verdict.build or not has_objective) else None
    return ItemResult(
        **_base(item),  # type: ignore[arg-type]
        status=ItemStatus.SCORED,
        outcome=outcome,
        build=verdict.build,
        diff=verdict.diff,
        inj=inj,
        pass_at_1=pass_at_1,
        dual_pass=verdict.passed if with_inj else pass_at_1,
        failed_checks=tuple(verdict.failed_checks) if with_inj else (() if pass_at_1 else ("diff",)),
        objective=verdict.objective,
        solver_status=verdict.status,
        error_kind=None if reported_error is None else reported_error.kind.value,
        error_detail=None if reported_error is None else reported_error.detail[:2000],
        probes=probes,
        code=code,
        finish_reason=finish_reason,
        completion_tokens=tokens,
    )


RESULTS_FILE = "results.jsonl"


def read_results(path: Path) -> tuple[dict[str, ItemResult], list[LineProblem]]:
    """The latest result per item (later lines win: a retried item is appended again)."""
    latest: dict[str, ItemResult] = {}
    problems: list[LineProblem] = []
    if not path.is_file():
        return latest, problems
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                result = ItemResult.model_validate_json(line)
            except ValidationError as exc:
                problems.append(LineProblem(str(path), number, str(exc.errors()[0]["msg"])))
                continue
            latest[result.item_id] = result
    return latest, problems


def append_results(path: Path, results: Iterable[ItemResult]) -> None:
    with path.open("a", encoding="utf-8") as handle:
        for result in results:
            handle.write(result.model_dump_json() + "\n")


def scored(results: Iterable[ItemResult]) -> Iterator[ItemResult]:
    return (r for r in results if r.status is ItemStatus.SCORED)

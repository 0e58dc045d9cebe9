"""Stage 4's records: the fate of one work item, and the rejection-sampling rule that decides it.

They live apart from the pipeline that produces them because the dataset writer reads them too:
``dataset`` and ``pipeline`` both import this module, and neither imports the other's internals.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from vrpcoder.verification import Verdict

from vrpcoder_synth.verifiers import Answer


class Outcome(StrEnum):
    ACCEPTED = "accepted"
    RESERVED = "reserved"
    DISCARDED = "discarded"


def verdict_summary(verdict: Verdict) -> dict[str, object]:
    """What a record keeps of a verdict: everything but timings (they differ between runs)."""
    return {
        "build": verdict.build,
        "status": verdict.status,
        "objective": verdict.objective,
        "reference_objective": verdict.reference_objective,
        "diff": verdict.diff,
        "passed": verdict.passed,
        "reward": verdict.reward,
        "probes": [
            {"name": p.name, "family": p.family, "label": p.label, "verdict": p.verdict, "passed": p.passed}
            for p in verdict.probes
        ],
        "error": None if verdict.error is None else {"kind": verdict.error.kind, "detail": verdict.error.detail},
        "routing_variable": verdict.routing_variable,
    }


class ItemRecord(BaseModel):
    """The fate of one work item (one statement path of one sample, or one mutant)."""

    model_config = ConfigDict(frozen=True)

    key: str
    id: str
    sample: str = ""
    """Stage 1's id of the sample (``CVRP-p1-s0-n5-base``): what ``samples`` counts."""
    variant: str
    kind: str
    profile: int | None
    seed: int | None
    path: str
    mutant: str | None = None
    sample_id: str
    """The verifier's content id of the sample stored for this statement."""
    statement: str | None = None
    node_id_map: dict[str, str] | None = None
    coder: str | None = None
    code: str | None = None
    outcome: Outcome
    reason: str
    """Why it was discarded (``accepted`` / ``reserved`` otherwise)."""
    verdict: dict[str, object] | None = None


def decide(verdict: Answer | None, *, mutant: bool) -> tuple[Outcome, str]:
    """Stage 4's rule on one answer."""
    if verdict is None:
        return Outcome.DISCARDED, "no_code"
    if isinstance(verdict, str):
        return Outcome.DISCARDED, "verifier_unavailable"
    if not verdict.build:
        return Outcome.DISCARDED, "build_failed"
    if verdict.reward is None:
        return Outcome.DISCARDED, "verifier_infrastructure"
    if not verdict.diff:
        return Outcome.DISCARDED, "diff_failed"
    if verdict.passed:
        return (Outcome.DISCARDED, "mutant_undetected") if mutant else (Outcome.ACCEPTED, "accepted")
    return Outcome.RESERVED, "reserved"

"""The error taxonomy of verification, in one flat module.

A verdict that is not a clean pass or fail carries exactly one of these kinds. The split that
matters most (after SandboxFusion): faults of the *candidate* (it does not parse, crashes, builds
something that is not a model, times out) versus faults of *ours* (``infrastructure``,
``sandbox_violation`` is the candidate's). Rewards and rejection sampling treat the two
differently: a candidate fault scores zero, an infrastructure fault (or a model too large for the
size-limited Gurobi licence) scores nothing at all.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class ErrorKind(StrEnum):
    SYNTAX_ERROR = "syntax_error"
    MISSING_BUILD_MODEL = "missing_build_model"
    BUILD_ERROR = "build_error"
    NOT_A_MODEL = "not_a_model"
    TIMEOUT = "timeout"
    MEMORY_LIMIT = "memory_limit"
    OUTPUT_LIMIT = "output_limit"
    SIZE_LIMITED_LICENCE = "size_limited_licence"
    NO_ROUTING_VARIABLE = "no_routing_variable"
    INDEX_MISMATCH = "index_mismatch"
    SOLVER_STATUS = "solver_status"
    SANDBOX_VIOLATION = "sandbox_violation"
    INFRASTRUCTURE = "infrastructure"

    @property
    def is_candidate_fault(self) -> bool:
        """False for faults that say nothing about the candidate: ours, and our licence's size
        limit (a correct but larger formulation must not be scored zero for it)."""
        return self not in {ErrorKind.INFRASTRUCTURE, ErrorKind.SIZE_LIMITED_LICENCE}


class VerificationError(BaseModel):
    """Why a verification step produced no clean verdict."""

    model_config = ConfigDict(frozen=True)

    kind: ErrorKind
    detail: str


class VerificationFailure(Exception):
    """Raised inside the verifier to abort a step with a classified error."""

    def __init__(self, kind: ErrorKind, detail: str) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.error = VerificationError(kind=kind, detail=detail)

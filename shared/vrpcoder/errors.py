"""The error taxonomy of verification, in one flat module.

A verdict that is not a clean pass or fail carries exactly one of these kinds. The split that
matters most (after SandboxFusion): faults of the *candidate* (it does not parse, crashes, builds
something that is not a model, times out) versus faults of *ours* (``infrastructure``,
``sandbox_violation`` is the candidate's). Rewards and rejection sampling treat the two
differently: a candidate fault scores zero, an infrastructure fault (or a model too large for the
size-limited Gurobi licence) scores nothing at all.
"""

from __future__ import annotations

from vrpcoder_client.verdicts import ErrorKind, VerificationError

__all__ = ["ErrorKind", "VerificationError", "VerificationFailure"]


class VerificationFailure(Exception):
    """Raised inside the verifier to abort a step with a classified error."""

    def __init__(self, kind: ErrorKind, detail: str) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.error = VerificationError(kind=kind, detail=detail)

"""Stage 2's writers: turn a sample into the statement of one path, checked for fidelity.

Whatever writes the text (the offline template writer here, a teacher LLM in
``vrpcoder_synth.teacher``), the static checks of ``vrpcoder_synth.fidelity`` decide: a statement
that fails them is repaired (teacher) or discarded with the kind of its first problem as the
reason, which the dataset card counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from vrpcoder.samples import Sample

from vrpcoder_synth.fidelity import FidelityReport, check_statement
from vrpcoder_synth.statements import Statement, StatementPath, write_statement


@dataclass(frozen=True, slots=True)
class Written:
    statement: Statement | None
    """None when no faithful statement could be produced."""
    report: FidelityReport
    reason: str = ""


class StatementWriter(Protocol):
    name: str

    def write(self, sample: Sample, path: StatementPath) -> Written: ...


def judged(statement: Statement, sample: Sample) -> Written:
    """The statement if it passes the static checks, else the discard reason."""
    report = check_statement(statement, sample.instance)
    if report.ok:
        return Written(statement, report)
    return Written(None, report, report.problems[0].kind.value)


@dataclass(frozen=True)
class OfflineWriter:
    """The embedded deterministic template writer (``vrpcoder_synth.statements``)."""

    name: str = "offline"

    def write(self, sample: Sample, path: StatementPath) -> Written:
        return judged(write_statement(sample, path), sample)

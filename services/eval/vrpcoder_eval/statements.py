"""Where benchmark statements come from: a statement writer, injected into the builders.

Benchmarks 1-3 are worded by the synth service's offline writer (``vrpcoder_synth.statements``),
the one that words the training data, so the benchmarks test what training taught and nothing
about the wording is eval's own. The builders depend only on the small ``StatementWriter``
protocol: another writer (an LLM teacher, a human-written file) plugs in the same way.

A writer may rename the nodes (the synth writer's ``index:*`` paths); it then returns the map from
internal node numbers to the statement's ids, which the builder stores in the sample so the
verifier can translate the candidate's node table (SPEC section 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from vrpcoder.samples import Sample
from vrpcoder_synth.statements import StatementPath, write_statement


@dataclass(frozen=True, slots=True)
class WrittenStatement:
    text: str
    node_id_map: dict[str, str] | None = None
    path: str = StatementPath.SCENARIO.value


class StatementWriter(Protocol):
    """Turns a sample's instance into the natural-language problem a model is asked to formulate."""

    def __call__(self, sample: Sample) -> WrittenStatement: ...


@dataclass(frozen=True, slots=True)
class SynthStatementWriter:
    """The synth service's offline writer on one of its paths (default: the full scenario)."""

    path: StatementPath = StatementPath.SCENARIO

    def __call__(self, sample: Sample) -> WrittenStatement:
        statement = write_statement(sample, self.path)
        return WrittenStatement(text=statement.text, node_id_map=statement.node_id_map, path=statement.path.value)


def default_writer(path: str = StatementPath.SCENARIO.value) -> StatementWriter:
    """The synth writer on ``path`` (``scenario``, ``condensed``, ``strict``, ``index:one_based``, ...)."""
    return SynthStatementWriter(StatementPath(path))


def with_statement(sample: Sample, written: WrittenStatement) -> Sample:
    """The sample as stored for the item: its statement, and the node map when ids were renamed."""
    return sample.model_copy(update={"statement": written.text, "node_id_map": written.node_id_map})

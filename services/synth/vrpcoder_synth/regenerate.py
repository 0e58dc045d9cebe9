"""Stage 3: code regeneration from a statement, through the one shared system prompt.

A *coder* turns chat messages ([system: the shared code prompt, user: statement q]) into a
completion; the script is then taken from the completion's python code block, exactly as the
trainer's reward and the eval service take it. Two coders exist:

- ``OfflineCoder`` (the embedded default): renders one of the shipped alternative formulations
  (``vrpcoder_synth.formulations``) for the sample's instance, chosen deterministically from the
  work item's key, written against the statement's ids (``node_ids`` / ``id2idx`` when the
  statement renamed its nodes, customers listed in reverse half of the time so a wrong table
  cannot pass by accident). With ``omit`` it renders the mutant lacking that block, which is how
  the reserved set (DIFF passes, INJ fails) is shown to be recorded.
- ``TeacherCoder``: any OpenAI-compatible endpoint through ``vrpcoder_synth.teacher``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from vrpcoder.families import Family
from vrpcoder.samples import Sample
from vrpcoder_client.prompts import code_system_prompt
from vrpcoder_client.reward import extract_code

from vrpcoder_synth.formulations import Formulation, Listing, formulations_for, pick, render, statement_listing
from vrpcoder_synth.statements import Statement


def code_messages(statement_text: str) -> list[dict[str, str]]:
    """The Stage 3 request: the shared system prompt and the statement, nothing else."""
    return [{"role": "system", "content": code_system_prompt()}, {"role": "user", "content": statement_text}]


def as_completion(code: str) -> str:
    """An answer in the output protocol: one python code block."""
    return f"```python\n{code.rstrip()}\n```"


@dataclass(frozen=True, slots=True)
class Regenerated:
    completion: str
    code: str | None
    """The script extracted from the completion (None: the completion had no code block)."""
    coder: str
    """What wrote it: ``offline:<formulation>[-<omitted block>]`` or ``teacher:<model>``."""


class Coder(Protocol):
    def regenerate(self, sample: Sample, statement: Statement, key: str) -> Regenerated: ...


@dataclass(frozen=True, slots=True)
class Omission:
    """A block a coder can leave out of one of its formulations, and the family that then goes missing."""

    formulation: str
    block: str
    family: Family | None
    """None: the block is an objective or linking part, not a constraint family."""


@runtime_checkable
class MutatingCoder(Protocol):
    """A coder that can also write its scripts without one block (Stage 4's mutants); a teacher cannot."""

    def regenerate(self, sample: Sample, statement: Statement, key: str) -> Regenerated: ...

    def omissions(self, sample: Sample) -> tuple[Omission, ...]: ...

    def mutant(self, formulation: str, omit: str) -> Coder: ...


def _bit(key: str, salt: str) -> bool:
    return hashlib.sha256(f"{salt}|{key}".encode()).digest()[0] % 2 == 1


@dataclass(frozen=True)
class OfflineCoder:
    """Renders a shipped formulation; ``omit`` names the block a mutant leaves out."""

    omit: str | None = None
    formulation_name: str | None = None
    """Render this formulation instead of picking one by the item's key (mutants name theirs)."""

    def formulation(self, sample: Sample, key: str) -> Formulation:
        if self.formulation_name is not None:
            return next(f for f in formulations_for(sample.variant) if f.name == self.formulation_name)
        return pick(sample.variant, key)

    def script(self, sample: Sample, statement: Statement, key: str) -> tuple[Formulation, str]:
        formulation = self.formulation(sample, key)
        instance = sample.instance
        listing = None
        if statement.node_id_map is not None:
            listing = statement_listing(instance, statement.node_id_map, reverse_customers=_bit(key, "listing"))
        else:
            listing = Listing.internal(instance.num_nodes)
        return formulation, render(formulation, instance, listing=listing, omit=self.omit)

    def omissions(self, sample: Sample) -> tuple[Omission, ...]:
        return tuple(
            Omission(f.name, omit, f.omission_family(omit)) for f in formulations_for(sample.variant) for omit in f.omissions
        )

    def mutant(self, formulation: str, omit: str) -> OfflineCoder:
        return OfflineCoder(omit=omit, formulation_name=formulation)

    def regenerate(self, sample: Sample, statement: Statement, key: str) -> Regenerated:
        # The offline coder reads the sample, not the text: the statement is only consulted for
        # its ids. The completion still goes through the same extraction as a teacher's.
        formulation, code = self.script(sample, statement, key)
        completion = as_completion(code)
        name = formulation.name + (f"-{self.omit}" if self.omit else "")
        return Regenerated(completion=completion, code=extract_code(completion), coder=f"offline:{name}")

"""The unit a gold script is assembled from: a named module of code, and the auxiliary module names.

Kept apart from the renderers so that the family modules and the joint cuts can share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from textwrap import dedent


class AuxModule(StrEnum):
    """Modules that are not constraint families."""

    VARIABLES = "variables"
    """Decision variables and the expressions several modules share."""
    SOFT_TIME_WINDOW = "soft_time_window"
    """Service start times and lateness for soft windows (an objective term, not a family)."""
    VALID_INEQUALITIES = "valid_inequalities"
    """Cuts implied by several families together; removed with any family (see ``remove_family``)."""
    GROUP_CUTS = "group_cuts"
    """Some vehicle enters every customer group: eliminates subtours only *given* coverage, so it
    is joint too (kept in the subtour module it would silently re-impose an omitted coverage)."""
    SYMMETRY_BREAKING = "symmetry_breaking"
    OBJECTIVE = "objective"


JOINT_MODULES: tuple[str, ...] = (AuxModule.VALID_INEQUALITIES, AuxModule.GROUP_CUTS)
"""Modules valid only while every family module is present."""


@dataclass(frozen=True, slots=True)
class CodeModule:
    name: str
    code: str
    """Statements of the module, indented as at the top level of ``build_model``'s body (column 0)."""


def make_module(name: str, code: str) -> CodeModule:
    """Normalise a module body assembled from indented chunks: column 0, no blank lines."""
    lines = [line for line in dedent(code).splitlines() if line.strip()]
    return CodeModule(name=name, code="\n".join(lines))

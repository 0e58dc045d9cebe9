"""Policies and helpers shared by the sandbox tests (fixtures live in conftest.py).

A hostile script in tests/data/hostile/ is a plausible candidate whose ``build_model`` attempts
its attack and then (where the attack failed harmlessly) returns ``gold_build_model()``: the
sample's gold script with its ``build_model`` renamed, prepended by ``compose``. So a contained
attack ends in a normal, passing verdict, and a leak shows up as a failed one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from vrpcoder.samples import Sample
from vrpcoder_verifier.sandbox import SandboxPolicy, sandbox_status

HOSTILE_DIR = Path(__file__).resolve().parents[2] / "data" / "hostile"

SMALL = SandboxPolicy(
    wall_seconds=15, cpu_seconds=10, memory_mb=1024, max_processes=32, max_file_mb=4, max_output_kb=16, sandboxes=1
)
"""One sandbox: every job follows the previous one in the same sandbox, so the tests that look
for what a job left find the sandbox it left it in."""
HANG = SMALL.model_copy(update={"wall_seconds": 3, "cpu_seconds": 2})

requires_bwrap = pytest.mark.skipif(not sandbox_status().available, reason=f"no sandbox: {sandbox_status().detail}")


def compose(name: str, sample: Sample, substitutions: dict[str, str]) -> str:
    """The hostile script ``name`` over the sample's gold model, placeholders filled in."""
    gold = sample.gold_code.replace("def build_model(", "def gold_build_model(")
    assert gold.count("def gold_build_model(") == 1, "the gold script must define build_model() once"
    text = (HOSTILE_DIR / f"{name}.py").read_text()
    for key, value in substitutions.items():
        placeholder = f"__{key}__"
        assert placeholder in text, f"{name}.py has no {placeholder}"
        text = text.replace(placeholder, value)
    return f"{gold}\n\n{text}"

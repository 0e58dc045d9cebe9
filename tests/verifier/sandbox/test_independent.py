"""Independently written correct candidates keep their full reward inside the sandbox.

The tripwires and the integrity checks must not take a legitimate style for an attack: lazy-cut
callbacks, the matrix API, indicator constraints, hierarchical objectives, unnamed variables.
Each correct script of the in-process suite runs here on its base sample.
"""

from __future__ import annotations

import pytest
from vrpcoder.verification import VerifyConfig
from vrpcoder_verifier.sandbox import SandboxExecutor

from tests.shared.test_independent_candidates import CASES, Case, describe, render
from tests.verifier.sandbox.support import requires_bwrap

pytestmark = requires_bwrap

CONFIG = VerifyConfig(time_limit=60.0)


@pytest.mark.parametrize("case", [c for c in CASES if c.xfail is None], ids=lambda c: c.id)
def test_an_independent_candidate_passes_in_the_sandbox(case: Case, executor: SandboxExecutor) -> None:
    sample = case.samples()[0]
    record = executor.execute(render(case.template(), sample.instance), sample, CONFIG)
    verdict = record.verdict
    assert verdict.passed and verdict.error is None, (describe(verdict), record.violations, record.output[-800:])
    assert verdict.reward == pytest.approx(1.0)

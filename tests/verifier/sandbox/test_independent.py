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


def test_unjudged_probes_of_a_two_index_mixed_fleet_pass_the_supervisors_check(executor: SandboxExecutor) -> None:
    """The supervisor recomputes which probes may be reported unjudgeable; the verifier's own
    report of them must get through it unchanged."""
    case = next(c for c in CASES if c.file == "hfmcvrp_2index_assignment.py")
    default_point = Case(case.file, case.variant, case.style)
    for sample in default_point.samples():
        record = executor.execute(render(case.template(), sample.instance), sample, CONFIG)
        verdict = record.verdict
        assert verdict.passed and verdict.error is None, (describe(verdict), record.violations)
        if any(not p.judged for p in verdict.probes):
            return
    pytest.fail("no sample of the default point has a probe a 2-index x cannot judge")

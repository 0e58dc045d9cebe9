"""DIFF's continued solve and the optimum check inside the sandbox, and the supervisor's check of
what a child reports about them (a passing plan is judged again, with no solver)."""

from __future__ import annotations

import pytest
from vrpcoder.families import Family
from vrpcoder.samples import build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_client.verdicts import PlanRoute
from vrpcoder_verifier.sandbox import SandboxExecutor
from vrpcoder_verifier.sandbox.outcomes import verdict_inconsistency

from tests.shared.test_independent_candidates import render
from tests.shared.test_optimum import REVERSED_CLOCK, _base_sample, _line_instance, _with_gap
from tests.verifier.sandbox.support import requires_bwrap

CONFIG = VerifyConfig(time_limit=30.0)


@requires_bwrap
def test_the_optimum_check_and_a_continued_solve_come_back_from_the_sandbox(executor: SandboxExecutor) -> None:
    windows = _base_sample(_line_instance())
    record = executor.execute(render(REVERSED_CLOCK, windows.instance), windows, CONFIG)
    verdict = record.verdict
    assert verdict.error is None and not record.violations, (verdict, record.violations)
    assert verdict.optimum is not None and verdict.optimum.families == (Family.TIME_WINDOW,)
    assert not verdict.passed

    loose = build_samples(sample_instance("CVRP", 5, 1, customers=8), seed=0).samples[0]
    record = executor.execute(_with_gap(loose.gold_code, 0.3), loose, CONFIG)
    verdict = record.verdict
    assert verdict.diff_check is not None and verdict.diff_check.continued, (verdict, record.violations)
    assert verdict.passed and verdict.reward == pytest.approx(1.0)


def test_the_supervisor_rejects_a_forged_optimum_check() -> None:
    sample = _base_sample(_line_instance())
    honest = verify(sample.gold_code, sample, CONFIG)
    assert honest.optimum is not None and verdict_inconsistency(honest, sample, CONFIG) is None

    backwards = (PlanRoute(vehicle=0, depot=0, visits=(3, 2, 1)),)
    forged = honest.model_copy(update={"optimum": honest.optimum.model_copy(update={"routes": backwards})})
    assert verdict_inconsistency(forged, sample, CONFIG) == "the optimum check passed a plan the checker rejects"

    missing = honest.model_copy(update={"optimum": None})
    assert verdict_inconsistency(missing, sample, CONFIG) == "the optimum check is missing"

    buggy = verify(render(REVERSED_CLOCK, sample.instance), sample, CONFIG)
    assert buggy.optimum is not None and not buggy.optimum.passed
    ungated = buggy.model_copy(update={"reward": buggy.reward + CONFIG.weights.diff})  # type: ignore[operator]
    assert verdict_inconsistency(ungated, sample, CONFIG) == "reward does not follow from the verdict"

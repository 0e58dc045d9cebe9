"""How a verdict becomes an item's outcome: which failed check names it."""

from __future__ import annotations

import pytest
from vrpcoder_client.verdicts import CostCheck, Family, InjVerdict, Label, OptimumCheck, PlanViolation, ProbeResult, Verdict

from vrpcoder_eval.benchmark import BenchmarkItem, BenchmarkName
from vrpcoder_eval.results import COST_FAILED, OPTIMUM_FAILED, PASS, from_verdict

ITEM = BenchmarkItem(
    id="b1-x", benchmark=BenchmarkName.B1, statement="a problem", reference_objective=10.0,
    sample_id="0" * 64, variant="VRPSTW", source="synthetic",
)
PROBE = ProbeResult(name="s+", family=None, label=Label.FEASIBLE, verdict=InjVerdict.FEASIBLE, passed=True, seconds=0.0)
PRICED = CostCheck(probe="s+", objective=10.0, price=10.0, passed=True)
MISPRICED = CostCheck(probe="s+", objective=9.0, price=10.0, passed=False)
BROKEN = OptimumCheck(passed=False, violations=(PlanViolation(family=Family.TIME_WINDOW, detail="late"),))


def _verdict(costs: tuple[CostCheck, ...], optimum: OptimumCheck | None = None) -> Verdict:
    ok = all(c.passed for c in costs) and (optimum is None or optimum.passed)
    return Verdict(
        sample_id="VRPSTW-p1-s0-base", build=True, status="optimal", objective=10.0, reference_objective=10.0,
        diff=True, probes=(PROBE,), passed=ok, reward=1.0 if ok else 0.5, error=None, optimum=optimum, costs=costs,
    )


@pytest.mark.parametrize(
    ("costs", "optimum", "outcome", "failed"),
    [
        ((PRICED,), None, PASS, ()),
        ((MISPRICED,), None, COST_FAILED, ("cost",)),
        ((MISPRICED,), BROKEN, OPTIMUM_FAILED, ("optimum:time_window", "cost")),
    ],
)
def test_a_mispriced_plan_is_its_own_outcome(
    costs: tuple[CostCheck, ...], optimum: OptimumCheck | None, outcome: str, failed: tuple[str, ...]
) -> None:
    result = from_verdict(ITEM, _verdict(costs, optimum), "code")
    assert result.outcome == outcome and result.failed_checks == failed
    assert result.pass_at_1 and result.dual_pass is (outcome == PASS)

"""Degenerate solves get kinds of their own: a time budget too small to decide is not the model's
fault (no reward), an unbounded model is (``unbounded``), and neither is a plain DIFF failure."""

from __future__ import annotations

import re
from functools import cache

import pytest

from vrpcoder.errors import ErrorKind
from vrpcoder.samples import Sample, build_grid_point
from vrpcoder.verification import VerifyConfig, verify


@cache
def _cvrp() -> Sample:
    """A CVRP base sample of 8 customers: its gold solve takes far longer than a millisecond."""
    return build_grid_point("CVRP", 5, 0, time_limit=10).samples[0]


def _own_time_limit(code: str, seconds: float) -> str:
    lowered, count = re.subn(r"m\.Params\.TimeLimit = [0-9.e+-]+", f"m.Params.TimeLimit = {seconds!r}", code)
    assert count == 1, "the gold script sets no time limit of its own"
    return lowered


def test_a_correct_script_out_of_time_gets_a_budget_verdict_without_reward() -> None:
    sample = _cvrp()
    verdict = verify(sample.gold_code, sample, VerifyConfig(time_limit=0.001))
    assert verdict.status == "time_limit" and not verdict.diff
    assert verdict.error is not None and verdict.error.kind is ErrorKind.TIME_BUDGET
    assert not verdict.error.kind.is_candidate_fault
    assert verdict.reward is None, "a budget artefact must not be scored as the model's failure"
    assert "raise time_limit" in verdict.error.detail


def test_a_script_that_lowers_its_own_time_limit_is_continued_under_ours_and_judged() -> None:
    """No budget verdict for a limit the candidate chose: its solve is continued within ours first."""
    sample = _cvrp()
    verdict = verify(_own_time_limit(sample.gold_code, 0.001), sample, VerifyConfig(time_limit=30.0))
    assert verdict.error is None and verdict.diff and verdict.reward == pytest.approx(1.0)
    assert verdict.diff_check is not None and verdict.diff_check.continued


UNBOUNDED_LP = """
import gurobipy as gp

def build_model():
    m = gp.Model()
    y = m.addVar(lb=0.0)
    m.setObjective(-y)
    m.optimize()
    return m
"""

UNBOUNDED_MIP = """
import gurobipy as gp
from gurobipy import GRB

def build_model():
    m = gp.Model()
    y = m.addVar(lb=0.0)
    z = m.addVar(vtype=GRB.BINARY)
    m.addConstr(y >= z)
    m.setObjective(-y - z)
    m.optimize()
    return m
"""


@pytest.mark.parametrize("code", [UNBOUNDED_LP, UNBOUNDED_MIP], ids=["lp-no-solution", "mip-objective-1e30"])
def test_an_unbounded_model_gets_its_own_kind_and_keeps_its_build_credit(code: str) -> None:
    sample = _cvrp()
    verdict = verify(code, sample, VerifyConfig(time_limit=5.0))
    assert verdict.error is not None and verdict.error.kind is ErrorKind.UNBOUNDED
    assert verdict.error.kind.is_candidate_fault
    assert verdict.build and not verdict.diff
    assert verdict.reward is not None and verdict.reward == pytest.approx(0.2)

"""The probe's canned job: data shaped like a real job's, a passing verdict, and no trace the
tripwires would take for tampering."""

from __future__ import annotations

import gurobipy as gp
import pytest
from vrpcoder_verifier.sandbox.protocol import Disclosure, JobHeader
from vrpcoder_verifier.sandbox.rehearsal import Rehearsal, prepare_rehearsal, rehearse
from vrpcoder_verifier.sandbox.tripwire import Guard


@pytest.fixture(scope="module")
def rehearsal() -> Rehearsal:
    return prepare_rehearsal()


def test_the_canned_job_decodes_like_a_real_one(rehearsal: Rehearsal) -> None:
    header = JobHeader.model_validate_json(rehearsal.header_json)
    disclosure = Disclosure.model_validate_json(rehearsal.disclosure_json)
    assert "def build_model" in header.code and header.token
    assert disclosure.sample.gold_code == "" and disclosure.sample.statement is None
    assert disclosure.sample.probes


def test_rehearsing_passes_and_leaves_nothing_the_guard_reports(rehearsal: Rehearsal) -> None:
    guard = Guard.take()
    verdict = rehearse(rehearsal, guard)
    assert verdict.passed and verdict.reward == 1.0
    assert len(verdict.probes) == len(Disclosure.model_validate_json(rehearsal.disclosure_json).sample.probes)
    model = gp.Model()
    try:
        assert guard.problems(model) == []
    finally:
        model.dispose()

"""The spare's rehearsal: canned data shaped like a real job, and no trace the tripwires would take for tampering."""

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
    assert "def build_model" in header.code
    assert disclosure.sample.gold_code == "" and disclosure.sample.statement is None
    assert disclosure.sample.probes
    assert rehearsal.verdict.passed


def test_rehearsing_leaves_nothing_the_guard_reports(rehearsal: Rehearsal) -> None:
    guard = Guard.take()
    rehearse(rehearsal)
    model = gp.Model()
    try:
        assert guard.problems(model) == []
    finally:
        model.dispose()

"""Acceptance of the offline pipeline over all 18 training variants (the shipped default grid plus a
second seed): the card is written, every accepted record re-verifies as accepted from its stored
files alone, the reserved set is non-empty, and no held-out variant appears anywhere."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from vrpcoder.samples import Sample
from vrpcoder.variants import held_out_variants, train_variants
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_client.reward import extract_code

from vrpcoder_synth.components import build_components
from vrpcoder_synth.config import load_config
from vrpcoder_synth.pipeline import run


@pytest.mark.slow
def test_offline_pipeline_over_the_training_variants(tmp_path: Path) -> None:
    default = load_config(None)
    config = default.model_copy(update={"grid": default.grid.model_copy(update={"seeds": (0, 1)})})
    parts = build_components(config, tmp_path)
    report = run(config, tmp_path, writer=parts.writer, coder=parts.coder, backend=parts.backend, fingerprint=parts.fingerprint)
    card = (tmp_path / "README.md").read_text()
    print(card)
    sft = [json.loads(line) for line in (tmp_path / "sft" / "train.jsonl").read_text().splitlines()]
    reserved = [json.loads(line) for line in (tmp_path / "reserved" / "train.jsonl").read_text().splitlines()]
    assert {row["variant"] for row in sft} == {v.name for v in train_variants()}
    assert reserved
    held_out = {v.name for v in held_out_variants()}
    assert not any(r.variant in held_out for r in report.records)
    assert not any(name in card for name in held_out)
    failures = []
    for row in sft:
        text = (tmp_path / "samples" / f"{row['sample_id']}.json").read_text()
        assert hashlib.sha256(text.encode()).hexdigest() == row["sample_id"]
        verdict = verify(extract_code(row["messages"][2]["content"]) or "", Sample.model_validate_json(text), VerifyConfig(time_limit=60))
        if not verdict.passed:
            failures.append((row["id"], verdict.error))
    print(f"re-verified {len(sft)} accepted records from their stored files: {len(sft) - len(failures)} accepted again")
    assert not failures

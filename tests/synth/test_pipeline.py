"""The offline pipeline end to end (in-process verifier): outputs, Stage 4 decisions, resume."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import datasets
import pytest
from vrpcoder.samples import Sample
from vrpcoder.variants import get_variant
from vrpcoder.verification import Verdict, VerifyConfig, verify
from vrpcoder_client.prompts import code_system_prompt
from vrpcoder_client.reward import extract_code

from vrpcoder_synth.components import build_components
from vrpcoder_synth.config import GridConfig, SynthConfig
from vrpcoder_synth.dataset import split
from vrpcoder_synth.pipeline import RunReport, run
from vrpcoder_synth.records import ItemRecord, Outcome, decide

CONFIG = SynthConfig(grid=GridConfig(variants=("CVRP", "VRPB", "PDPTW"), profiles=(1,), seeds=(0,), customers=5))
DATASET_FILES = ("README.md", "sft/train.jsonl", "grpo/train.jsonl", "reserved/train.jsonl", "decisions.jsonl")


def _run(out: Path, config: SynthConfig = CONFIG, **kwargs) -> RunReport:
    parts = build_components(config, out)
    try:
        return run(config, out, writer=parts.writer, coder=parts.coder, backend=parts.backend, fingerprint=parts.fingerprint, **kwargs)
    finally:
        parts.close()


def _files(out: Path) -> dict[str, bytes]:
    names = [*DATASET_FILES, *(f"samples/{p.name}" for p in sorted((out / "samples").glob("*.json")))]
    return {name: (out / name).read_bytes() for name in names}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunReport]:
    out = tmp_path_factory.mktemp("synth")
    return out, _run(out)


def test_outputs_follow_the_dataset_contract(finished) -> None:
    out, report = finished
    sft = _jsonl(out / "sft" / "train.jsonl")
    grpo = _jsonl(out / "grpo" / "train.jsonl")
    assert len(grpo) == report.counts()["accepted"] - sum(1 for r in report.records if r.mutant and r.outcome is Outcome.ACCEPTED)
    pairs = [(row["messages"][1]["content"], row["messages"][2]["content"]) for row in sft]
    assert sft and {user for user, _ in pairs} <= {row["prompt"][1]["content"] for row in grpo}
    assert len(pairs) == len(set(pairs)), "an SFT pair is written twice"
    for row in sft:
        system, user, assistant = row["messages"]
        assert system == {"role": "system", "content": code_system_prompt()}
        assert user["role"] == "user" and user["content"]
        assert assistant["content"].startswith("```python\n") and assistant["content"].endswith("\n```")
        assert row["path"] in ("scenario", "condensed", "strict") or row["path"].startswith("index:")
    for row in grpo:
        assert [m["role"] for m in row["prompt"]] == ["system", "user"]
        assert (out / "samples" / f"{row['sample_id']}.json").exists()
    card = (out / "README.md").read_text()
    assert card.startswith("---\nconfigs:\n- config_name: sft\n")
    assert "| CVRP | scenario |" in card and "## Discard reasons" in card
    for name, rows in (("sft", sft), ("grpo", grpo)):
        # datasets caches a folder by its name (every run writes synth0): read it afresh
        loaded = datasets.load_dataset(str(out), name, download_mode="force_redownload")["train"]
        assert loaded.num_rows == len(rows) and loaded[0]["id"] == rows[0]["id"]


def test_every_accepted_record_re_verifies_from_its_stored_files(finished) -> None:
    out, _ = finished
    for row in _jsonl(out / "sft" / "train.jsonl"):
        text = (out / "samples" / f"{row['sample_id']}.json").read_text()
        assert hashlib.sha256(text.encode()).hexdigest() == row["sample_id"]
        sample = Sample.model_validate_json(text)
        assert sample.model_dump_json() == text
        assert (sample.node_id_map is not None) == row["path"].startswith("index:")
        verdict = verify(extract_code(row["messages"][2]["content"]) or "", sample, VerifyConfig(time_limit=30))
        assert verdict.passed, (row["id"], verdict.error)


def test_every_decision_is_recorded_with_its_verdict_and_held_out_never_enters(finished) -> None:
    out, report = finished
    decisions = _jsonl(out / "decisions.jsonl")
    assert len(decisions) == len(report.records)
    assert all(get_variant(d["variant"]).train for d in decisions)
    for d in decisions:
        if d["reason"] in ("accepted", "reserved", "diff_failed", "mutant_undetected"):
            assert d["verdict"] is not None and d["verdict"]["build"]


def test_reserved_set_holds_injection_only_rejections_of_mutants(finished) -> None:
    out, _ = finished
    reserved = _jsonl(out / "reserved" / "train.jsonl")
    assert reserved, "the mutants of this grid include an omission DIFF cannot see"
    for row in reserved:
        assert row["verdict"]["diff"] and not row["verdict"]["passed"]
        assert any(not p["passed"] for p in row["verdict"]["probes"])


def test_stage4_rule() -> None:
    def verdict(build: bool, diff: bool, passed: bool, reward: float | None = 0.5) -> Verdict:
        return Verdict(
            sample_id="s", build=build, status="optimal" if build else None, objective=1.0 if build else None,
            reference_objective=1.0, diff=diff, probes=(), passed=passed, reward=reward, error=None,
        )

    assert decide(verdict(False, False, False, 0.0), mutant=False) == (Outcome.DISCARDED, "build_failed")
    assert decide(verdict(True, False, False), mutant=False) == (Outcome.DISCARDED, "diff_failed")
    assert decide(verdict(True, True, True, 1.0), mutant=False) == (Outcome.ACCEPTED, "accepted")
    assert decide(verdict(True, True, True, 1.0), mutant=True) == (Outcome.DISCARDED, "mutant_undetected")
    assert decide(verdict(True, True, False), mutant=False) == (Outcome.RESERVED, "reserved")
    assert decide(verdict(True, True, False, None), mutant=False) == (Outcome.DISCARDED, "verifier_infrastructure")
    assert decide("down", mutant=False) == (Outcome.DISCARDED, "verifier_unavailable")
    assert decide(None, mutant=False) == (Outcome.DISCARDED, "no_code")


def test_an_interrupted_run_resumes_to_the_same_bytes(finished, tmp_path: Path) -> None:
    out, report = finished
    total = len(report.records)
    small = CONFIG.model_copy(update={"verifier": CONFIG.verifier.model_copy(update={"batch_size": 2})})
    partial = _run(tmp_path, small, stop_after=total // 2)
    assert 0 < partial.computed < total
    assert not (tmp_path / "README.md").exists()
    resumed = _run(tmp_path, small)
    assert resumed.computed == total - partial.computed
    assert _files(tmp_path) == _files(out)
    again = _run(tmp_path, small)
    assert again.computed == 0
    assert _files(tmp_path) == _files(out)


def test_held_out_variants_are_refused_by_the_config() -> None:
    with pytest.raises(ValueError, match="held-out variants never enter training data: DCVRPHTW"):
        GridConfig(variants=("CVRP", "DCVRPHTW"))


def _record(name: str, statement: str, code: str, outcome: Outcome = Outcome.ACCEPTED, mutant: str | None = None) -> ItemRecord:
    return ItemRecord(key=name, id=name, sample=name.split("/")[0], variant="VRPB", kind="base", profile=3, seed=0, path="scenario",
                      mutant=mutant, sample_id=f"id-{name}", statement=statement, code=code, outcome=outcome, reason=outcome.value)


def test_an_sft_pair_is_written_once_and_every_prompt_keeps_its_sample() -> None:
    """An attacked copy that changed no stated number reads like its base sample: the same (statement,
    script) pair must not be trained on twice, but GRPO keeps both prompts (their probes differ)."""
    records = [
        _record("base/scenario", "S1", "C1"),
        _record("capacity_overload/scenario", "S1", "C1"),
        _record("capacity_overload/strict", "S2", "C1"),
        _record("base/mutant", "S1", "C0", Outcome.RESERVED, "capacity"),
        _record("capacity_overload/mutant", "S1", "C0", Outcome.RESERVED, "capacity"),
    ]
    parts = split(records)
    assert [r.id for r in parts["sft"]] == ["base/scenario", "capacity_overload/strict"]
    assert [r.id for r in parts["grpo"]] == ["base/scenario", "capacity_overload/scenario", "capacity_overload/strict"]
    assert [r.id for r in parts["reserved"]] == ["base/mutant"]

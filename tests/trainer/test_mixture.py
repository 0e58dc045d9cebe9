"""The small model's data and training: compact synthesis, the no-injection mix, full fine-tuning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import safetensors.torch
from vrpcoder_synth.components import build_components
from vrpcoder_synth.config import GridConfig, SynthConfig
from vrpcoder_synth.pipeline import run
from vrpcoder_trainer.config import DatasetSettings, SFTRunConfig
from vrpcoder_trainer.dataset import load_records, sample_texts
from vrpcoder_trainer.mixture import NO_INJECTION_SHARE, mix_no_injection, omitted_rule, reserved_count
from vrpcoder_trainer.models import merge_adapters_into
from vrpcoder_trainer.sft import run_sft
from vrpcoder_trainer.tiny import build_tiny_model, model_spec, tokenizer_corpus

from tests.trainer.support import tiny_config

COMPACT = SynthConfig(
    grid=GridConfig(variants=("TSP", "VRPHTW"), profiles=(1,), seeds=(0, 1), customers=5),
    paths=("scenario", "condensed"), mutant_paths="all", coder="compact",
)


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


@pytest.fixture(scope="module")
def synth_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("compact-synth")
    parts = build_components(COMPACT, out)
    try:
        run(COMPACT, out, writer=parts.writer, coder=parts.coder, backend=parts.backend, fingerprint=parts.fingerprint)
    finally:
        parts.close()
    return out


def test_the_compact_synthesis_gives_accepted_scripts_and_diff_blind_mutants(synth_dir: Path) -> None:
    accepted, reserved = _jsonl(synth_dir / "sft" / "train.jsonl"), _jsonl(synth_dir / "reserved" / "train.jsonl")
    assert accepted and all(r["messages"][2]["content"].startswith("```python\nimport math\n") for r in accepted)
    assert reserved, "some time-window omission keeps the optimum (its windows do not bind) and fails injection"
    for row in reserved:
        assert row["verdict"]["diff"] and not row["verdict"]["passed"]
        assert omitted_rule(row["id"]) in ("capacity", "time_window", "subtour")


@pytest.mark.parametrize(("accepted", "share", "expected"), [(3933, NO_INJECTION_SHARE, 318), (100, 0.0, 0), (90, 0.1, 10)])
def test_reserved_count_gives_the_share(accepted: int, share: float, expected: int) -> None:
    assert reserved_count(accepted, share) == expected


@pytest.mark.parametrize("share", [-0.1, 1.0, 2.0])
def test_an_impossible_share_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match="share"):
        reserved_count(10, share)


def test_the_no_injection_mix_holds_the_papers_rate_of_diff_blind_mutants(synth_dir: Path, tmp_path: Path) -> None:
    accepted = _jsonl(synth_dir / "sft" / "train.jsonl")
    available = _jsonl(synth_dir / "reserved" / "train.jsonl")
    share = 0.2
    report = mix_no_injection(synth_dir, tmp_path / "mix", share=share)
    rows = _jsonl(tmp_path / "mix" / "sft" / "train.jsonl")
    mutants = [r for r in rows if r["origin"] == "reserved"]
    assert report.accepted == len(accepted) and report.reserved == len(mutants) == min(len(available), reserved_count(len(accepted), share))
    assert all(r["omitted"] == omitted_rule(r["id"]) and r["omitted"] for r in mutants)
    assert all(r["origin"] == "accepted" and r["omitted"] is None for r in rows if r not in mutants)
    assert {r["id"] for r in mutants} <= {r["id"] for r in available}
    assert _jsonl(tmp_path / "mix" / "grpo" / "train.jsonl") == _jsonl(synth_dir / "grpo" / "train.jsonl")
    sample_texts(tmp_path / "mix", [r["sample_id"] for r in rows])  # every sample stored and unchanged
    assert load_records(DatasetSettings(path=str(tmp_path / "mix"), config="sft")).num_rows == len(rows)
    again = mix_no_injection(synth_dir, tmp_path / "again", share=share)
    assert _jsonl(tmp_path / "again" / "sft" / "train.jsonl") == rows and again.reserved == report.reserved


def test_full_fine_tuning_saves_a_model_that_a_chain_loads_in_place_of_the_base(synth_dir: Path, tmp_path: Path) -> None:
    """lora.enabled false trains every weight of a model built from scratch; GRPO and merging then take
    the saved folder in their adapter chain and load its weights instead of the base's."""
    mix_no_injection(synth_dir, tmp_path / "mix")
    corpus = tokenizer_corpus(load_records(DatasetSettings(path=str(tmp_path / "mix"), config="sft")))
    base = build_tiny_model(tmp_path / "model", corpus, model_spec("smoke"))
    config: SFTRunConfig = tiny_config("codegen_sft_cpu.yaml", **{
        "model.name_or_path": str(base), "dataset.path": str(tmp_path / "mix"), "run.output_dir": str(tmp_path / "sft"),
        "run.max_steps": 2, "run.save_steps": 2, "run.logging_steps": 1, "batch.per_device_train_batch_size": 2,
        "batch.effective_batch_size": 2})
    assert not config.lora.enabled
    saved = run_sft(config)
    assert (saved / "config.json").is_file() and not (saved / "adapter_config.json").exists()
    trained = safetensors.torch.load_file(str(saved / "model.safetensors"))
    original = safetensors.torch.load_file(str(base / "model.safetensors"))
    moved = [name for name in original if not (trained[name] == original[name]).all()]
    assert any("layers.0.self_attn" in name for name in moved), "the decoder's own weights were trained"
    from transformers import AutoModelForCausalLM

    chained = merge_adapters_into(AutoModelForCausalLM.from_pretrained(base), (str(saved),))
    name = "model.layers.0.self_attn.q_proj.weight"
    assert (chained.state_dict()[name] == trained[name]).all()
    with pytest.raises(FileNotFoundError, match="neither a peft adapter"):
        merge_adapters_into(chained, (str(tmp_path),))

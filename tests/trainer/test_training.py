"""One SFT step and GRPO steps on the tiny local model, against the real verifier service."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

import pytest
import safetensors.torch
import torch
from vrpcoder_client.client import RetryPolicy, VerifierClient
from vrpcoder_trainer.config import GRPORunConfig, MergeConfig, SFTRunConfig
from vrpcoder_trainer.grpo import run_grpo
from vrpcoder_trainer.merge import run_merge
from vrpcoder_trainer.sft import last_checkpoint, run_sft
from vrpcoder_verifier.stack import LocalStack, purge, stack_settings

from tests.trainer.support import tiny_config


def test_sft_writes_a_peft_adapter_and_learns(sft_adapter: Path) -> None:
    assert (sft_adapter / "adapter_config.json").is_file() and (sft_adapter / "adapter_model.safetensors").is_file()
    config = json.loads((sft_adapter / "adapter_config.json").read_text())
    assert config["peft_type"] == "LORA" and config["r"] == 16 and config["lora_alpha"] == 32
    weights = safetensors.torch.load_file(str(sft_adapter / "adapter_model.safetensors"))
    assert any("lora_B" in name and tensor.abs().sum() > 0 for name, tensor in weights.items()), "LoRA B moved from zero"
    state = json.loads((sft_adapter.parent / "checkpoint-20" / "trainer_state.json").read_text())
    losses = [entry["loss"] for entry in state["log_history"] if "loss" in entry]
    assert len(losses) >= 2 and losses[-1] < losses[0], f"loss should fall on the assistant tokens: {losses}"


def test_sft_resumes_from_its_last_checkpoint(workdir: Path, dataset_dir: Path, tiny_model: Path) -> None:
    overrides = {"model.name_or_path": str(tiny_model), "dataset.path": str(dataset_dir), "run.output_dir": str(workdir / "sft-resume"),
                 "run.save_steps": 1, "run.logging_steps": 1, "max_length": 512}
    first: SFTRunConfig = tiny_config("tiny_sft_cpu.yaml", **overrides, **{"run.max_steps": 1})
    run_sft(first)
    assert last_checkpoint(first.run.output_dir) == str(workdir / "sft-resume" / "checkpoint-1")
    second: SFTRunConfig = tiny_config("tiny_sft_cpu.yaml", **overrides, **{"run.max_steps": 2})
    run_sft(second, resume=True)
    state = json.loads((workdir / "sft-resume" / "checkpoint-2" / "trainer_state.json").read_text())
    steps = [entry["step"] for entry in state["log_history"] if "loss" in entry]
    assert steps == [1, 2], "the second run continued from step 1 instead of starting over"


def _grpo(workdir: Path, dataset_dir: Path, tiny_model: Path, sft_adapter: Path, name: str, steps: int) -> GRPORunConfig:
    return tiny_config("tiny_grpo_cpu.yaml", **{
        "model.name_or_path": str(tiny_model), "model.adapters": [str(sft_adapter)], "dataset.path": str(dataset_dir),
        "run.output_dir": str(workdir / name), "run.max_steps": steps, "run.save_steps": steps,
    })


def test_grpo_step_scores_rollouts_with_the_verifier(
    workdir: Path, dataset_dir: Path, tiny_model: Path, sft_adapter: Path, stack: LocalStack, client: VerifierClient
) -> None:
    config = _grpo(workdir, dataset_dir, tiny_model, sft_adapter, "grpo", 1)
    adapter, trainer = run_grpo(config, client=client)
    assert (adapter / "adapter_config.json").is_file()
    (log,) = [entry for entry in trainer.state.log_history if "reward" in entry]
    totals = trainer.verifier_reward.totals
    assert totals.completions == 4 and totals.groups == 1 and totals.none == 0
    assert trainer.verifier_reward.stats.calls == 1, "one batch request for the group"
    assert math.isfinite(log["loss"]) and 0.0 <= log["reward"] <= 1.0
    assert log["verifier/no_code_this_step"] < 4, "the SFT'd tiny model writes code the verifier scores"
    assert log["verifier/build"] is not None and "verifier/dual_pass_rate" in log
    summary = json.loads((workdir / "grpo" / "reward_summary.json").read_text())
    assert summary["reward_totals"]["completions"] == 4


def test_grpo_resumes_from_its_checkpoint(
    workdir: Path, dataset_dir: Path, tiny_model: Path, sft_adapter: Path, client: VerifierClient
) -> None:
    first = _grpo(workdir, dataset_dir, tiny_model, sft_adapter, "grpo-resume", 1)
    run_grpo(first, client=client)
    second = _grpo(workdir, dataset_dir, tiny_model, sft_adapter, "grpo-resume", 2)
    _, trainer = run_grpo(second, resume=True, client=client)
    steps = [entry["step"] for entry in trainer.state.log_history if "reward_std" in entry]
    assert steps == [1, 2] and trainer.verifier_reward.totals.completions == 4, "only step 2 was run again"
    assert (workdir / "grpo-resume" / "checkpoint-2" / "adapter_model.safetensors").is_file()


@pytest.fixture
def trl_advantages(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every advantage tensor TRL's own ``_generate_and_score_completions`` hands back, recorded
    unchanged (a spy on the library: what the project's guard receives)."""
    from trl import GRPOTrainer

    seen: list[Any] = []
    original = GRPOTrainer._generate_and_score_completions

    def spy(self: Any, inputs: Any) -> Any:
        output = original(self, inputs)
        seen.append(output["advantages"].detach().clone())
        return output

    monkeypatch.setattr(GRPOTrainer, "_generate_and_score_completions", spy)
    return seen


def _run_with_the_verifier_down(config: GRPORunConfig, redis_url: str, log_dir: Path) -> Any:
    """Train with a stack of its own, stopped after the trainer is built: a real outage for the whole run."""
    from vrpcoder_trainer.grpo import build_grpo_trainer

    settings = stack_settings(redis_url, allow_unsandboxed=True, max_time_limit=30.0, default_time_limit=10.0)
    try:
        with LocalStack(settings, workers=1, log_dir=log_dir) as private, VerifierClient(
            private.base_url, private.token, timeout=5, retry=RetryPolicy(attempts=2)
        ) as client:
            trainer = build_grpo_trainer(config, client)  # samples registered, service and token checked
            private.stop()
            trainer.train()
    finally:
        purge(settings)
    return trainer


def test_grpo_survives_the_verifier_being_down(
    workdir: Path, dataset_dir: Path, tiny_model: Path, sft_adapter: Path, redis_url: str, tmp_path: Path,
    trl_advantages: list[Any], caplog: pytest.LogCaptureFixture,
) -> None:
    """Every group is all None. The pinned TRL itself must turn those groups into zero advantages
    (observed on its real output, not read from its source); the guard then has nothing to clear;
    TRL's warning about unscored completions stays one short line (no prompt or completion in it)."""
    from vrpcoder_trainer.rewards import TRL_GRPO_LOGGER, UNSCORABLE_WARNING

    caplog.set_level(logging.WARNING, logger=TRL_GRPO_LOGGER)
    config = _grpo(workdir, dataset_dir, tiny_model, sft_adapter, "grpo-down", 2)
    trainer = _run_with_the_verifier_down(config, redis_url, tmp_path)
    reward = trainer.verifier_reward
    logs = [entry for entry in trainer.state.log_history if "loss" in entry and "reward_std" in entry]
    assert len(logs) == 2, "training went on through both steps"
    assert all(math.isfinite(entry["loss"]) for entry in logs)
    with_code = reward.totals.completions - sum(entry["verifier/no_code_this_step"] for entry in logs)
    assert reward.totals.none == with_code > 0, "every completion with code got None, none got a silent 0"
    assert reward.stats.none_by_reason["service_unavailable"] == with_code
    assert len(trl_advantages) == 2
    assert all(bool((adv == 0).all()) for adv in trl_advantages), (
        f"TRL's handling of None rewards changed (advantages {trl_advantages}): re-check the guard in VerifierGRPOTrainer"
    )
    assert trainer.cleared_advantages == 0, "TRL already zeroed the unscorable advantages; the guard had nothing to clear"
    unscored = [r.getMessage() for r in caplog.records if r.name == TRL_GRPO_LOGGER and UNSCORABLE_WARNING in r.getMessage()]
    assert unscored, "TRL still says that a completion went unscored"
    assert all(len(line) < 400 and "build_model" not in line for line in unscored), "no prompt or completion in the log"


def test_guard_keeps_nan_advantages_out_of_the_loss(
    workdir: Path, dataset_dir: Path, tiny_model: Path, sft_adapter: Path, redis_url: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A TRL that let an all-None group's NaN statistics through (as an older or later release
    may) must not reach the loss: the project's trainer clears them, counts them and logs the count."""
    from trl import GRPOTrainer

    original = GRPOTrainer._generate_and_score_completions
    original_loss = GRPOTrainer._compute_loss
    reaching_the_loss: list[Any] = []

    def nan_for_unscored(self: Any, inputs: Any) -> Any:
        output = original(self, inputs)
        output["advantages"] = torch.full_like(output["advantages"], math.nan)
        return output

    def loss_spy(self: Any, model: Any, inputs: Any) -> Any:
        reaching_the_loss.append(inputs["advantages"].detach().clone())
        return original_loss(self, model, inputs)

    monkeypatch.setattr(GRPOTrainer, "_generate_and_score_completions", nan_for_unscored)
    monkeypatch.setattr(GRPOTrainer, "_compute_loss", loss_spy)
    config = _grpo(workdir, dataset_dir, tiny_model, sft_adapter, "grpo-nan", 1)
    trainer = _run_with_the_verifier_down(config, redis_url, tmp_path)
    (log,) = [entry for entry in trainer.state.log_history if "loss" in entry and "reward_std" in entry]
    assert reaching_the_loss and all(bool(torch.isfinite(adv).all()) for adv in reaching_the_loss), (
        f"a NaN advantage reached the loss: {reaching_the_loss}"
    )
    assert math.isfinite(log["loss"])
    assert trainer.cleared_advantages == trainer.verifier_reward.totals.completions == 4
    assert log["verifier/cleared_advantages_total"] == 4.0


def test_merge_writes_a_loadable_model(workdir: Path, tiny_model: Path, sft_adapter: Path) -> None:
    from transformers import AutoModelForCausalLM

    config: MergeConfig = tiny_config("tiny_merge_cpu.yaml", **{
        "model.name_or_path": str(tiny_model), "model.adapters": [str(sft_adapter)], "output_dir": str(workdir / "merged")})
    out = run_merge(config)
    assert (out / "model.safetensors").is_file() and (out / "tokenizer.json").is_file()
    merged = AutoModelForCausalLM.from_pretrained(out)
    assert not any("lora" in name for name, _ in merged.named_parameters())

"""deploy/gpu-check.sh's CPU side: its configs parse, it stops clearly without CUDA, the random
Qwen3 it builds loads like a hub checkpoint, and (slow) the measured loop runs on the CPU."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from vrpcoder_loop.gpu_check import CONFIGS, EXIT_NO_GPU, StepTimes, plan, sft_plan
from vrpcoder_trainer.tiny import TinyModelSpec, build_tiny_model, train_tokenizer

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "gpu-check.sh"


def test_every_mode_is_planned_from_the_packaged_configs(tmp_path: Path) -> None:
    configs = plan(tmp_path, steps=3)
    assert set(configs) == set(CONFIGS)
    colocate, server = configs["colocate"], configs["server"]
    assert colocate.vllm.enabled and colocate.vllm.mode == "colocate" and colocate.vllm.gpu_memory_utilization < 1
    assert server.vllm.mode == "server" and server.vllm.base_url is not None and "127.0.0.1" in server.vllm.base_url
    for config in configs.values():
        assert config.run.max_steps == 3 and config.model.name_or_path == str(tmp_path / "policy") and config.lora.r > 0
    assert sft_plan(tmp_path, cpu=False).model.name_or_path == str(tmp_path / "model")
    assert sft_plan(tmp_path, cpu=True).run.use_cpu


def _torch_has_cuda() -> bool:
    import torch

    return torch.cuda.is_available()


@pytest.mark.skipif(_torch_has_cuda(), reason="this host has CUDA: the script would run for real")
def test_without_cuda_the_script_checks_its_configs_and_stops_clearly(tmp_path: Path) -> None:
    done = subprocess.run([str(SCRIPT), "--out", str(tmp_path / "out")], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == EXIT_NO_GPU, done.stderr
    assert "no CUDA device" in done.stderr
    assert all(f"config {name}" in done.stdout for name in CONFIGS.values())
    assert not (tmp_path / "out" / "model").exists(), "nothing built before the GPU check"


def test_plan_only_needs_no_gpu(tmp_path: Path) -> None:
    done = subprocess.run([str(SCRIPT), "--plan-only", "--out", str(tmp_path)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and "gpu_check_colocate.yaml (colocate): ok" in done.stdout


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    done = subprocess.run([str(SCRIPT), "--steps", "1", "--out", str(tmp_path)], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2 and "--steps must be at least 2" in done.stderr


def test_random_qwen3_loads_like_a_hub_checkpoint(tmp_path: Path) -> None:
    """What vLLM and TRL load on the GPU host: the Qwen3 architecture from a config, our tokenizer."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    script = "import gurobipy as gp\n\n\ndef build_model():\n    return gp.Model()\n"
    spec = TinyModelSpec(architecture="qwen3", hidden_size=32, intermediate_size=64, num_hidden_layers=1, head_dim=8,
                         vocab_size=400)
    out = build_tiny_model(tmp_path / "model", ["You write gurobipy code."] * 5 + [script] * 5, spec)
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == "qwen3" and config["architectures"] == ["Qwen3ForCausalLM"]
    tokenizer = AutoTokenizer.from_pretrained(out)
    model = AutoModelForCausalLM.from_pretrained(out)
    assert tokenizer.decode(tokenizer(script)["input_ids"]) == script
    trained = train_tokenizer(["You write gurobipy code."] * 5 + [script] * 5, spec)
    assert tokenizer(script)["input_ids"] == trained(script)["input_ids"], "the saved tokenizer, not one rebuilt for Qwen"
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "Model it."}], add_generation_prompt=True,
                                           tokenize=False, enable_thinking=False)
    assert prompt.endswith("<|im_start|>assistant\n")
    ids = tokenizer(prompt, return_tensors="pt")
    with torch.no_grad():
        generated = model.generate(**ids, max_new_tokens=3, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    assert generated.shape[1] == ids["input_ids"].shape[1] + 3


def test_step_split_adds_up() -> None:
    times = StepTimes(mode="x", steps=2, seconds=10.0, generation=6.0, reward=1.0, completion_tokens=600)
    summary = times.summary()
    assert summary["rollout_tokens_per_s"] == 100.0 and summary["verifier_s_per_step"] == 0.5
    assert summary["split"] == {"generation": 3.0, "reward": 0.5, "optimisation": 1.5}


@pytest.mark.slow
def test_the_measured_loop_runs_on_the_cpu(tmp_path: Path) -> None:
    """The whole script without vLLM: model, dataset, private stack, SFT + merge, GRPO with timing (~2 min)."""
    done = subprocess.run([str(SCRIPT), "--cpu", "--steps", "2", "--workers", "1", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (result,) = json.loads((tmp_path / "gpu-check.json").read_text())
    assert result["mode"] == "cpu" and result["steps_measured"] == 1
    assert result["rollout_tokens_per_s"] > 0 and result["split"]["generation"] > 0
    assert "rollout tok/s" in done.stdout

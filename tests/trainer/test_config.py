"""Run configs: the shipped files load and hold the paper's values; bad files fail loudly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from vrpcoder_trainer.config import (
    ConfigError,
    FrontierConfig,
    GRPORunConfig,
    MergeConfig,
    SFTRunConfig,
    describe,
    load_config,
    packaged_path,
)

SHIPPED = {
    "sft_qwen3_8b.yaml": SFTRunConfig,
    "grpo_qwen3_8b.yaml": GRPORunConfig,
    "grpo_no_injection.yaml": GRPORunConfig,
    "tiny_sft_cpu.yaml": SFTRunConfig,
    "tiny_grpo_cpu.yaml": GRPORunConfig,
    "tiny_frontier_cpu.yaml": FrontierConfig,
    "tiny_merge_cpu.yaml": MergeConfig,
    "frontier_qwen3_8b.yaml": FrontierConfig,
    "merge_sft_qwen3_8b.yaml": MergeConfig,
    "merge_grpo_qwen3_8b.yaml": MergeConfig,
    "sft_qwen3_8b_2x4gpu.yaml": SFTRunConfig,
    "gpu_check_sft.yaml": SFTRunConfig,
    "gpu_check_colocate.yaml": GRPORunConfig,
    "gpu_check_server.yaml": GRPORunConfig,
    "codegen_drill_cpu.yaml": SFTRunConfig,
    "codegen_sft_cpu.yaml": SFTRunConfig,
    "codegen_grpo_cpu.yaml": GRPORunConfig,
}
RUN_CONFIGS = sorted(p.name for p in packaged_path("sft_qwen3_8b.yaml").parent.glob("*.yaml") if not p.name.startswith("accelerate_"))


def test_every_shipped_run_config_is_listed() -> None:
    assert set(RUN_CONFIGS) == set(SHIPPED)


@pytest.mark.parametrize(("name", "record"), SHIPPED.items())
def test_shipped_configs_load_as_their_record(name: str, record: type) -> None:
    assert isinstance(load_config(f"packaged:{name}"), record)


def test_sft_config_holds_the_papers_settings() -> None:
    config = load_config("packaged:sft_qwen3_8b.yaml", SFTRunConfig)
    assert (config.lora.r, config.lora.alpha, config.lora.dropout) == (16, 32, 0.1)
    assert config.run.num_train_epochs == 3 and config.max_length == 8192
    assert config.optim.learning_rate == 2e-4 and config.optim.lr_scheduler_type == "cosine"
    assert (config.optim.warmup_ratio, config.optim.weight_decay, config.optim.max_grad_norm) == (0.1, 0.01, 1.0)
    assert config.batch.effective_batch_size == 8
    assert packaged_path("deepspeed_zero2.json").is_file() and config.run.deepspeed == "packaged:deepspeed_zero2.json"


def test_grpo_config_holds_the_papers_settings() -> None:
    config = load_config("packaged:grpo_qwen3_8b.yaml", GRPORunConfig)
    assert config.num_generations == 8 and config.generation.max_completion_length == 3072
    assert (config.generation.temperature, config.generation.top_p, config.beta) == (0.4, 0.95, 0.02)
    assert (config.optim.learning_rate, config.optim.adam_beta2, config.optim.warmup_steps) == (2e-5, 0.95, 5)
    assert config.optim.max_grad_norm == 0.5 and config.batch.effective_batch_size == 24
    assert config.batch.num_processes == 3 and config.vllm.enabled and config.vllm.mode == "server"
    assert (config.reward.build, config.reward.diff, config.reward.inj) == (0.2, 0.5, 0.3)
    accelerate = yaml.safe_load(packaged_path("accelerate_zero2_3gpu.yaml").read_text())
    assert accelerate["num_processes"] == config.batch.num_processes
    assert accelerate["deepspeed_config"]["zero_stage"] == 2


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def test_no_injection_ablation_changes_only_the_reward_weights() -> None:
    full = _flatten(load_config("packaged:grpo_qwen3_8b.yaml").model_dump())
    ablation = _flatten(load_config("packaged:grpo_no_injection.yaml").model_dump())
    changed = {key for key in full if full[key] != ablation[key]}
    assert changed == {"reward.inj", "run.output_dir"}, "besides where it writes, only the reward may differ"
    assert (full["reward.inj"], ablation["reward.inj"]) == (0.3, 0.0)
    ablated = load_config("packaged:grpo_no_injection.yaml", GRPORunConfig)
    assert ablated.reward.options(None).weights.inj == 0.0


def _write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _tiny_sft() -> dict[str, Any]:
    return yaml.safe_load(packaged_path("tiny_sft_cpu.yaml").read_text())


def test_unknown_key_is_an_error_naming_it(tmp_path: Path) -> None:
    data = _tiny_sft()
    data["optim"]["learning_rte"] = 1e-3
    with pytest.raises(ConfigError, match=r"optim\.learning_rte: unknown key"):
        load_config(_write(tmp_path, data), SFTRunConfig)
    data = _tiny_sft()
    data["epochs"] = 3
    with pytest.raises(ConfigError, match=r"epochs: unknown key"):
        load_config(_write(tmp_path, data), SFTRunConfig)


def test_effective_batch_must_be_the_product(tmp_path: Path) -> None:
    data = _tiny_sft()
    data["batch"]["effective_batch_size"] = 8
    with pytest.raises(ConfigError, match="effective_batch_size is 8"):
        load_config(_write(tmp_path, data))


def test_grpo_batch_must_hold_whole_groups() -> None:
    with pytest.raises(ConfigError, match="not a multiple of num_generations"):
        load_config("packaged:tiny_grpo_cpu.yaml", GRPORunConfig, {"num_generations": 3})


def test_wrong_kind_bad_values_and_bad_yaml_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs kind 'grpo'"):
        load_config("packaged:tiny_sft_cpu.yaml", GRPORunConfig)
    with pytest.raises(ConfigError, match="lora.dropout"):
        load_config("packaged:tiny_sft_cpu.yaml", SFTRunConfig, {"lora.dropout": 1.5})
    broken = tmp_path / "broken.yaml"
    broken.write_text("kind: sft\nmodel: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(broken)
    with pytest.raises(ConfigError, match="'kind' must be one of"):
        load_config(_write(tmp_path, {"model": {"name_or_path": "x"}}))
    with pytest.raises(ConfigError, match="no packaged config"):
        load_config("packaged:nope.yaml")


def test_frontier_needs_exactly_one_rollout_source() -> None:
    with pytest.raises(ConfigError, match="exactly one of 'endpoint'"):
        load_config("packaged:tiny_frontier_cpu.yaml", FrontierConfig,
                    {"endpoint": {"base_url": "http://vllm:8000/v1", "model": "policy"}})


@pytest.mark.parametrize("record", [SFTRunConfig, GRPORunConfig, FrontierConfig, MergeConfig])
def test_every_setting_is_documented(record: type) -> None:
    rows = describe(record)
    assert rows
    undocumented = [key for key, _, meaning in rows if not meaning.strip()]
    assert undocumented == []


def test_dataset_cards_name_their_configs_and_records_load(tmp_path: Path) -> None:
    from vrpcoder_trainer.config import DatasetSettings
    from vrpcoder_trainer.dataset import DatasetEntry, load_records, write_dataset

    from tests.trainer.support import cvrp_samples

    sample = cvrp_samples()[0]
    entry = DatasetEntry(id="a", variant="CVRP", path="scenario", statement="q", target_code="x = 1", sample_json=sample.model_dump_json())
    first = write_dataset(tmp_path / "one" / "data", [entry])
    second = write_dataset(tmp_path / "two" / "data", [entry.model_copy(update={"id": "b"}), entry.model_copy(update={"id": "c"})])
    assert list(load_records(DatasetSettings(path=str(first), config="sft"))["id"]) == ["a"]
    assert list(load_records(DatasetSettings(path=str(second), config="sft"))["id"]) == ["b", "c"], "same folder name, own records"
    grpo = load_records(DatasetSettings(path=str(first), config="grpo"))
    assert grpo[0]["prompt"][1] == {"role": "user", "content": "q"}
    with pytest.raises(ConfigError, match="no config 'nope'"):
        load_records(DatasetSettings(path=str(first), config="nope"))
    with pytest.raises(ConfigError, match="has no records"):
        load_records(DatasetSettings(path=str(first), config="reserved"))


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_configs_use_an_attention_kernel_torch_provides(name: str) -> None:
    """flash-attn is an opt-in extra that the trainer image does not install: no shipped config asks for it."""
    config = load_config(f"packaged:{name}")
    model = getattr(config, "model", None)
    if model is not None:
        assert model.attn_implementation == "sdpa"


def test_attention_defaults_to_sdpa() -> None:
    from vrpcoder_trainer.config import ModelSettings

    assert ModelSettings(name_or_path="x").attn_implementation == "sdpa"


def test_qwen3_grpo_switches_thinking_off() -> None:
    from vrpcoder_trainer.grpo import grpo_keywords

    for name in ("grpo_qwen3_8b.yaml", "grpo_no_injection.yaml"):
        assert grpo_keywords(load_config(f"packaged:{name}", GRPORunConfig))["chat_template_kwargs"] == {"enable_thinking": False}
    assert grpo_keywords(load_config("packaged:tiny_grpo_cpu.yaml", GRPORunConfig))["chat_template_kwargs"] is None


COLOCATE = {"enabled": True, "mode": "colocate", "gpu_memory_utilization": 0.45, "tensor_parallel_size": 2,
            "enable_sleep_mode": True, "max_model_length": 4096}


def _tiny_grpo(**overrides: Any) -> GRPORunConfig:
    return load_config("packaged:tiny_grpo_cpu.yaml", GRPORunConfig, overrides)


def test_colocate_settings_reach_trl() -> None:
    """The names must be GRPOConfig's own: TRL builds the config from them without complaint."""
    from trl import GRPOConfig

    from vrpcoder_trainer.grpo import grpo_keywords

    config = _tiny_grpo(**{"vllm": COLOCATE, "batch.num_processes": 2, "batch.effective_batch_size": 8})
    keywords = grpo_keywords(config)
    args = GRPOConfig(**keywords)
    assert (args.use_vllm, args.vllm_mode) == (True, "colocate")
    assert (args.vllm_gpu_memory_utilization, args.vllm_tensor_parallel_size) == (0.45, 2)
    assert args.vllm_enable_sleep_mode is True and args.vllm_max_model_length == 4096
    assert "vllm_server_base_url" not in keywords


def test_server_mode_sends_no_colocate_settings() -> None:
    from vrpcoder_trainer.grpo import vllm_keywords

    keywords = vllm_keywords(load_config("packaged:grpo_qwen3_8b.yaml", GRPORunConfig).vllm)
    assert keywords["vllm_mode"] == "server" and keywords["vllm_server_base_url"] == "http://vllm-grpo-server:8000"
    assert not {"vllm_gpu_memory_utilization", "vllm_tensor_parallel_size", "vllm_enable_sleep_mode"} & set(keywords)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"vllm": {"enabled": True, "mode": "server", "gpu_memory_utilization": 0.5}}, "colocate-mode settings"),
        ({"vllm": {"enabled": True, "mode": "colocate", "tensor_parallel_size": 3}, "batch.num_processes": 2,
          "batch.effective_batch_size": 8}, "does not divide"),
        ({"vllm": {"enabled": True, "mode": "colocate", "gpu_memory_utilization": 1.5}}, "less than or equal to 1"),
    ],
    ids=["colocate-setting-in-server-mode", "tensor-parallel-not-dividing", "memory-share-over-1"],
)
def test_invalid_vllm_settings_are_refused(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        _tiny_grpo(**overrides)


def test_multi_node_launch_matches_its_run_config() -> None:
    accelerate = yaml.safe_load(packaged_path("accelerate_zero2_2x4gpu.yaml").read_text())
    config = load_config("packaged:sft_qwen3_8b_2x4gpu.yaml", SFTRunConfig)
    assert accelerate["num_machines"] == 2 and accelerate["num_processes"] == config.batch.num_processes == 8
    single = load_config("packaged:sft_qwen3_8b.yaml", SFTRunConfig)
    assert config.batch.effective_batch_size == single.batch.effective_batch_size, "same run, other topology"


def test_vllm_is_pinned_within_trls_supported_range() -> None:
    import re
    from importlib.metadata import requires

    from packaging.requirements import Requirement

    text = (Path(__file__).resolve().parents[2] / "services" / "trainer" / "pyproject.toml").read_text()
    (pin,) = re.findall(r'"vllm==([^"]+)"', text)
    trl_vllm = next(Requirement(r) for r in requires("trl") or [] if r.startswith("vllm") and "extra" in r)
    assert trl_vllm.specifier.contains(pin), f"TRL accepts vllm {trl_vllm.specifier}, the trainer pins {pin}"


@pytest.mark.parametrize(("name", "record"), [("grpo_qwen3_8b.yaml", GRPORunConfig), ("grpo_no_injection.yaml", GRPORunConfig),
                                              ("frontier_qwen3_8b.yaml", FrontierConfig)])
def test_paper_scale_runs_ride_out_a_restart_of_the_verifier(name: str, record: type) -> None:
    """A rolling restart of the API or a Redis restart takes seconds; the run's client must keep
    retrying longer than that, or a whole group's rewards become None for an ordinary deploy."""
    from vrpcoder_trainer.grpo import verifier_client

    config = load_config(f"packaged:{name}", record, {"verifier": {"url": "http://verifier-api:8000"}})
    with verifier_client(config.verifier) as client:
        assert client.retry.attempts is None and client.retry.give_up_after >= 60.0

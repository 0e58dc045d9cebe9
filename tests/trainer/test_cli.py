"""`vrpcoder train ...`: registered with the shared CLI, helpful errors, --json output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml
from typer.testing import CliRunner
from vrpcoder_trainer.cli import app
from vrpcoder_trainer.config import packaged_path

runner = CliRunner()


def test_train_is_a_subcommand_of_the_shared_cli() -> None:
    console_script = Path(sys.executable).parent / "vrpcoder"
    result = subprocess.run([str(console_script), "train", "--help"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    for command in ("sft", "grpo", "frontier", "merge"):
        assert command in result.stdout


def test_show_config_json_documents_every_key() -> None:
    result = runner.invoke(app, ["show-config", "grpo", "--json"])
    assert result.exit_code == 0
    rows = json.loads(result.stdout)
    keys = {row["key"] for row in rows}
    assert {"num_generations", "reward.inj", "generation.temperature", "vllm.mode", "optim.adam_beta2"} <= keys
    assert all(row["meaning"] for row in rows)


def test_unknown_key_exits_2_naming_it(tmp_path: Path) -> None:
    data = yaml.safe_load(packaged_path("tiny_sft_cpu.yaml").read_text())
    data["run"]["max_step"] = 3
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    result = runner.invoke(app, ["sft", "--config", str(path)])
    assert result.exit_code == 2
    assert "run.max_step: unknown key" in result.output


def test_bad_override_and_missing_file_exit_2() -> None:
    result = runner.invoke(app, ["grpo", "--config", "packaged:tiny_grpo_cpu.yaml", "--set", "num_generations"])
    assert result.exit_code == 2 and "section.key=value" in result.output
    result = runner.invoke(app, ["merge", "--config", "/nonexistent/merge.yaml"])
    assert result.exit_code == 2 and "cannot read" in result.output
    result = runner.invoke(app, ["sft", "--config", "packaged:tiny_grpo_cpu.yaml"])
    assert result.exit_code == 2 and "needs kind 'sft'" in result.output


def test_config_path_prints_a_shipped_file() -> None:
    result = runner.invoke(app, ["config-path", "accelerate_zero2_3gpu.yaml"])
    assert result.exit_code == 0 and Path(result.stdout.strip()).is_file()
    assert runner.invoke(app, ["config-path", "nope.yaml"]).exit_code == 2


def test_sft_command_trains_and_prints_json(tmp_path: Path, dataset_dir: Path, tiny_model: Path) -> None:
    result = runner.invoke(app, [
        "sft", "--config", "packaged:tiny_sft_cpu.yaml", "--json",
        "--set", f"model.name_or_path={tiny_model}", "--set", f"dataset.path={dataset_dir}",
        "--set", f"run.output_dir={tmp_path / 'run'}", "--set", "run.max_steps=2", "--set", "run.save_steps=1",
    ])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert Path(summary["adapter"], "adapter_config.json").is_file()
    again = runner.invoke(app, ["sft", "--config", "packaged:tiny_sft_cpu.yaml", "--resume", str(tmp_path / "nope"),
                                "--set", f"run.output_dir={tmp_path / 'run'}"])
    assert again.exit_code == 2 and "no such checkpoint folder" in again.output

"""`vrpcoder synth run|stats`: registered with the shared CLI, helpful errors, JSON-only output,
and a run killed mid-way (SIGKILL) that is started again finishes with the same bytes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner
from vrpcoder.cli import _register_service_commands, app

runner = CliRunner()

SMALL = """
paths = ["scenario", "index"]
[grid]
variants = ["TSP", "CVRP"]
profiles = [1]
seeds = [0]
customers = 4
"""


@pytest.fixture(scope="module", autouse=True)
def _service_commands() -> None:
    _register_service_commands()


@pytest.mark.parametrize("command", [[], ["run"], ["stats"], ["statement"]], ids=["group", "run", "stats", "statement"])
def test_every_synth_command_has_help(command: list[str]) -> None:
    result = runner.invoke(app, ["synth", *command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


def test_run_json_then_stats(tmp_path: Path) -> None:
    config = tmp_path / "small.toml"
    config.write_text(SMALL)
    out = tmp_path / "out"
    result = runner.invoke(app, ["synth", "run", "--config", str(config), "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert summary["items"] == summary["computed_now"] > 0
    assert summary["outcomes"]["accepted"] >= 4
    stats = runner.invoke(app, ["synth", "stats", str(out), "--json"])
    assert stats.exit_code == 0
    figures = json.loads(stats.stdout)
    assert figures["configs"]["sft"] == summary["outcomes"]["accepted"] - sum(
        1 for d in map(json.loads, (out / "decisions.jsonl").read_text().splitlines()) if d["mutant"] and d["outcome"] == "accepted"
    )
    assert set(figures["per_variant"]) == {"TSP", "CVRP"}
    # both commands count Stage 1's samples, and the stored files (index paths add a copy) apart
    assert figures["samples"] == summary["samples"] == len({d["sample"] for d in map(json.loads, (out / "decisions.jsonl").read_text().splitlines())})
    assert figures["sample_files"] == summary["sample_files"] == len(list((out / "samples").glob("*.json"))) > figures["samples"]
    table = runner.invoke(app, ["synth", "stats", str(out)])
    assert table.exit_code == 0 and "CVRP" in table.output


def test_bad_input_gets_a_clear_error(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["synth", "run", "--config", str(tmp_path / "nope.toml"), "--out", str(tmp_path)])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    held_out = tmp_path / "held.toml"
    held_out.write_text('[grid]\nvariants = ["OVRPHTW"]\n')
    refused = runner.invoke(app, ["synth", "run", "--config", str(held_out), "--out", str(tmp_path)])
    assert refused.exit_code == 2 and "held-out variants never enter training data" in refused.output
    typo = tmp_path / "typo.toml"
    typo.write_text("[grid]\nprofile = [1]\n")
    assert runner.invoke(app, ["synth", "run", "--config", str(typo), "--out", str(tmp_path)]).exit_code == 2
    empty = runner.invoke(app, ["synth", "stats", str(tmp_path / "empty")])
    assert empty.exit_code == 2 and "no synthesis output" in empty.output


def test_statement_of_a_sample_and_of_an_instance(tmp_path: Path) -> None:
    sample_dir = tmp_path / "samples"
    built = runner.invoke(app, ["samples", "build", "-v", "CVRP", "-p", "1", "-s", "0", "-o", str(sample_dir)])
    assert built.exit_code == 0, built.output
    sample_file = sorted(sample_dir.glob("*base*.json"))[0]
    result = runner.invoke(app, ["synth", "statement", str(sample_file), "--path", "index:letters", "--json"])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["problems"] == [] and answer["node_id_map"]["0"] == "A"
    instance_file = tmp_path / "inst.json"
    assert runner.invoke(app, ["instance", "sample", "--variant", "VRPB", "--profile", "2", "--seed", "0", "-o", str(instance_file)]).exit_code == 0
    text = runner.invoke(app, ["synth", "statement", str(instance_file), "--path", "strict"])
    assert text.exit_code == 0 and "fidelity: ok" in text.output and "backhaul" in text.output
    bad = runner.invoke(app, ["synth", "statement", str(instance_file), "--path", "sideways"])
    assert bad.exit_code == 2 and "unknown path" in bad.output
    junk = tmp_path / "junk.json"
    junk.write_text('{"x": 1}')
    assert runner.invoke(app, ["synth", "statement", str(junk)]).exit_code == 2


def _dataset_bytes(out: Path) -> dict[str, bytes]:
    files = [p for p in out.rglob("*") if p.is_file() and ".work" not in p.parts]
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(files)}


@pytest.mark.slow
def test_a_killed_run_restarts_to_the_same_bytes(tmp_path: Path) -> None:
    config = tmp_path / "kill.toml"
    config.write_text(SMALL.replace('["TSP", "CVRP"]', '["TSP", "CVRP", "VRPB", "PDP", "MDVRP", "VRPHTW"]'))
    command = [str(Path(sys.executable).with_name("vrpcoder")), "synth", "run", "--config", str(config), "--json"]
    whole = subprocess.run([*command, "--out", str(tmp_path / "whole")], capture_output=True, text=True, check=True)
    total = json.loads(whole.stdout.strip().splitlines()[-1])["items"]
    killed_out = tmp_path / "killed"
    process = subprocess.Popen([*command, "--out", str(killed_out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    items = killed_out / ".work" / "items"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and (not items.exists() or len(list(items.glob("*.json"))) < total // 2):
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    done_before = len(list(items.glob("*.json")))
    assert 0 < done_before < total
    resumed = subprocess.run([*command, "--out", str(killed_out)], capture_output=True, text=True, check=True)
    summary = json.loads(resumed.stdout.strip().splitlines()[-1])
    assert summary["computed_now"] == total - done_before
    assert _dataset_bytes(killed_out) == _dataset_bytes(tmp_path / "whole")

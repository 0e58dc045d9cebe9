"""The `vrpcoder` command line, driven as a user would: a real subprocess per call."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vrpcoder.instances import Instance

CLI = [sys.executable, "-c", "from vrpcoder.cli import main; main()"]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_help_lists_every_command_group() -> None:
    out = run("--help")
    assert out.returncode == 0
    for command in ("variants", "instance", "gold", "check", "demo"):
        assert command in out.stdout


@pytest.mark.parametrize("sub", [["instance", "sample"], ["instance", "import"], ["gold", "render"], ["gold", "solve"]])
def test_every_subcommand_has_help(sub: list[str]) -> None:
    out = run(*sub, "--help")
    assert out.returncode == 0
    assert "Usage" in out.stdout


def test_variants_json_lists_the_registry() -> None:
    out = run("variants", "--json")
    assert out.returncode == 0
    rows = json.loads(out.stdout)
    assert len(rows) == 21
    by_name = {r["name"]: r for r in rows}
    assert by_name["HFVRPHTW"]["modules"] == ["HF", "HTW"]
    assert by_name["DCVRPHTW"]["train"] is False
    assert "hf_overload" in by_name["HFVRP"]["attackers"]
    assert {"name", "modules", "train", "attackers"} <= set(rows[0])


def test_sample_is_deterministic_and_writes_a_valid_instance(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert run("instance", "sample", "--variant", "CVRP", "--profile", "5", "--seed", "3", "-o", str(first)).returncode == 0
    assert run("instance", "sample", "-v", "CVRP", "-p", "5", "-s", "3", "-o", str(second)).returncode == 0
    assert first.read_bytes() == second.read_bytes()
    inst = Instance.model_validate_json(first.read_text())
    assert inst.variant == "CVRP" and len(inst.customers) == 8


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["instance", "sample", "-v", "NOPE", "-p", "1", "-s", "0"], "unknown variant"),
        (["instance", "sample", "-v", "TSP", "-p", "14", "-s", "0"], "profile"),
        (["instance", "sample", "-v", "CVRP", "-p", "99", "-s", "0"], "profile"),
        (["gold", "solve", "/nonexistent.json"], "no such file"),
        (["instance", "import", "/nonexistent.vrp"], "no such file"),
    ],
)
def test_bad_input_is_a_one_line_error(args: list[str], message: str) -> None:
    out = run(*args)
    assert out.returncode == 2
    assert message in out.stderr.lower()
    assert "Traceback" not in out.stderr


def test_malformed_instance_file_names_the_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"name": "x", "variant": "CVRP", "depots": [], "customers": [], "vehicles": []}))
    out = run("gold", "solve", str(bad))
    assert out.returncode == 2
    assert "not a valid Instance" in out.stderr and "depots" in out.stderr

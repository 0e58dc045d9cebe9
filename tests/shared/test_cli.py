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


# ---- JSON alone on stdout, exit statuses, what a new user meets (issue 14.7-14.9, 19) ------------

from vrpcoder.cli import EXIT_NO_ANSWER, EXIT_REJECTED, expand_list_options  # noqa: E402

CANDIDATE_DATA = Path(__file__).resolve().parents[1] / "data" / "candidates"
_TOO_LARGE = """\
import gurobipy as gp
from gurobipy import GRB


def build_model():
    m = gp.Model()
    m.Params.OutputFlag = 0
    x = m.addVars(2500, vtype=GRB.BINARY, name="x")
    m.setObjective(x.sum())
    m.optimize()
    return m
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An instance, its gold solve as JSON, and the samples of its grid point."""
    root = tmp_path_factory.mktemp("cli")
    assert run("instance", "sample", "-v", "CVRP", "-p", "1", "-s", "0", "-o", str(root / "inst.json")).returncode == 0
    built = run("samples", "build", "-v", "CVRP", "-p", "1", "-s", "0", "-o", str(root / "samples"))
    assert built.returncode == 0, built.stderr
    return root


def _json_alone(out: subprocess.CompletedProcess[str]) -> object:
    """The command's stdout parsed as one JSON document: nothing else may be printed there."""
    return json.loads(out.stdout)


def test_every_json_command_prints_json_alone(workdir: Path) -> None:
    """Gurobi prints its licence banner on stdout when its first environment starts; every --json
    command (and `instance sample` without -o) must still print one JSON document and nothing else."""
    base = workdir / "samples" / "CVRP-p1-s0-base.json"
    samples = sorted(str(p) for p in (workdir / "samples").glob("CVRP-p1-s0-*.json"))
    gold_code = json.loads(base.read_text())["gold_code"]
    (workdir / "gold.py").write_text(gold_code)
    solved = run("gold", "solve", str(workdir / "inst.json"), "--json")
    assert solved.returncode == 0, solved.stderr
    (workdir / "solved.json").write_text(solved.stdout)
    outputs = {
        "variants": run("variants", "--json"),
        "instance sample": run("instance", "sample", "-v", "VRPHTW", "-p", "1", "-s", "0"),
        "gold solve": solved,
        "check": run("check", str(workdir / "inst.json"), str(workdir / "solved.json"), "--json"),
        "verify": run("verify", "--no-sandbox", str(workdir / "gold.py"), str(base), "--json"),
        "mutants": run("mutants", *samples, "--json"),
        "demo": run("demo", "--json"),
    }
    for name, out in outputs.items():
        assert out.returncode == 0, (name, out.stderr[-2000:])
        document = _json_alone(out)
        assert document, name
    assert "Restricted license" not in "".join(out.stdout for out in outputs.values())
    verdict = _json_alone(outputs["verify"])
    assert isinstance(verdict, dict) and verdict["passed"] is True and verdict["failed_checks"] == []
    assert verdict["optimum"]["passed"] is True and verdict["diff_check"]["tolerance"] == 1e-3


def test_check_accepts_the_output_of_gold_solve(workdir: Path) -> None:
    solved = run("gold", "solve", str(workdir / "inst.json"), "--json")
    (workdir / "solved.json").write_text(solved.stdout)
    out = run("check", str(workdir / "inst.json"), str(workdir / "solved.json"), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["feasible"] is True
    assert report["cost"] == pytest.approx(json.loads(solved.stdout)["objective"])


def test_exit_status_tells_a_rejected_candidate_from_no_answer(workdir: Path) -> None:
    base = str(workdir / "samples" / "CVRP-p1-s0-base.json")
    rejected = run("verify", "--no-sandbox", str(CANDIDATE_DATA / "cvrp_no_capacity.py"), base)
    assert rejected.returncode == EXIT_REJECTED, rejected.stderr
    assert "failed checks:" in rejected.stdout
    (workdir / "too_large.py").write_text(_TOO_LARGE)
    no_answer = run("verify", "--no-sandbox", str(workdir / "too_large.py"), base, "--json")
    assert no_answer.returncode == EXIT_NO_ANSWER, no_answer.stderr
    verdict = json.loads(no_answer.stdout)
    assert verdict["reward"] is None and verdict["error"]["kind"] == "size_limited_licence"
    assert no_answer.stderr.index("fewer vehicles") < no_answer.stderr.index("fewer customers")


def test_an_infeasible_plan_exits_rejected(workdir: Path) -> None:
    plan = workdir / "one_route.json"
    plan.write_text(json.dumps({"routes": [{"vehicle": 0, "depot": 0, "visits": [1]}]}))
    out = run("check", str(workdir / "inst.json"), str(plan))
    assert out.returncode == EXIT_REJECTED
    assert "coverage" in out.stdout


def test_grid_takes_several_values_after_one_flag(tmp_path: Path) -> None:
    out = run("samples", "grid", "-o", str(tmp_path), "--variants", "CVRP", "TSP", "--profiles", "1", "--seeds", "0")
    assert out.returncode == 0, out.stderr
    assert {p.name.split("-")[0] for p in tmp_path.glob("*.json")} == {"CVRP", "TSP"}


def test_list_options_are_expanded_one_value_per_flag() -> None:
    assert expand_list_options(["samples", "grid", "--variants", "CVRP", "TSP,VRPB", "-o", "out"]) == [
        "samples", "grid", "--variants", "CVRP", "--variants", "TSP", "--variants", "VRPB", "-o", "out",
    ]
    assert expand_list_options(["--seeds=1,2", "--profiles", "3"]) == ["--seeds", "1", "--seeds", "2", "--profiles", "3"]
    assert expand_list_options(["verify", "a.py", "b.json"]) == ["verify", "a.py", "b.json"]


def test_an_unknown_file_layout_names_the_supported_ones(tmp_path: Path) -> None:
    junk = tmp_path / "notes.txt"
    junk.write_text("hello world\nthis is not an instance\n")
    out = run("instance", "import", str(junk))
    assert out.returncode == 2
    assert "supported layouts" in out.stderr and "Solomon" in out.stderr


def test_validation_messages_carry_no_library_prefix(tmp_path: Path) -> None:
    bad = tmp_path / "two_depots.json"
    bad.write_text(
        json.dumps(
            {
                "name": "x", "variant": "CVRP",
                "depots": [{"x": 0, "y": 0}, {"x": 1, "y": 1}],
                "customers": [{"x": 2, "y": 2, "demand": 1}],
                "vehicles": [{"capacity": 5}],
            }
        )
    )
    out = run("gold", "solve", str(bad))
    assert out.returncode == 2
    assert "exactly one depot" in out.stderr and "Value error" not in out.stderr


def test_verify_names_the_route_the_candidates_own_plan_breaks(tmp_path: Path) -> None:
    from tests.shared.test_independent_candidates import render
    from tests.shared.test_optimum import REVERSED_CLOCK, _base_sample, _line_instance

    sample = _base_sample(_line_instance())
    (tmp_path / "sample.json").write_text(sample.model_dump_json())
    (tmp_path / "candidate.py").write_text(render(REVERSED_CLOCK, sample.instance))
    out = run("verify", "--no-sandbox", str(tmp_path / "candidate.py"), str(tmp_path / "sample.json"))
    assert out.returncode == EXIT_REJECTED, out.stderr
    text = " ".join(out.stdout.split())
    assert "FAIL optimum check" in text and "0 -> 3 -> 2 -> 1 -> 0" in text
    assert "failed checks: optimum:time_window" in text

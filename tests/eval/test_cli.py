"""`vrpcoder eval ...` as a user runs it: the installed console script, real processes and sockets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from vrpcoder_verifier.stack import LocalStack

from tests.eval.support import LIBRARY
from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkName
from vrpcoder_eval.scripted import ScriptedServer, fenced, table_policy

VRPCODER = str(Path(sys.executable).with_name("vrpcoder"))


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([VRPCODER, "eval", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


@pytest.mark.parametrize("command", [[], ["build"], ["check"], ["run"], ["score"], ["report"], ["audit"]])
def test_every_command_has_help(command: list[str]) -> None:
    done = cli(*command, "--help")
    assert done.returncode == 0, done.stderr
    assert "Usage" in done.stdout


def test_build_check_and_bad_input(tmp_path: Path) -> None:
    nlco = tmp_path / "nlco.jsonl"
    nlco.write_text(
        json.dumps({"id": "t1", "problem_type": "TSP", "prompt": "Visit each of the cities once; shortest route.", "answer": 10}) + "\n"
        + "{oops\n"
    )
    out = tmp_path / "bench"
    done = cli("build", str(out), "--benchmarks", "3,4", "--library-dir", str(LIBRARY), "--b3-sizes", "5",
               "--b3-limit", "2", "--nlco", str(nlco), "--json")
    assert done.returncode == 1, "a malformed external line must fail the build visibly"
    summary = json.loads(done.stdout)
    assert summary["benchmarks"]["b3"]["items"] == 2 and summary["benchmarks"]["b4"]["items"] == 1
    assert summary["benchmarks"]["b4"]["malformed"] == [f"{nlco}:2: invalid JSON: Expecting property name enclosed in double quotes at column 2"]
    assert (out / "manifest.json").is_file()

    good = cli("check", str(out / "b3.jsonl"), "--json")
    assert good.returncode == 0 and json.loads(good.stdout)[str(out / "b3.jsonl")]["items"] == 2
    broken = out / "b3.jsonl"
    broken.write_text(broken.read_text() + '{"id": 1}\n')
    bad = cli("check", str(broken))
    assert bad.returncode == 1 and f"{broken}:3:" in bad.stdout

    assert cli("build", str(out), "--benchmarks", "7").returncode == 2
    assert cli("build", str(out), "--benchmarks", "4").returncode == 2
    assert cli("build", str(out), "--benchmarks", "1", "--variants", "OVRPHTW").returncode == 2, "B1 has no held-out variant"
    no_bench = cli("run", "--model", "http://127.0.0.1:9/v1", "--out", str(tmp_path / "r"), "--bench-dir", str(tmp_path / "none"),
                   "--benchmarks", "3")
    assert no_bench.returncode == 2 and "no such benchmark folder" in no_bench.stderr


def test_build_restricts_variants_and_lists_dropped_records(tmp_path: Path) -> None:
    qa = tmp_path / "mamo.jsonl"
    qa.write_text("\n".join(json.dumps(r) for r in [
        {"id": 9, "Question": "Visit each one exactly once; shortest total distance.", "Answer": 5, "Type": "complex_lp"},
        {"id": 10, "Question": "Maximise the profit of cakes.", "Answer": 3, "Type": "complex_lp"},
    ]) + "\n")
    out = tmp_path / "bench"
    done = cli("build", str(out), "--benchmarks", "1,2,4", "--b1-size", "2", "--b2-size", "1", "--variants", "TSP", "OVRPHTW",
               "--qa", str(qa), "--time-limit", "20", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["benchmarks"]["b1"]["by_variant"] == {"TSP": 2}
    assert summary["benchmarks"]["b2"]["by_variant"] == {"OVRPHTW": 1}
    b4 = summary["benchmarks"]["b4"]
    assert b4["items"] == 1 and b4["not_routing"] == 1
    assert b4["dropped"] == [{"file": "mamo.jsonl", "line": 2, "id": "10", "type": "complex_lp", "reason": b4["dropped"][0]["reason"]}]
    assert b4["dropped"][0]["reason"].startswith("not routing: type 'complex_lp' names no routing problem")
    assert json.loads((out / "manifest.json").read_text()) == summary


def test_run_and_report_end_to_end(stack: LocalStack, bench: BenchmarkDir, tmp_path: Path) -> None:
    items = bench.items(BenchmarkName.B3)
    gold = {i.statement: fenced(bench.load_sample(i.sample_id or "").gold_code) for i in items}
    broken = dict(gold)
    broken[items[0].statement] = fenced("def build_model(:\n")
    env = {"VRPCODER_VERIFIER_URL": stack.base_url, "VRPCODER_VERIFIER_TOKEN": stack.token}
    runs = {}
    for name, answers in (("gold", gold), ("broken", broken)):
        with ScriptedServer(table_policy(answers)) as llm:
            done = cli("run", "--model", llm.base_url, "--out", str(tmp_path / name), "--bench-dir", str(bench.root),
                       "--benchmarks", "3", "--time-limit", "20", "--label", name, "--json", env=env)
        assert done.returncode == 0, done.stderr
        runs[name] = json.loads(done.stdout)
    assert runs["gold"]["metrics"]["overall"]["pass_at_1"]["rate"] == 1.0
    assert runs["broken"]["metrics"]["error_kinds"] == {"syntax_error": 1}

    report = cli("report", str(tmp_path / "broken"), "--compare", str(tmp_path / "gold"), "--json")
    assert report.returncode == 0, report.stderr
    payload = json.loads(report.stdout)
    assert [f["item_id"] for f in payload["comparison"]["lost"]] == [items[0].id]
    html = Path(payload["reports"]["html"]).read_text()
    assert html.count("data:image/png;base64,") == 3
    missing = cli("report", str(tmp_path / "nothing-here"))
    assert missing.returncode == 2 and "not a run folder" in missing.stderr


def test_audit_flags_a_wrong_published_answer(tmp_path: Path) -> None:
    from vrpcoder.gold import solve_gold
    from vrpcoder.importers import import_instance

    instance = import_instance(LIBRARY / "tsplib" / "gr21.tsp", customers=6)
    optimum = solve_gold(instance, time_limit=30).objective
    assert optimum is not None
    nlco = tmp_path / "nlco.jsonl"
    nlco.write_text("\n".join(json.dumps({"id": name, "problem_type": "TSP", "prompt": f"Visit each of the cities once ({name}).",
                                          "answer": value}) for name, value in (("ok", optimum), ("bad", optimum - 11))) + "\n")
    bench = tmp_path / "bench"
    assert cli("build", str(bench), "--benchmarks", "4", "--nlco", str(nlco)).returncode == 0
    transcribed = tmp_path / "instances"
    transcribed.mkdir()
    for name in ("ok", "bad"):
        (transcribed / f"b4-nlco-{name}.json").write_text(instance.model_dump_json())
    done = cli("audit", str(bench), "--out", str(tmp_path / "audit.json"), "--instances", str(transcribed), "--json")
    assert done.returncode == 0, done.stderr
    findings = {f["item_id"]: f for f in json.loads(done.stdout)["findings"]}
    assert not findings["b4-nlco-ok"]["flagged"]
    assert findings["b4-nlco-bad"]["flagged"] and findings["b4-nlco-bad"]["audited"] == pytest.approx(optimum)
    assert json.loads((tmp_path / "audit.json").read_text()) == json.loads(done.stdout)
    assert cli("audit", str(bench), "--out", str(tmp_path / "a.json")).returncode == 2, "an audit needs an auditor"

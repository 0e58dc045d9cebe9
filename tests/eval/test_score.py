"""`vrpcoder eval score` against `vrpcoder eval run`, as a user runs them: the installed console script,
a scripted OpenAI-compatible endpoint on a real socket, and real verifier stacks (the ones `run` and
`score` start for themselves when no service is named, and the session's).

One mixed policy (gold scripts, single-family omission mutants, a syntax error, an answer without
code) is asked by `eval run`; the same completions as a JSONL file, and their code blocks as a
folder of scripts, must score to the same numbers item by item. The HTML report of that run, rendered
by headless Chromium, must show every family any check caught.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from vrpcoder.mutants import MutantKind, mutation_rules
from vrpcoder_client.reward import extract_code
from vrpcoder_verifier.stack import LocalStack

from tests.eval.test_cli import cli
from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkName
from vrpcoder_eval.scripted import ScriptedServer, fenced, table_policy

COMPARED = ("item_id", "benchmark", "variant", "status", "outcome", "build", "diff", "inj", "pass_at_1", "dual_pass",
            "objective", "solver_status", "error_kind", "failed_checks", "probes", "code")
"""Every field of a result that scoring decides (not how the answer was produced: finish reason, tokens)."""


def mixed_answers(bench: BenchmarkDir) -> dict[str, str]:
    """item id -> completion: on even items a mutant that omits one of the variant's last two families
    (capacity, windows, backhaul order, pairing, ...: the rules INJ is for), gold on odd ones, one syntax
    error, one answer without code."""
    items = [*bench.items(BenchmarkName.B1), *bench.items(BenchmarkName.B3)]
    answers: dict[str, str] = {}
    for index, item in enumerate(items):
        sample = bench.load_sample(item.sample_id or "")
        code = sample.gold_code
        if index % 2 == 0:
            mutants = [m for rule in mutation_rules(sample.variant, [MutantKind.OMIT])
                       if (m := rule.apply(sample.gold_code, sample)) is not None]
            code = mutants[-1 - (index // 2) % 2] if mutants else code
        answers[item.id] = fenced(code)
    answers[items[1].id] = fenced("import gurobipy as gp\n\ndef build_model(:\n    return None\n")
    answers[items[3].id] = "I would model this with a MIP."
    return answers


def chromium() -> str:
    """Debian's chromium (installed by `make install` and .ci/run); CI must have it, a developer may not."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed: the report's rendering cannot be checked (make install installs it)")
        pytest.skip("chromium is not installed (apt-get install chromium, or make install)")
    return found


def render(page: Path, out: Path) -> str:
    """The DOM headless Chromium builds from the page (and a screenshot of it beside ``out``)."""
    browser = chromium()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--user-data-dir={out / 'profile'}"]
    shot = subprocess.run([browser, *flags, f"--screenshot={out / 'report.png'}", "--window-size=1200,6000", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert shot.returncode == 0 and (out / "report.png").stat().st_size > 20_000, shot.stderr[-2000:]
    dom = subprocess.run([browser, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    return dom.stdout


def _results(run_dir: Path) -> dict[str, dict[str, object]]:
    rows = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines() if line.strip()]
    return {r["item_id"]: {k: r[k] for k in COMPARED} for r in rows}


def test_scored_answers_match_the_run_and_the_report_shows_every_caught_family(
    stack: LocalStack, bench: BenchmarkDir, tmp_path: Path
) -> None:
    answers = mixed_answers(bench)
    statements = {i.id: i.statement for n in (BenchmarkName.B1, BenchmarkName.B3) for i in bench.items(n)}
    common = ["--bench-dir", str(bench.root), "--benchmarks", "1,3", "--time-limit", "20", "--workers", "1", "--json"]
    no_service = {"VRPCODER_VERIFIER_URL": ""}

    with ScriptedServer(table_policy({statements[i]: text for i, text in answers.items()})) as llm:
        ran = cli("run", "--model", llm.base_url, "--out", str(tmp_path / "run"), "--label", "mixed", *common, env=no_service)
    assert ran.returncode == 0, ran.stderr[-3000:]
    assert "private Redis" in ran.stderr, "eval run without a service must start its own stack"

    completions = tmp_path / "completions.jsonl"
    completions.write_text("".join(json.dumps({"prompt": statements[i], "completion": text}) + "\n" for i, text in answers.items()))
    by_jsonl = cli("score", str(completions), "--out", str(tmp_path / "jsonl"), "--label", "mixed", *common, env=no_service)
    assert by_jsonl.returncode == 0, by_jsonl.stderr[-3000:]

    scripts = tmp_path / "scripts"
    scripts.mkdir()
    for item_id, text in answers.items():
        code = extract_code(text)
        if code is not None:
            (scripts / f"{item_id}.py").write_text(code)
    by_scripts = cli("score", str(scripts), "--out", str(tmp_path / "scripts-run"), "--label", "mixed", *common,
                     env={"VRPCODER_VERIFIER_URL": stack.base_url, "VRPCODER_VERIFIER_TOKEN": stack.token})
    assert by_scripts.returncode == 0, by_scripts.stderr[-3000:]

    outputs = {name: json.loads(done.stdout) for name, done in (("run", ran), ("jsonl", by_jsonl), ("scripts", by_scripts))}
    assert outputs["scripts"]["unanswered"] == [next(i for i, t in answers.items() if extract_code(t) is None)]
    assert outputs["run"]["metrics"] == outputs["jsonl"]["metrics"] == outputs["scripts"]["metrics"]
    expected = _results(tmp_path / "run")
    assert len(expected) == len(answers)
    assert _results(tmp_path / "jsonl") == expected
    assert _results(tmp_path / "scripts-run") == expected
    for name in ("metrics.json", "report.md", "report.html"):
        assert (tmp_path / "jsonl" / name).is_file() and (tmp_path / "scripts-run" / name).is_file()

    metrics = outputs["run"]["metrics"]
    outcomes = {r["outcome"] for r in expected.values()}
    assert {"pass", "syntax_error", "no_code"} <= outcomes and outcomes & {"inj_failed", "wrong_objective", "optimum_failed"}
    caught = {row["family"] for row in metrics["caught"]}
    assert any(c.startswith("inj:") for r in expected.values() for c in r["failed_checks"]), "no INJ catch: a weak policy"
    assert caught, "the mutants must be caught by some check, or the report check proves nothing"
    assert caught == {f for r in expected.values() for f in _families(r["failed_checks"])}

    again = cli("score", str(completions), "--out", str(tmp_path / "jsonl"), "--label", "mixed", *common,
                env={"VRPCODER_VERIFIER_URL": stack.base_url, "VRPCODER_VERIFIER_TOKEN": stack.token})
    assert again.returncode == 0 and "private Redis" not in again.stderr
    assert (tmp_path / "jsonl" / "results.jsonl").read_text().count("\n") == len(answers), "a finished score resumes with nothing to do"

    dom = render(tmp_path / "run" / "report.html", tmp_path)
    for family in caught:
        assert family in dom, f"{family} is caught but the rendered report does not show it"
    assert "Failed checks per item" in dom and "A blank cell" in dom


def _families(checks: list[str]) -> set[str]:
    return {("feasible_probe" if c.partition(":")[2] == "feasible" else c.partition(":")[2]) for c in checks if ":" in c}


def test_score_reports_what_it_cannot_match(bench: BenchmarkDir, tmp_path: Path) -> None:
    """Lines that name no item, answer one twice or hold no answer are listed by line; nothing matched at all is bad input."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "nope", "completion": "x"}) + "\n" + json.dumps({"prompt": "no such statement", "text": "y"}) + "\n")
    done = cli("score", str(bad), "--bench-dir", str(bench.root), "--benchmarks", "3", "--out", str(tmp_path / "r"))
    assert done.returncode == 2
    assert "bad.jsonl:1: id 'nope' names no item" in done.stderr and "bad.jsonl:2: the prompt matches no item's statement" in done.stderr
    assert cli("score", str(tmp_path / "missing.jsonl"), "--bench-dir", str(bench.root)).returncode == 2
    assert cli("score", str(bad), "--bench-dir", str(bench.root), "--missing", "maybe").returncode == 2

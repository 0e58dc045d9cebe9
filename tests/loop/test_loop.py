"""`vrpcoder loop` end to end with minimal sizes: the real synthesis, tiny model, SFT, GRPO against the
real private stack it starts itself, the benchmark and the evaluation; then the artefacts and the
summary's figures are checked against each other, the stack is checked to be gone, and a second run
is checked to skip every stage. About 20 s on the 2-core VM, so it runs in `make test`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from transformers import AutoTokenizer
from vrpcoder_loop.loop import STAGES, LoopError, LoopSettings, StageRecord, run_loop

VRPCODER = str(Path(sys.executable).with_name("vrpcoder"))

MINIMAL = LoopSettings(
    variants=("CVRP",), profiles=(1,), seeds=(0,), customers=4, paths=("scenario", "condensed"), mutants=False,
    copy_drill_steps=2, sft_steps=3, grpo_steps=2, num_generations=2, max_new_tokens=32, bench_size=2, evaluate=("base", "grpo"),
    workers=1, time_limit=10.0, model_size="smoke",
)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _live_children() -> list[int]:
    """Our child processes that are still running (zombies excluded): the stack's parts, if left behind."""
    me = os.getpid()
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, ppid = fields[0], int(fields[1])
        if ppid == me and state != "Z":
            alive.append(int(entry.name))
    return alive


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("loop") / "run"
    before = set(_live_children())
    summary = run_loop(MINIMAL, out, console=Console(stderr=True), quiet=True)
    assert set(_live_children()) <= before, "the loop left processes running"
    return out, summary


def test_every_artefact_and_figure_agrees(finished: tuple[Path, dict[str, Any]]) -> None:
    out, summary = finished
    assert json.loads((out / "summary.json").read_text()) == summary
    assert "| sft | loss first -> last (3 steps)" in (out / "summary.md").read_text()
    for name, path in summary["artefacts"].items():
        assert Path(path).exists(), f"{name}: {path} missing"

    # dataset counts are the files' line counts; the GRPO prompts' samples are stored
    synth = out / "synth"
    records = summary["dataset"]["records"]
    sft_rows, grpo_rows = _lines(synth / "sft" / "train.jsonl"), _lines(synth / "grpo" / "train.jsonl")
    assert records["sft"] == len(sft_rows) > 0 and records["grpo"] == len(grpo_rows) > 0
    assert summary["dataset"]["decisions"] == len(_lines(synth / "decisions.jsonl"))
    assert all((synth / "samples" / f"{row['sample_id']}.json").is_file() for row in grpo_rows)

    # the training set: the accepted records plus the drawn DIFF-blind mutants, and the model's own tokenizer
    mixed = summary["model"]["training_set"]
    train_rows = _lines(out / "train-data" / "sft" / "train.jsonl")
    assert mixed["accepted"] == records["sft"] and len(train_rows) == mixed["accepted"] + mixed["reserved"]
    assert summary["model"]["parameters"] > 0
    # the longest reply in the model's own tokens (MINIMAL's 32-token answers are cut: the loop warns of it)
    tokenizer = AutoTokenizer.from_pretrained(out / "tiny-model")
    longest = max(len(tokenizer(r["messages"][-1]["content"])["input_ids"]) for r in train_rows)
    assert summary["model"]["longest_reply_tokens"] == longest > MINIMAL.max_new_tokens

    # the copy drill: one row per SFT record (each compact reply copies the statement's lines), trained first
    drill = summary["drill"]
    assert drill["steps"] == MINIMAL.copy_drill_steps and drill["rows"] == len(train_rows)
    assert (out / "drill" / "adapter" / "config.json").is_file()
    assert "| drill | copy loss first -> last (2 steps" in (out / "summary.md").read_text()

    # SFT: one logged loss per step, first and last taken from them, the trained model saved
    sft = summary["sft"]
    assert len(sft["losses"]) == MINIMAL.sft_steps
    assert (sft["loss_first"], sft["loss_last"]) == (sft["losses"][0], sft["losses"][-1])
    assert (out / "sft" / "adapter" / "config.json").is_file(), "every weight trained: the folder holds a whole model"

    # GRPO: one mean reward per step, every completion counted, rewards in [0, 1]
    grpo = summary["grpo"]
    assert len(grpo["rewards"]) == MINIMAL.grpo_steps
    assert grpo["completions"] == MINIMAL.grpo_steps * MINIMAL.num_generations
    assert 0 <= grpo["none"] <= grpo["completions"] and 0 <= grpo["no_code"] <= grpo["completions"]
    assert all(0.0 <= r <= 1.0 for r in grpo["rewards"])
    assert grpo["none"] == 0, "the loop's own healthy stack must score every completion (None is an outage, not a score)"
    saved = json.loads((out / "grpo" / "reward_summary.json").read_text())
    assert saved["client_stats"]["scored"] == grpo["completions"] - grpo["no_code"], "every completion with code was scored"
    assert saved["reward_totals"]["completions"] == grpo["completions"] and saved["reward_totals"]["none"] == grpo["none"]
    for name in ("sft", "grpo"):
        assert (out / "checkpoints" / name / "config.json").is_file()

    # benchmark: B1 items from seeds the synthesis never used
    items = _lines(out / "bench" / "b1.jsonl")
    assert len(items) == summary["benchmark"]["items"] == MINIMAL.bench_size
    assert all(item["provenance"]["seed"] >= MINIMAL.bench_seed_start > max(MINIMAL.seeds) for item in items)
    assert {item["variant"] for item in items} <= set(MINIMAL.variants)
    # ... of the variants, profiles and size the model was trained on
    for item in items:
        sample = json.loads((out / "bench" / "samples" / f"{item['sample_id']}.json").read_text())
        assert len(sample["instance"]["customers"]) == MINIMAL.customers and item["provenance"]["profile"] in MINIMAL.profiles

    # evaluation: each report covers the whole benchmark, and the summary's rates are the report's
    assert set(summary["eval"]) == set(MINIMAL.evaluate)
    for name, figures in summary["eval"].items():
        run_dir = out / "eval" / name
        metrics = json.loads((run_dir / "metrics.json").read_text())["metrics"]
        assert metrics["overall"]["items"] == figures["items"] == len(items)
        assert figures["scored"] + figures["unscored"] == len(items)
        assert len({r["item_id"] for r in _lines(run_dir / "results.jsonl")}) == len(items)
        for key in ("pass_at_1", "build", "dual_pass", "inj"):
            assert metrics["overall"][key]["rate"] == figures[key]
        assert (run_dir / "report.md").read_text().strip() and "<html" in (run_dir / "report.html").read_text()
        assert figures["pass_at_1"] is None or 0.0 <= figures["pass_at_1"] <= 1.0


def test_a_second_run_skips_every_stage_and_other_settings_are_refused(finished: tuple[Path, dict[str, Any]]) -> None:
    out, summary = finished
    seen: list[tuple[str, bool]] = []
    before = set(_live_children())
    again = run_loop(MINIMAL, out, console=Console(stderr=True), quiet=True,
                     on_stage=lambda stage, record, skipped: seen.append((stage, skipped)))
    assert seen == [(stage, True) for stage in STAGES]
    assert again == summary
    assert set(_live_children()) <= before
    assert StageRecord.model_validate_json((out / ".loop" / "eval.json").read_text()).figures["grpo"]["items"] == MINIMAL.bench_size
    with pytest.raises(LoopError, match="sft_steps"):
        run_loop(MINIMAL.model_copy(update={"sft_steps": 4}), out, console=Console(stderr=True), quiet=True)


def test_help_and_bad_options() -> None:
    done = subprocess.run([VRPCODER, "loop", "--help"], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Usage" in done.stdout and "--out" in done.stdout and "--grpo-steps" in done.stdout
    for bad in (["--variants", "OVRPHTW"], ["--evaluate", "best"], ["--paths", "poetry"], ["--seeds", "1000000"]):
        done = subprocess.run([VRPCODER, "loop", *bad, "--out", "/nonexistent/never-made"], capture_output=True, text=True,
                              timeout=120, check=False)
        assert done.returncode == 2, (bad, done.stdout, done.stderr)
        assert "error" in done.stderr
    assert not Path("/nonexistent/never-made").exists()


def test_settings_validation() -> None:
    assert LoopSettings(variants=("cvrp",)).variants == ("CVRP",)
    assert LoopSettings(evaluate=("grpo", "base")).evaluate == ("base", "grpo")
    with pytest.raises(ValueError, match="held-out"):
        LoopSettings(variants=("MCVRPSTW",))

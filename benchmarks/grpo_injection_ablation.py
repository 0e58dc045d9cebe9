"""The paper's injection ablation in miniature, on the CPU, against the real verifier service.

1. Pick instances where a constraint-dropping mutant of the gold script keeps the optimum (DIFF
   cannot see it) but fails an injection probe (the mutation harness finds them by verifying each
   omit/relax mutant in-process).
2. Build a tiny model locally and SFT it (LoRA) on prompts whose targets are the gold script and
   such a DIFF-blind mutant in equal parts, so the SFT policy writes both.
3. GRPO twice from that checkpoint, same seed and steps: with the full reward (build, DIFF, INJ)
   and with the no-injection reward (INJ weight 0). Print per step the mean reward and the share
   of rollouts that pass the dual verifier; save a plot and the numbers.
4. A third, short GRPO run during which the verifier service is stopped for some steps and then
   started again: those groups get None, training goes on, the count is reported.

Runs a real local stack (Redis, the API under uvicorn, two sandboxed workers).

    .venv/bin/python benchmarks/grpo_injection_ablation.py [--steps 12] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vrpcoder.mutants import MutantKind, mutation_rules
from vrpcoder.samples import Sample, build_grid_point
from vrpcoder.verification import verify
from vrpcoder_client.client import VerifierClient
from vrpcoder_client.prompts import code_system_prompt
from vrpcoder_trainer.config import load_config
from vrpcoder_trainer.dataset import DatasetEntry, fenced, write_dataset
from vrpcoder_trainer.grpo import run_grpo
from vrpcoder_trainer.sft import run_sft
from vrpcoder_trainer.tiny import TinyModelSpec, build_tiny_model
from vrpcoder_verifier.stack import LocalStack, local_redis, purge, stack_settings

GRID_POINTS = (("MDVRP", 1, 1), ("OVRP", 2, 1), ("MDVRP", 1, 0))
"""Grid points where the harness found DIFF-blind omissions (benchmarks/mutation_report.py)."""


@dataclass(frozen=True)
class BlindPair:
    sample: Sample
    mutant_name: str
    mutant_code: str
    mutant_reward_full: float
    mutant_reward_no_inj: float


def find_blind_pairs(limit: int) -> list[BlindPair]:
    """Samples with an omit/relax mutant that passes DIFF and fails the dual verifier."""
    pairs: list[BlindPair] = []
    for variant, profile, seed in GRID_POINTS:
        for sample in build_grid_point(variant, profile, seed, time_limit=10).samples:
            for rule in mutation_rules(variant, [MutantKind.OMIT, MutantKind.RELAX]):
                code = rule.apply(sample.gold_code, sample)
                if code is None:
                    continue
                verdict = verify(code, sample)
                if verdict.build and verdict.diff and not verdict.passed:
                    no_inj = 0.2 * verdict.build + 0.5 * verdict.diff
                    pairs.append(BlindPair(sample, rule.name, code, verdict.reward or 0.0, no_inj))
                    break
            if len(pairs) >= limit:
                return pairs
    return pairs


def statement(sample: Sample) -> str:
    return f"Write the gurobipy model of routing instance {sample.id} ({sample.variant})."


def build_data(pairs: list[BlindPair], root: Path) -> tuple[Path, Path]:
    entries = []
    for pair in pairs:
        common = {"variant": pair.sample.variant, "statement": statement(pair.sample), "sample_json": pair.sample.model_dump_json()}
        entries.append(DatasetEntry(id=f"{pair.sample.id}-gold", path="scenario", target_code=pair.sample.gold_code, **common))
        entries.append(DatasetEntry(id=f"{pair.sample.id}-{pair.mutant_name}", path="scenario", target_code=pair.mutant_code, **common))
    data = write_dataset(root / "data", entries)
    # The tokenizer sees the replies exactly as the model writes them (fenced); with a vocabulary this
    # large for so small a corpus, each whole script becomes one or two tokens, so the SFT policy's
    # choice between the gold script and its mutant is made at the reply's first token. The
    # miniature thus measures where each reward pushes that choice, not how well a model writes code.
    corpus = [code_system_prompt()] * 20 + [e.statement for e in entries] + [fenced(e.target_code) for e in entries]
    model = build_tiny_model(root / "tiny-model", corpus, TinyModelSpec(vocab_size=8192, tokenizer="whole-script"))
    return data, model


def per_step(trainer: Any) -> list[dict[str, float | None]]:
    rows = []
    for entry in trainer.state.log_history:
        if "reward" not in entry or "reward_std" not in entry:
            continue
        rows.append({
            "step": entry["step"],
            "reward": entry.get("reward"),
            "dual_pass_rate": entry.get("verifier/dual_pass_rate"),
            "diff": entry.get("verifier/diff"),
            "inj_fraction": entry.get("verifier/inj_fraction"),
            "no_code": entry.get("verifier/no_code_this_step"),
            "none": entry.get("verifier/none_this_step"),
            "loss": entry.get("loss"),
        })
    return rows


def fmt(value: float | None) -> str:
    return "  -  " if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:5.3f}"


def grpo_config(root: Path, data: Path, model: Path, adapter: Path, name: str, steps: int, inj: float, seed: int) -> Any:
    return load_config("packaged:tiny_grpo_cpu.yaml", None, {
        "model.name_or_path": str(model), "model.adapters": [str(adapter)], "dataset.path": str(data),
        "run.output_dir": str(root / name), "run.max_steps": steps, "run.save_steps": steps, "run.seed": seed,
        "reward.inj": inj, "num_generations": 8, "batch.per_device_train_batch_size": 8, "batch.effective_batch_size": 8,
        "optim.learning_rate": 2e-3,
    })


class Outage:
    """A trainer callback that stops the verifier service at one step and starts it again at another."""

    def __init__(self, stack: LocalStack, down_at: int, up_at: int) -> None:
        self.stack, self.down_at, self.up_at = stack, down_at, up_at
        self.events: list[str] = []

    def callback(self) -> Any:
        from transformers import TrainerCallback

        outage = self

        class _Callback(TrainerCallback):  # type: ignore[misc]
            def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
                step = state.global_step + 1
                if step == outage.down_at:
                    outage.stack.stop()
                    outage.events.append(f"step {step}: verifier API and workers stopped")
                if step == outage.up_at:
                    outage.stack.start()
                    outage.events.append(f"step {step}: verifier started again on port {outage.stack.port}")

        return _Callback()


def plot(runs: dict[str, list[dict[str, Any]]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for label, rows in runs.items():
        steps = [r["step"] for r in rows]
        axes[0].plot(steps, [r["reward"] if r["reward"] is not None else math.nan for r in rows], marker="o", label=label)
        axes[1].plot(steps, [r["dual_pass_rate"] if r["dual_pass_rate"] is not None else math.nan for r in rows], marker="o", label=label)
    axes[0].set(title="mean reward (each run's own reward)", xlabel="GRPO step", ylabel="reward")
    axes[1].set(title="rollouts passing the dual verifier", xlabel="GRPO step", ylabel="fraction", ylim=(-0.05, 1.05))
    for axis in axes:
        axis.legend()
        axis.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=12, help="GRPO steps per run (8 rollouts of one prompt each)")
    parser.add_argument("--sft-steps", type=int, default=60)
    parser.add_argument("--prompts", type=int, default=2, help="instances (each with its gold script and one DIFF-blind mutant)")
    parser.add_argument("--outage-steps", type=int, default=6, help="steps of the outage run (0 skips it)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("out/grpo_injection_ablation"))
    args = parser.parse_args()
    # A plain `kill` unwinds like Ctrl-C, so the verifier stack's processes are stopped and its keys purged.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    root: Path = args.out
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    started = time.monotonic()

    pairs = find_blind_pairs(args.prompts)
    if not pairs:
        raise SystemExit("no DIFF-blind mutant found on the grid points")
    print("DIFF-blind pairs (sample, mutant, reward full / no-injection; gold earns 1.0 / 0.7):")
    for pair in pairs:
        print(f"  {pair.sample.id:32s} {pair.mutant_name:28s} {pair.mutant_reward_full:.3f} / {pair.mutant_reward_no_inj:.3f}")
    data, model = build_data(pairs, root)

    sft = load_config("packaged:tiny_sft_cpu.yaml", None, {
        "model.name_or_path": str(model), "dataset.path": str(data), "run.output_dir": str(root / "sft"),
        "run.max_steps": args.sft_steps, "run.save_steps": args.sft_steps, "run.seed": args.seed,
    })
    adapter = run_sft(sft)
    print(f"SFT done ({args.sft_steps} steps) at {time.monotonic() - started:.0f} s")

    runs: dict[str, list[dict[str, Any]]] = {}
    summary: dict[str, Any] = {"pairs": [(p.sample.id, p.mutant_name) for p in pairs]}
    with local_redis() as url:
        settings = stack_settings(url, allow_unsandboxed=True, max_time_limit=30.0, default_time_limit=10.0)
        try:
            with LocalStack(settings, workers=2, log_dir=root / "stack-logs") as stack:
                os.environ["VRPCODER_VERIFIER_TOKEN"] = stack.token
                for label, inj in (("full reward", 0.3), ("no injection", 0.0)):
                    config = grpo_config(root, data, model, adapter, label.replace(" ", "-"), args.steps, inj, args.seed)
                    with VerifierClient(stack.base_url, stack.token, timeout=120) as client:
                        _, trainer = run_grpo(config, client=client)
                    runs[label] = per_step(trainer)
                    print(f"GRPO '{label}' done at {time.monotonic() - started:.0f} s")
                if args.outage_steps:
                    outage = Outage(stack, down_at=2, up_at=max(3, args.outage_steps - 1))
                    config = grpo_config(root, data, model, adapter, "outage", args.outage_steps, 0.3, args.seed)
                    with VerifierClient(stack.base_url, stack.token, timeout=30) as client:
                        _, trainer = run_grpo(config, client=client, callbacks=[outage.callback()])
                    rows = per_step(trainer)
                    summary["outage"] = {
                        "events": outage.events,
                        "steps_completed": len(rows),
                        "none_rewards": trainer.verifier_reward.totals.none,
                        "all_none_groups": trainer.verifier_reward.totals.all_none_groups,
                        "completions": trainer.verifier_reward.totals.completions,
                        "none_by_reason": dict(trainer.verifier_reward.stats.none_by_reason),
                        "losses_finite": all(r["loss"] is not None and math.isfinite(r["loss"]) for r in rows),
                        "per_step": rows,
                    }
        finally:
            purge(settings)

    print()
    print("step | full: reward  pass | no-inj: reward  pass")
    full, ablated = runs["full reward"], runs["no injection"]
    for a, b in zip(full, ablated, strict=False):
        print(f"{a['step']:4d} |       {fmt(a['reward'])} {fmt(a['dual_pass_rate'])} |         {fmt(b['reward'])} {fmt(b['dual_pass_rate'])}")
    for label, rows in runs.items():
        half = max(1, len(rows) // 3)
        first = [r["dual_pass_rate"] for r in rows[:half] if r["dual_pass_rate"] is not None]
        last = [r["dual_pass_rate"] for r in rows[-half:] if r["dual_pass_rate"] is not None]
        summary[label] = {
            "first_reward": rows[0]["reward"], "last_reward": rows[-1]["reward"],
            "pass_rate_first_third": sum(first) / len(first) if first else None,
            "pass_rate_last_third": sum(last) / len(last) if last else None,
            "per_step": rows,
        }
        print(f"{label:13s}: reward {fmt(rows[0]['reward'])} -> {fmt(rows[-1]['reward'])}; dual-pass rate, first third "
              f"{fmt(summary[label]['pass_rate_first_third'])} -> last third {fmt(summary[label]['pass_rate_last_third'])}")
    if "outage" in summary:
        o = summary["outage"]
        print(f"outage run: {o['steps_completed']} steps completed, {o['none_rewards']} of {o['completions']} rollouts got None "
              f"({o['all_none_groups']} whole groups), losses finite: {o['losses_finite']}; {'; '.join(o['events'])}")
    plot(runs, root / "grpo_injection_ablation.png")
    (root / "results.json").write_text(json.dumps(summary, indent=2, default=str))
    print(f"plot: {root / 'grpo_injection_ablation.png'}; numbers: {root / 'results.json'}; total {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()

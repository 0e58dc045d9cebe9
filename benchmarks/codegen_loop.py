"""A small model that writes the code: base / SFT / GRPO / GRPO without injection on an unseen B1.

    .venv/bin/python benchmarks/codegen_loop.py [--preset quick|full] [--out DIR] [--threads 1]

It runs ``vrpcoder loop`` (offline synthesis of compact scripts of TSP, CVRP and VRPHTW with their
mutants, the SFT set with DIFF-blind mutants at the paper's no-injection rate, a decoder trained from
scratch with the code tokenizer, SFT, GRPO with the full reward, a B1 of the same variants, profiles
and size from seeds 1,000,000 up, greedy evaluation), then a second GRPO from the same SFT weights,
same seed and steps, with injection's weight at 0, and its evaluation. Then it prints, per checkpoint:

- Pass@1 (DIFF), DIFF+INJ, INJ and build rates with 95 % bootstrap intervals, and per variant;
- per constraint family, how many injection probes were answered right;
- the ablation at the constraint level: the share of scripts that drop a rule (read from the script:
  the compact skeleton without one of its blocks), split into those whose dropped rule binds on the
  item (DIFF fails) and those where it does not (DIFF passes; injection or the optimum check must
  catch it), and the verifier's own view: DIFF passed but injection or the optimum check failed;
- the same drop shares over ``--samples`` completions per item sampled at temperature 1 (greedy
  decoding shows what a policy does most, sampling what it still does sometimes);
- wall time and the peak resident memory of this process and its children (the verifier stack)
  during each stage.

Everything is written to ``OUT/codegen_results.json`` and ``OUT/codegen_results.md``. The loop's
stages resume, and so do the ablation's, so an interrupted run continues where it stopped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from vrpcoder_client.reward import extract_code
from vrpcoder_loop.loop import LazyStack, Loop, LoopPaths, LoopSettings, StageRecord, run_loop
from vrpcoder_eval.metrics import bootstrap_rate, compute
from vrpcoder_eval.runner import load_run
from vrpcoder_synth.compact import dropped_blocks

PRESETS: dict[str, dict[str, Any]] = {
    "smoke": {"profiles": (1,), "sft_steps": 2, "grpo_steps": 1, "num_generations": 2, "bench_size": 3, "max_new_tokens": 48,
              "model_size": "smoke", "workers": 1},
    "quick": {},
    "copy": {
        "variants": ("TSP", "CVRP"), "profiles": (1, 2, 3, 4), "seeds": tuple(range(100)), "copy_drill_steps": 900,
        "sft_steps": 600, "grpo_steps": 8, "num_generations": 4, "bench_size": 24,
    },
    "copy-tsp": {
        "variants": ("TSP",), "profiles": tuple(range(1, 13)), "seeds": tuple(range(200)), "mutants": False,
        "copy_drill_steps": 500, "sft_steps": 400, "grpo_steps": 30, "num_generations": 4, "bench_size": 24,
    },
    "copy-vrphtw": {
        "variants": ("VRPHTW",), "profiles": tuple(range(1, 13)), "seeds": tuple(range(50)), "copy_drill_steps": 500,
        "sft_steps": 350, "grpo_steps": 24, "num_generations": 4, "bench_size": 24, "max_new_tokens": 1300,
    },
    "full": {
        "profiles": (1, 2, 3, 4), "seeds": tuple(range(60)), "copy_drill_steps": 900, "sft_steps": 1500, "grpo_steps": 40, "num_generations": 8,
        "bench_size": 60, "time_limit": 20.0,
    },
}
"""``smoke`` checks that the script runs; ``quick`` is what ``make run`` runs (the loop's defaults); ``copy``
the copy-drill run proposed in docs/codegen.md (TSP and CVRP; not run to the end). ``copy-tsp``: TSP alone,
the twelve regular profiles, 2,400 distinct instances and no mutants (at 5 customers DIFF catches every
TSP mutant, so none would reach the SFT set); run end to end in the fifth session (SFT Pass@1 79 % on its
B1, docs/codegen.md). ``copy-vrphtw``: the ablation's variant (a dropped time window rarely binds at 5
customers, so its mutants are DIFF-blind and fill the reserved set); its replies run to 1,122 tokens, hence
the longer token limit. ``full`` a longer run of all three variants."""

CHECKPOINTS = ("base", "sft", "grpo", "grpo-no-inj")


# ---- memory and time per stage -----------------------------------------------------------------------


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return 0
    return 0


def _tree(root: int) -> list[int]:
    children: dict[int, list[int]] = defaultdict(list)
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children[ppid].append(int(entry.name))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


@dataclass
class MemoryWatch:
    """Samples the resident memory of this process and of its children (the verifier stack) once a second."""

    samples: list[tuple[float, int, int]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> MemoryWatch:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.wait(1.0):
            pids = _tree(me)
            self.samples.append((time.monotonic(), _rss_kib(me), sum(_rss_kib(p) for p in pids if p != me)))

    def peak(self, start: float, end: float) -> dict[str, float]:
        window = [(own, kids) for t, own, kids in self.samples if start <= t <= end]
        own = max((o for o, _ in window), default=_rss_kib(os.getpid()))
        kids = max((k for _, k in window), default=0)
        return {"trainer_process_mib": round(own / 1024, 1), "children_mib": round(kids / 1024, 1)}


@dataclass
class StageClock:
    watch: MemoryWatch
    stages: dict[str, dict[str, Any]] = field(default_factory=dict)
    _last: float = field(default_factory=time.monotonic)

    def loop_stage(self, stage: str, record: StageRecord, skipped: bool) -> None:
        now = time.monotonic()
        entry: dict[str, Any] = {"seconds": record.seconds, "skipped_now": skipped}
        if not skipped:
            entry.update(self.watch.peak(self._last, now))
        self.stages[stage] = entry
        self._last = now

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.monotonic()
        yield
        end = time.monotonic()
        self.stages[name] = {"seconds": round(end - start, 1), "skipped_now": False, **self.watch.peak(start, end)}
        self._last = end


# ---- the ablation's second GRPO run --------------------------------------------------------------------


class NoInjectionPaths(LoopPaths):
    """The loop's folder, with the second GRPO run, its checkpoint and its evaluation beside the first."""

    @property
    def grpo(self) -> Path:
        return self.root / "grpo-no-inj"

    def checkpoint(self, name: str) -> Path:
        return self.root / "checkpoints" / "grpo-no-inj" if name == "grpo" else super().checkpoint(name)

    def eval_run(self, name: str) -> Path:
        return self.root / "eval" / ("grpo-no-inj" if name == "grpo" else name)

    def marker(self, stage: str) -> Path:
        return self.root / ".loop" / f"no-inj-{stage}.json"


def run_no_injection(settings: LoopSettings, out: Path, console: Console, clock: StageClock) -> dict[str, Any]:
    """GRPO from the same SFT weights with injection's weight at 0, merged and evaluated (resumable)."""
    ablation = settings.model_copy(update={"grpo_inj_weight": 0.0, "evaluate": ("grpo",)})
    paths = NoInjectionPaths(out)
    stack = LazyStack(workers=settings.workers, log_dir=paths.logs, max_time_limit=settings.time_limit)
    loop = Loop(ablation, paths, console, stack)
    figures: dict[str, Any] = {}
    try:
        for stage in ("grpo", "checkpoints", "eval"):
            marker = paths.marker(stage)
            if marker.is_file():
                record = StageRecord.model_validate_json(marker.read_text())
                clock.stages[f"{stage} (no injection)"] = {"seconds": record.seconds, "skipped_now": True}
            else:
                console.rule(f"[bold]ablation: {stage} without injection")
                with clock.stage(f"{stage} (no injection)"):
                    started = time.monotonic()
                    result = getattr(loop, stage)()
                record = StageRecord(stage=stage, seconds=round(time.monotonic() - started, 1), figures=result)
                marker.write_text(record.model_dump_json(indent=2) + "\n")
            figures[stage] = record.figures
    finally:
        stack.close()
    return figures


# ---- constraint-level reading of the generated scripts ---------------------------------------------------


def drop_figures(rows: list[tuple[str | None, str, bool, bool]]) -> dict[str, Any]:
    """``rows``: (code, variant, diff, dual_pass) per scored completion.

    A script *follows the skeleton* when ``dropped_blocks`` can read it. Among all scored completions:
    ``drops`` the share that leave a rule out, ``drops_binding`` those DIFF catches (the rule binds on the
    item), ``drops_non_binding`` those DIFF passes; ``diff_blind_failures`` the verifier's own view of
    the same thing: DIFF passed but injection or the optimum check failed.
    """
    drops, binding, non_binding, blind = [], [], [], []
    follows = 0
    by_rule: dict[str, int] = defaultdict(int)
    for code, variant, diff, dual in rows:
        dropped = dropped_blocks(code, variant) if code else None
        follows += dropped is not None
        dropped = dropped or ()
        for rule in dropped:
            by_rule[rule] += 1
        drops.append(bool(dropped))
        binding.append(bool(dropped) and not diff)
        non_binding.append(bool(dropped) and diff)
        blind.append(diff and not dual)
    rate = lambda xs: bootstrap_rate(xs).model_dump()  # noqa: E731
    return {"completions": len(rows), "follow_skeleton": follows, "drops": rate(drops), "drops_binding": rate(binding),
            "drops_non_binding": rate(non_binding), "diff_blind_failures": rate(blind), "dropped_rules": dict(by_rule)}


def greedy_figures(out: Path, paths: dict[str, Path]) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    for name, run_dir in paths.items():
        config, results = load_run(run_dir)
        metrics = compute(name, results, tolerance=config.diff_tolerance)
        o = metrics.overall
        scored = [r for r in results if r.status.value == "scored"]
        figures[name] = {
            "items": o.items, "scored": metrics.scored, "unscored": metrics.unscored,
            "pass_at_1": o.pass_at_1.model_dump(), "dual_pass": o.dual_pass.model_dump(), "inj": o.inj.model_dump(),
            "build": o.build.model_dump(),
            "per_variant": {g.key.split("/", 1)[1]: {"items": g.items, "pass_at_1": g.pass_at_1.rate, "dual_pass": g.dual_pass.rate}
                            for g in metrics.variants},
            "families": {f.family: {"judged": f.judged, "passed": f.passed, "false_accepts": f.false_accepts,
                                    "false_rejects": f.false_rejects} for f in metrics.families},
            "outcomes": metrics.error_kinds,
            "drops": drop_figures([(r.code, r.variant or "", r.diff, r.dual_pass) for r in scored]),
        }
    return figures


def sampled_drops(settings: LoopSettings, out: Path, checkpoints: dict[str, Path], samples: int, console: Console) -> dict[str, Any]:
    """``samples`` completions per B1 item at temperature 1, verified through a private stack."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from vrpcoder_client.client import VerifierClient
    from vrpcoder_client.schemas import VerifyOptions
    from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkName
    from vrpcoder_eval.prompts import shared_prompt

    store = BenchmarkDir(out / "bench")
    items = store.items(BenchmarkName.B1)
    system = shared_prompt().text
    stack = LazyStack(workers=settings.workers, log_dir=out / "logs", max_time_limit=settings.time_limit)
    figures: dict[str, Any] = {}
    try:
        service = stack.ensure(console)
        with VerifierClient(service.base_url, service.token, timeout=600) as client:
            for name, folder in checkpoints.items():
                cache = out / "sampled" / f"{name}.json"
                if cache.is_file():
                    figures[name] = json.loads(cache.read_text())
                    continue
                tokenizer = AutoTokenizer.from_pretrained(folder)
                model = AutoModelForCausalLM.from_pretrained(folder).eval()
                torch.manual_seed(0)
                rows = []
                for index, item in enumerate(items):
                    messages = [{"role": "system", "content": system}, {"role": "user", "content": item.statement}]
                    prompt = tokenizer(tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True),
                                       return_tensors="pt")
                    with torch.no_grad():
                        generated = model.generate(**prompt, do_sample=True, temperature=1.0, top_p=1.0, top_k=0,
                                                   num_return_sequences=samples, max_new_tokens=settings.max_new_tokens,
                                                   pad_token_id=tokenizer.pad_token_id)
                    texts = tokenizer.batch_decode(generated[:, prompt["input_ids"].shape[1]:], skip_special_tokens=True)
                    codes = [extract_code(t) for t in texts]
                    sample = store.load_sample(item.sample_id)
                    with_code = [c for c in codes if c]
                    verdicts = client.verify_batch(with_code, sample, options=VerifyOptions(time_limit=settings.time_limit)) if with_code else []
                    by_code = iter(verdicts)
                    for code in codes:
                        verdict = next(by_code).verdict if code else None
                        ok = verdict is not None and verdict.reward is not None
                        rows.append((code, item.variant or "", bool(ok and verdict.diff), bool(ok and verdict.passed)))
                    console.print(f"sampled {name}: {index + 1}/{len(items)} items", highlight=False)
                figures[name] = drop_figures(rows)
                cache.parent.mkdir(parents=True, exist_ok=True)
                cache.write_text(json.dumps(figures[name], indent=2))
    finally:
        stack.close()
    return figures


# ---- report ---------------------------------------------------------------------------------------------


def _pct(rate: dict[str, Any] | None) -> str:
    if not rate or rate.get("rate") is None:
        return "-"
    return f"{100 * rate['rate']:.1f} % [{100 * rate['low']:.1f}, {100 * rate['high']:.1f}] ({rate['passed']}/{rate['total']})"


def report_markdown(results: dict[str, Any]) -> str:
    g = results["greedy"]
    lines = [f"# Code-writing model on the CPU ({results['preset']} preset)", "",
             f"Settings: `{json.dumps(results['settings'])}`", "",
             f"Training set: `{json.dumps(results['training_set'])}`; model: {results['model']}", "",
             "## Greedy decoding on the unseen B1 (95 % bootstrap intervals)", "",
             "| checkpoint | Pass@1 (DIFF) | DIFF+INJ | INJ | build |", "|---|---|---|---|---|"]
    for name in CHECKPOINTS:
        if name in g:
            f = g[name]
            lines.append(f"| {name} | {_pct(f['pass_at_1'])} | {_pct(f['dual_pass'])} | {_pct(f['inj'])} | {_pct(f['build'])} |")
    lines += ["", "Per variant, Pass@1 / DIFF+INJ:", "", "| checkpoint | " + " | ".join(sorted({v for f in g.values() for v in f["per_variant"]})) + " |"]
    variants = sorted({v for f in g.values() for v in f["per_variant"]})
    lines.append("|---|" + "---|" * len(variants))
    for name in CHECKPOINTS:
        if name in g:
            cells = []
            for v in variants:
                p = g[name]["per_variant"].get(v)
                cells.append("-" if not p else f"{100 * (p['pass_at_1'] or 0):.0f} % / {100 * (p['dual_pass'] or 0):.0f} % (n={p['items']})")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    families = sorted({fam for f in g.values() for fam in f["families"]})
    if families:
        lines += ["", "Injection probes answered right, per family (judged):", ""]
        lines += ["| checkpoint | " + " | ".join(families) + " |", "|---|" + "---|" * len(families)]
    for name in CHECKPOINTS:
        if name in g and families:
            cells = [f"{g[name]['families'][fam]['passed']}/{g[name]['families'][fam]['judged']}" if fam in g[name]["families"] else "-"
                     for fam in families]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    for title, block in (("greedy", {k: v["drops"] for k, v in g.items()}), ("sampled, temperature 1", results.get("sampled", {}))):
        if not block:
            continue
        lines += ["", f"## Dropped rules ({title})", "",
                  "| checkpoint | completions | follow the skeleton | drop a rule | ... that binds (DIFF fails) | ... that does not bind (DIFF passes) | DIFF passed, INJ/optimum failed | rules dropped |",
                  "|---|---|---|---|---|---|---|---|"]
        for name in CHECKPOINTS:
            if name in block:
                d = block[name]
                lines.append(f"| {name} | {d['completions']} | {d['follow_skeleton']} | {_pct(d['drops'])} | {_pct(d['drops_binding'])} | "
                             f"{_pct(d['drops_non_binding'])} | {_pct(d['diff_blind_failures'])} | {d['dropped_rules']} |")
    lines += ["", "## Time and memory per stage", "", "| stage | seconds | trainer process peak RSS (MiB) | children peak RSS (MiB) |",
              "|---|---|---|---|"]
    for stage, s in results["stages"].items():
        lines.append(f"| {stage} | {s['seconds']} | {s.get('trainer_process_mib', '-')} | {s.get('children_mib', '-')} |"
                     + (" (done earlier)" if s.get("skipped_now") else ""))
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", choices=sorted(PRESETS), default="quick")
    parser.add_argument("--out", type=Path, default=None, help="Run folder (default: codegen-<preset>); resumable.")
    parser.add_argument("--model-size", choices=("smoke", "small", "base"), default=None)
    parser.add_argument("--sft-steps", type=int, default=None)
    parser.add_argument("--grpo-steps", type=int, default=None)
    parser.add_argument("--samples", type=int, default=4, help="Completions per B1 item sampled at temperature 1 (0: none).")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on a shared 2-core VM).")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    options = dict(PRESETS[args.preset])
    for key in ("model_size", "sft_steps", "grpo_steps"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    settings = LoopSettings(**options)
    out = args.out or Path(f"codegen-{args.preset}")
    console = Console(stderr=True, soft_wrap=True)
    with MemoryWatch() as watch:
        clock = StageClock(watch)
        summary = run_loop(settings, out, console=console, on_stage=clock.loop_stage)
        ablation = run_no_injection(settings, out, console, clock)
        paths = LoopPaths(out)
        runs = {name: paths.eval_run(name) for name in settings.evaluate}
        runs["grpo-no-inj"] = NoInjectionPaths(out).eval_run("grpo")
        sampled: dict[str, Any] = {}
        if args.samples:
            checkpoints = {"sft": paths.checkpoint("sft"), "grpo": paths.checkpoint("grpo"),
                           "grpo-no-inj": NoInjectionPaths(out).checkpoint("grpo")}
            with clock.stage("sampled drops"):
                sampled = sampled_drops(settings, out, checkpoints, args.samples, console)
    results = {
        "preset": args.preset, "settings": settings.model_dump(mode="json"), "threads": args.threads,
        "training_set": summary["model"]["training_set"],
        "model": {k: summary["model"][k] for k in ("parameters", "hidden_size", "layers", "vocab_size")},
        "sft": {k: summary["sft"][k] for k in ("steps", "loss_first", "loss_last")},
        "grpo": {"full": {k: summary["grpo"][k] for k in ("steps", "reward_first", "reward_last", "rewards", "dual_pass")},
                 "no_injection": {k: ablation["grpo"][k] for k in ("steps", "reward_first", "reward_last", "rewards", "dual_pass")}},
        "greedy": greedy_figures(out, runs), "sampled": sampled, "stages": clock.stages,
    }
    (out / "codegen_results.json").write_text(json.dumps(results, indent=2) + "\n")
    text = report_markdown(results)
    (out / "codegen_results.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

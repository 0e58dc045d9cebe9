"""`vrpcoder loop`: the whole product in one command, synthesis -> SFT -> GRPO -> evaluation.

The loop is what the four services are for, so one command runs it end to end on a small embedded
default: an offline synthesis of a few training variants, a small local model (no hub) trained from
scratch on the synthesised SFT records, a few GRPO steps scored by the verifier over HTTP, then the base, SFT and
GRPO checkpoints evaluated on a small B1 built from seeds the synthesis never uses. Everything the
loop needs it starts itself (a private Redis, the verifier API and sandboxed workers) and stops
afterwards, so it runs on a fresh machine and leaves nothing behind.

Each stage writes its outputs under one run folder and then a marker ``.loop/<stage>.json`` holding
its figures; a stage whose marker exists is skipped on the next run, so an interrupted loop resumes
where it stopped and a finished one re-prints its summary at once. ``loop.json`` records the
settings the folder was made with; a run with other settings is refused rather than mixing outputs.

The loop is the one package that uses every service (synth, trainer, verifier, eval), so it lives
apart from all of them and none of them depends on it. The trainer (torch, TRL) is imported inside the
training stages only, so ``vrpcoder loop --help`` answers at once.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from pydantic import BaseModel, ConfigDict, Field, field_validator
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from vrpcoder.cli import json_only
from vrpcoder.variants import training_variant_names

STAGES = ("synth", "model", "drill", "sft", "grpo", "checkpoints", "bench", "eval")
"""The stages in order; each one's marker is ``.loop/<name>.json``."""
CHECKPOINTS = ("base", "sft", "grpo")
"""The models the loop can evaluate: the untrained tiny model, after SFT, after GRPO."""
SETTINGS_FILE = "loop.json"
SUMMARY_FILE = "summary.json"
SUMMARY_MARKDOWN = "summary.md"


class LoopError(RuntimeError):
    """The loop cannot go on (bad settings, a stage that produced nothing to build on)."""


class LoopSettings(BaseModel):
    """What one loop run does; the defaults are the embedded run of ``make run``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    variants: tuple[str, ...] = ("TSP", "CVRP", "VRPHTW")
    """Training variants synthesised (and sampled for the benchmark); the compact coder writes these three."""
    profiles: tuple[int, ...] = (1, 2)
    seeds: tuple[int, ...] = (0,)
    customers: int = Field(default=5, ge=2)
    """Customers per instance, in synthesis and in the benchmark alike."""
    paths: tuple[str, ...] = ("scenario", "condensed", "strict")
    mutants: bool = True
    """Send constraint-dropping mutants through Stage 4 too (they fill the reserved set)."""
    coder: Literal["compact", "formulations"] = "compact"
    """Synthesis's offline coder: ``compact`` scripts a small model can learn to write (``vrpcoder_synth.compact``)."""
    mutant_share: float = Field(default=550 / 7347, ge=0.0, lt=1.0)
    """Share of DIFF-blind mutants (reserved records) in the SFT set, as in the paper's no-injection SFT
    (``vrpcoder_trainer.mixture``); 0 trains on accepted scripts only."""
    grpo_inj_weight: float = Field(default=0.3, ge=0.0)
    """Weight of injection in GRPO's reward (the paper's 0.3; 0 is the no-injection ablation)."""
    model_size: Literal["smoke", "small", "base"] = "small"
    """Shape of the model trained from scratch (``vrpcoder_trainer.tiny.MODEL_SIZES``)."""
    copy_drill_steps: int = Field(default=0, ge=0)
    """Steps of the copy drill before SFT (``vrpcoder_trainer.copy_drill``: the model learns to copy the
    statement's data lines first); 0 skips it."""
    sft_steps: int = Field(default=60, ge=1)
    grpo_steps: int = Field(default=20, ge=1)
    num_generations: int = Field(default=4, ge=2)
    """G: completions per GRPO prompt (one prompt per step)."""
    max_new_tokens: int = Field(default=1300, ge=8)
    """Token limit of a GRPO completion and of an evaluation answer: a 5-customer VRPHTW compact reply
    runs to 1,122 tokens of the code tokenizer (the model stage warns when the SFT replies outgrow it)."""
    vocab_size: int = Field(default=4096, ge=300)
    """A cap on the code tokenizer's vocabulary (``vrpcoder_trainer.code_tokenizer``: digits in runs of at most two,
    identifiers whole); it stops merging once every word of the corpus is one token."""
    bench_size: int = Field(default=18, ge=1)
    bench_seed_start: int = Field(default=1_000_000, ge=1000)
    """First seed of the benchmark's grid points; synthesis uses small seeds, so the two never meet."""
    evaluate: tuple[str, ...] = CHECKPOINTS
    workers: int = Field(default=2, ge=1)
    time_limit: float = Field(default=20.0, gt=0.0)
    """Gurobi time limit per solve (gold solves, candidates' solves), seconds."""

    @field_validator("variants")
    @classmethod
    def _training_variants(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("name at least one training variant")
        return training_variant_names(value)

    @field_validator("evaluate")
    @classmethod
    def _known_checkpoints(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [v for v in value if v not in CHECKPOINTS]
        if unknown or not value:
            raise ValueError(f"evaluate: choose among {', '.join(CHECKPOINTS)} (got {', '.join(value) or 'nothing'})")
        return tuple(c for c in CHECKPOINTS if c in value)

    @field_validator("seeds")
    @classmethod
    def _small_seeds(cls, value: tuple[int, ...]) -> tuple[int, ...]:
        if not value or any(s < 0 or s >= 1000 for s in value):
            raise ValueError("synthesis seeds must lie in 0..999 (the benchmark's seeds start at 1000 or above)")
        return value


@dataclass(frozen=True)
class LoopPaths:
    """Where every artefact of a run folder lives."""

    root: Path

    @property
    def synth(self) -> Path:
        return self.root / "synth"

    @property
    def model(self) -> Path:
        return self.root / "tiny-model"

    @property
    def train_data(self) -> Path:
        """The SFT set (accepted scripts and DIFF-blind mutants) and GRPO prompts the model trains on."""
        return self.root / "train-data"

    @property
    def drill_data(self) -> Path:
        return self.root / "drill-data"

    @property
    def drill(self) -> Path:
        return self.root / "drill"

    @property
    def sft(self) -> Path:
        return self.root / "sft"

    @property
    def grpo(self) -> Path:
        return self.root / "grpo"

    @property
    def bench(self) -> Path:
        return self.root / "bench"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def checkpoint(self, name: str) -> Path:
        """The plain model folder evaluated as ``name`` (base: the tiny model itself)."""
        return self.model if name == "base" else self.root / "checkpoints" / name

    def eval_run(self, name: str) -> Path:
        return self.root / "eval" / name

    def marker(self, stage: str) -> Path:
        return self.root / ".loop" / f"{stage}.json"


class StageRecord(BaseModel):
    """A finished stage: how long it took and the figures the summary shows."""

    stage: str
    seconds: float
    figures: dict[str, Any]


# ---- summary figures --------------------------------------------------------------------------------


def first_last(values: list[float]) -> tuple[float | None, float | None]:
    """First and last finite value of a logged series (None where there is none)."""
    finite = [v for v in values if isinstance(v, int | float) and math.isfinite(v)]
    return (finite[0], finite[-1]) if finite else (None, None)


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}" if abs(value) < 100 else f"{value:.1f}"
    return str(value)


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


# ---- the verifier stack, started only when a stage needs it ----------------------------------------------


@dataclass
class LazyStack:
    """A private Redis + verifier API + workers, brought up on first use and torn down on close."""

    workers: int
    log_dir: Path
    max_time_limit: float
    _exits: ExitStack = field(default_factory=ExitStack)
    _stack: Any = None
    _settings: Any = None

    def ensure(self, console: Console) -> Any:
        if self._stack is not None:
            return self._stack
        from vrpcoder_verifier.stack import LocalStack, RedisServer, StackError, purge, stack_settings

        console.print(f"[bold]verifier[/]: starting a private Redis, the API and {self.workers} sandboxed workers "
                      f"(logs in {self.log_dir})", highlight=False)
        redis = RedisServer()
        self._exits.callback(redis.close)
        settings = stack_settings(redis.url, executor="auto", allow_unsandboxed=True,
                                  max_time_limit=max(60.0, self.max_time_limit), default_time_limit=self.max_time_limit)
        stack = LocalStack(settings, workers=self.workers, log_dir=self.log_dir)
        try:
            redis.start()
            self._exits.callback(purge, settings)
            self._exits.enter_context(stack)
        except StackError as exc:
            raise LoopError(f"the verifier stack did not come up: {exc} (logs in {self.log_dir})") from exc
        self._stack, self._settings = stack, settings
        console.print(f"[bold]verifier[/]: API at {stack.base_url}", highlight=False)
        return stack

    def close(self) -> None:
        self._exits.close()
        self._stack = None


# ---- stages -----------------------------------------------------------------------------------------------


@dataclass
class Loop:
    """One run folder, its settings, and the stages that fill it."""

    settings: LoopSettings
    paths: LoopPaths
    console: Console
    stack: LazyStack
    quiet: bool = False

    def _bars(self) -> Progress:
        return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=self.console, disable=self.quiet, transient=False)

    # 1. synthesis
    def synth(self) -> dict[str, Any]:
        from vrpcoder_synth.components import build_components
        from vrpcoder_synth.config import GridConfig, SynthConfig, VerifierConfig
        from vrpcoder_synth.dataset import stats
        from vrpcoder_synth.pipeline import run

        s = self.settings
        service = self.stack.ensure(self.console)
        config = SynthConfig(
            grid=GridConfig(variants=s.variants, profiles=s.profiles, seeds=s.seeds, customers=s.customers, kinds="all"),
            paths=s.paths,  # type: ignore[arg-type]
            mutants=s.mutants,
            mutant_paths="all" if s.mutant_share > 0 else "scenario",
            coder=s.coder,
            verifier=VerifierConfig(backend="service", url=service.base_url, time_limit=s.time_limit),
            gold_time_limit=max(s.time_limit, 30.0),
        )
        components = build_components(config, self.paths.synth, token=service.token)
        points = len(s.variants) * len(s.profiles) * len(s.seeds)
        with self._bars() as bars:
            tasks = {"samples": bars.add_task("synth: samples", total=points)}
            for stage in ("statements", "code", "verdicts"):
                tasks[stage] = bars.add_task(f"synth: {stage}", total=None)

            def progress(stage: str, advance: int) -> None:
                if stage == "todo":
                    for name in ("statements", "code", "verdicts"):
                        bars.update(tasks[name], total=advance)
                elif stage in tasks:
                    bars.advance(tasks[stage], advance)

            try:
                report = run(config, self.paths.synth, writer=components.writer, coder=components.coder,
                             backend=components.backend, fingerprint=components.fingerprint, progress=progress)
            finally:
                components.close()
        if report.pending or report.stopped:
            raise LoopError(f"synthesis unfinished ({report.stopped or f'{report.pending} items without a verdict'}); run again to resume")
        figures = stats(self.paths.synth)
        if not figures["configs"].get("sft") or not figures["configs"].get("grpo"):
            raise LoopError(f"synthesis accepted nothing to train on: {figures['outcomes']}")
        return {"samples": figures["samples"], "decisions": figures["decisions"], "records": figures["configs"],
                "outcomes": figures["outcomes"]}

    # 2. the training set and the model
    def model(self) -> dict[str, Any]:
        from vrpcoder_trainer.config import DatasetSettings
        from vrpcoder_trainer.dataset import load_records
        from vrpcoder_trainer.mixture import mix_no_injection
        from vrpcoder_trainer.tiny import build_tiny_model, model_spec, tokenizer_corpus

        mix = mix_no_injection(self.paths.synth, self.paths.train_data, share=self.settings.mutant_share)
        records = load_records(DatasetSettings(path=str(self.paths.train_data), config="sft"))
        corpus = tokenizer_corpus(records)
        build_tiny_model(self.paths.model, corpus, model_spec(self.settings.model_size, vocab_size=self.settings.vocab_size))
        from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

        config = AutoConfig.from_pretrained(self.paths.model)
        parameters = sum(p.numel() for p in AutoModelForCausalLM.from_pretrained(self.paths.model).parameters())
        tokenizer = AutoTokenizer.from_pretrained(self.paths.model)
        longest = max(len(tokenizer(r["messages"][-1]["content"])["input_ids"]) for r in records)
        if longest > self.settings.max_new_tokens:
            self.console.print(
                f"[yellow]warning:[/] the longest SFT reply is {longest} tokens, more than max_new_tokens "
                f"({self.settings.max_new_tokens}): GRPO and evaluation cut answers that long before their code "
                "block closes (no code, reward 0); raise --max-new-tokens", highlight=False)
        return {"vocab_size": config.vocab_size, "hidden_size": config.hidden_size, "layers": config.num_hidden_layers,
                "parameters": parameters, "corpus_texts": len(corpus), "longest_reply_tokens": longest,
                "training_set": mix.as_dict()}

    def trained_chain(self, *stages: str) -> list[str]:
        """The weight folders applied on the tiny model in order: the drill's (when it ran), then ``stages``'."""
        drill = [str(self.paths.drill / "adapter")] if self.settings.copy_drill_steps else []
        return drill + [str(getattr(self.paths, stage) / "adapter") for stage in stages]

    # 3. the copy drill
    def drill(self) -> dict[str, Any]:
        steps = self.settings.copy_drill_steps
        if not steps:
            return {"steps": 0}
        from vrpcoder_trainer.config import SFTRunConfig, load_config
        from vrpcoder_trainer.copy_drill import write_copy_drill
        from vrpcoder_trainer.sft import run_sft

        rows = write_copy_drill(self.paths.train_data, self.paths.drill_data)
        config = load_config("packaged:codegen_drill_cpu.yaml", SFTRunConfig, {
            "model.name_or_path": str(self.paths.model), "dataset.path": str(self.paths.drill_data),
            "run.output_dir": str(self.paths.drill), "run.max_steps": steps, "run.save_steps": steps,
            "run.logging_steps": 1, "run.save_total_limit": 1,
        })
        logs = LogCollector.create()
        adapter = run_sft(config, callbacks=[logs.callback])
        first, last = first_last(logs.series("loss"))
        return {"steps": steps, "rows": rows, "loss_first": first, "loss_last": last, "adapter": str(adapter)}

    # 4. SFT
    def sft(self) -> dict[str, Any]:
        from vrpcoder_trainer.config import SFTRunConfig, load_config
        from vrpcoder_trainer.sft import run_sft

        steps = self.settings.sft_steps
        config = load_config("packaged:codegen_sft_cpu.yaml", SFTRunConfig, {
            "model.name_or_path": str(self.paths.model), "model.adapters": self.trained_chain(),
            "dataset.path": str(self.paths.train_data),
            "run.output_dir": str(self.paths.sft), "run.max_steps": steps, "run.save_steps": steps,
            "run.logging_steps": 1, "run.save_total_limit": 1,
        })
        logs = LogCollector.create()
        adapter = run_sft(config, callbacks=[logs.callback])
        losses = logs.series("loss")
        first, last = first_last(losses)
        return {"steps": steps, "loss_first": first, "loss_last": last, "losses": losses, "adapter": str(adapter)}

    # 5. GRPO
    def grpo(self) -> dict[str, Any]:
        from vrpcoder_client.client import PollPolicy, RetryPolicy, VerifierClient
        from vrpcoder_trainer.config import GRPORunConfig, load_config
        from vrpcoder_trainer.grpo import run_grpo

        s = self.settings
        service = self.stack.ensure(self.console)
        config = load_config("packaged:codegen_grpo_cpu.yaml", GRPORunConfig, {
            "model.name_or_path": str(self.paths.model), "model.adapters": self.trained_chain("sft"),
            "dataset.path": str(self.paths.train_data), "run.output_dir": str(self.paths.grpo),
            "run.max_steps": s.grpo_steps, "run.save_steps": s.grpo_steps, "run.logging_steps": 1,
            "run.save_total_limit": 1, "num_generations": s.num_generations,
            "batch.per_device_train_batch_size": s.num_generations, "batch.effective_batch_size": s.num_generations,
            "generation.max_completion_length": s.max_new_tokens, "verifier.url": service.base_url,
            "verifier.time_limit": s.time_limit, "reward.inj": s.grpo_inj_weight,
        })
        logs = LogCollector.create()
        client = VerifierClient(service.base_url, service.token, timeout=config.verifier.timeout,
                                retry=RetryPolicy(attempts=config.verifier.retry_attempts),
                                poll=PollPolicy(timeout=config.verifier.poll_timeout))
        with client:
            adapter, trainer = run_grpo(config, client=client, callbacks=[logs.callback])
        rewards = logs.series("reward")
        first, last = first_last(rewards)
        totals = vars(trainer.verifier_reward.totals)
        return {"steps": s.grpo_steps, "num_generations": s.num_generations, "reward_first": first, "reward_last": last,
                "rewards": rewards, "completions": totals["completions"], "none": totals["none"],
                "no_code": totals["no_code"], "dual_pass": logs.series("verifier/dual_pass_rate"),
                "adapter": str(adapter)}

    # 6. plain checkpoints of the trained policies (GRPO's adapter sits on the SFT-merged weights)
    def checkpoints(self) -> dict[str, Any]:
        from vrpcoder_trainer.config import MergeConfig
        from vrpcoder_trainer.merge import run_merge

        chains = {"sft": self.trained_chain("sft"), "grpo": self.trained_chain("sft", "grpo")}
        written = {}
        for name, adapters in chains.items():
            config = MergeConfig(kind="merge", model={"name_or_path": str(self.paths.model),  # type: ignore[arg-type]
                                                      "adapters": tuple(str(a) for a in adapters)},
                                 output_dir=str(self.paths.checkpoint(name)), dtype="float32")
            written[name] = str(run_merge(config))
        return written

    # 7. the benchmark
    def bench(self) -> dict[str, Any]:
        from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkName

        s = self.settings
        store = BenchmarkDir(self.paths.bench)
        with self._bars() as bars:
            task = bars.add_task("benchmark: B1 grid points", total=s.bench_size)
            result = build_sized_b1(s, store, progress=lambda n: bars.advance(task, n))
        if not result.items:
            raise LoopError(f"no benchmark item could be built: {[d.reason for d in result.discards]}")
        store.write(BenchmarkName.B1, result.items)
        return {"items": len(result.items), "discarded": len(result.discards),
                "seeds": sorted({int(i.provenance["seed"]) for i in result.items}),
                "variants": sorted({i.variant or "" for i in result.items})}

    # 8. evaluation
    def eval(self) -> dict[str, Any]:
        from vrpcoder_eval.metrics import compare, compute
        from vrpcoder_eval.report import write_reports
        from vrpcoder_eval.runner import load_run

        service = self.stack.ensure(self.console)
        figures: dict[str, Any] = {}
        for name in self.settings.evaluate:
            run_dir = self.paths.eval_run(name)
            asyncio.run(self._evaluate(name, run_dir, service))
            config, results = load_run(run_dir)
            metrics = compute(config.display_name, results, tolerance=config.diff_tolerance)
            comparison = None
            if name != "base" and "base" in figures:
                _, base_results = load_run(self.paths.eval_run("base"))
                comparison = compare("base", base_results, config.display_name, results)
            reports = write_reports(run_dir, metrics, comparison)
            o = metrics.overall
            figures[name] = {
                "items": o.items, "scored": metrics.scored, "unscored": metrics.unscored,
                "pass_at_1": o.pass_at_1.rate, "build": o.build.rate, "dual_pass": o.dual_pass.rate, "inj": o.inj.rate,
                "outcomes": metrics.error_kinds, "reports": {k: str(v) for k, v in reports.items()},
            }
        return figures

    async def _evaluate(self, name: str, run_dir: Path, service: Any) -> None:
        from vrpcoder_client.client import AsyncVerifierClient

        from vrpcoder_eval.benchmark import BenchmarkName
        from vrpcoder_eval.generation import (
            CachedGenerator,
            CompletionCache,
            DecodingConfig,
            LocalCheckpointGenerator,
        )
        from vrpcoder_eval.prompts import shared_prompt
        from vrpcoder_eval.runner import RunConfig, Runner, RunProgress

        s = self.settings
        generator = LocalCheckpointGenerator(self.paths.checkpoint(name), device="cpu")
        prompt = shared_prompt()
        config = RunConfig(
            model=str(self.paths.checkpoint(name)), model_name=await generator.resolve_model(),
            benchmark_dir=str(self.paths.bench.resolve()), benchmarks=(BenchmarkName.B1,),
            system_prompt_origin=prompt.origin, system_prompt_sha256=prompt.sha256,
            decoding=DecodingConfig(max_tokens=s.max_new_tokens), time_limit=s.time_limit, label=name,
        )
        verifier = AsyncVerifierClient(service.base_url, service.token, timeout=max(120.0, 4 * s.time_limit))
        with self._bars() as bars:
            task = bars.add_task(f"eval {name}: verified", total=None)
            progress = RunProgress(on_update=lambda p: bars.update(task, total=p.total, completed=p.verified + p.skipped))
            runner = Runner(config, run_dir, CachedGenerator(generator, CompletionCache(run_dir / "completions")), verifier,
                            prompt, concurrency=1, progress=progress)
            try:
                await runner.run()
            finally:
                await verifier.aclose()
        for warning in runner.warnings:
            self.console.print(f"[yellow]warning:[/] {warning}", highlight=False)


def build_sized_b1(settings: LoopSettings, store: Any, *, progress: Callable[[int], None]) -> Any:
    """B1 items of the loop's own variants, profiles and customer count, from seeds synthesis never uses.

    ``vrpcoder_eval.builders.build_sampled`` takes every profile of a variant at the profile's own
    size (up to 12 customers); a model trained on one size is measured on that size here, as the
    issue asks ("an unseen B1 of the same variants and sizes"). Grid points go round-robin over
    (variant, profile), each with the next fresh seed; one sample per point, chosen as B1 chooses.
    """
    from vrpcoder.samples import build_samples
    from vrpcoder.sampling import sample_instance

    from vrpcoder_eval.benchmark import BenchmarkName
    from vrpcoder_eval.builders import BuildResult, Discard, _sampled_item, pick_sample
    from vrpcoder_eval.prompts import prompt_ref
    from vrpcoder_eval.statements import default_writer

    s, name, ref, writer = settings, BenchmarkName.B1, prompt_ref(), default_writer()
    items, discards = [], []
    cells = [(v, p) for p in s.profiles for v in s.variants]
    attempt = 0
    while len(items) < s.bench_size and attempt < 3 * s.bench_size:
        variant, profile = cells[attempt % len(cells)]
        seed = s.bench_seed_start + attempt // len(cells)
        attempt += 1
        key = f"{variant}-p{profile}-s{seed}-n{s.customers}"
        try:
            report = build_samples(sample_instance(variant, profile, seed, customers=s.customers), seed=seed,
                                   time_limit=max(s.time_limit, 30.0))
        except (ValueError, RuntimeError) as exc:
            discards.append(Discard(name, key, f"{type(exc).__name__}: {exc}"))
        else:
            if report.samples:
                items.append(_sampled_item(name, pick_sample(report.samples, key), key, store, writer, ref, profile=profile, seed=seed))
            else:
                discards.append(Discard(name, key, "no sample"))
        progress(1)
    return BuildResult(items, discards)


@dataclass
class LogCollector:
    """The trainer's logged metrics, step by step (a transformers callback fills it)."""

    records: list[dict[str, float]]
    callback: Any

    @classmethod
    def create(cls) -> LogCollector:
        from transformers import TrainerCallback

        records: list[dict[str, float]] = []

        class _Collect(TrainerCallback):  # type: ignore[misc]
            def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, float] | None = None, **_: Any) -> None:
                if logs:
                    records.append(dict(logs))

        return cls(records, _Collect())

    def series(self, key: str) -> list[float]:
        """Every logged value of ``key``, in step order (the final train summary left out)."""
        return [float(r[key]) for r in self.records if key in r and "train_runtime" not in r]


# ---- running the stages -------------------------------------------------------------------------------


def check_folder(paths: LoopPaths, settings: LoopSettings) -> None:
    """Record the settings of a new run folder; refuse one that was made with other settings."""
    target = paths.root / SETTINGS_FILE
    if target.is_file():
        previous = LoopSettings.model_validate_json(target.read_text(encoding="utf-8"))
        if previous != settings:
            changed = sorted(k for k in LoopSettings.model_fields if getattr(previous, k) != getattr(settings, k))
            raise LoopError(f"{paths.root} was made with other settings ({', '.join(changed)} differ): "
                            "use another --out, or delete the folder to start over")
    paths.root.mkdir(parents=True, exist_ok=True)
    target.write_text(settings.model_dump_json(indent=2) + "\n", encoding="utf-8")


def run_stage(loop: Loop, stage: str) -> dict[str, Any]:
    """One stage's work; a missing service package is a LoopError that says what to install, not a traceback."""
    try:
        figures: dict[str, Any] = getattr(loop, stage)()
    except ImportError as exc:
        raise LoopError(f"stage {stage} needs {exc.name or exc}: install the services it runs "
                        "(make install, or pip install -e ./services/verifier ./services/trainer)") from exc
    return figures


def run_loop(settings: LoopSettings, out: Path, *, console: Console | None = None, quiet: bool = False,
             on_stage: Callable[[str, StageRecord, bool], None] | None = None) -> dict[str, Any]:
    """Run every stage not yet done in ``out`` and return the summary (also written to summary.json)."""
    console = console or Console(stderr=True)
    paths = LoopPaths(out)
    check_folder(paths, settings)
    stack = LazyStack(workers=settings.workers, log_dir=paths.logs, max_time_limit=settings.time_limit)
    loop = Loop(settings, paths, console, stack, quiet)
    records: dict[str, StageRecord] = {}
    from vrpcoder_verifier.stack import sigterm_as_interrupt

    with sigterm_as_interrupt():
        try:
            for index, stage in enumerate(STAGES, start=1):
                marker = paths.marker(stage)
                if marker.is_file():
                    record = StageRecord.model_validate_json(marker.read_text(encoding="utf-8"))
                    console.print(f"[bold][{index}/{len(STAGES)}] {stage}[/]: done earlier ({record.seconds:.0f} s), skipped",
                                  highlight=False)
                    skipped = True
                else:
                    console.rule(f"[bold][{index}/{len(STAGES)}] {stage}")
                    started = time.monotonic()
                    figures = run_stage(loop, stage)
                    record = StageRecord(stage=stage, seconds=round(time.monotonic() - started, 1), figures=figures)
                    marker.parent.mkdir(parents=True, exist_ok=True)
                    marker.write_text(record.model_dump_json(indent=2) + "\n", encoding="utf-8")
                    console.print(f"[bold][{index}/{len(STAGES)}] {stage}[/]: done in {record.seconds:.0f} s", highlight=False)
                    skipped = False
                records[stage] = record
                if on_stage is not None:
                    on_stage(stage, record, skipped)
        finally:
            stack.close()
    summary = build_summary(paths, settings, records)
    (paths.root / SUMMARY_FILE).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    (paths.root / SUMMARY_MARKDOWN).write_text(summary_markdown(summary), encoding="utf-8")
    return summary


def build_summary(paths: LoopPaths, settings: LoopSettings, records: dict[str, StageRecord]) -> dict[str, Any]:
    """The figures of every stage and the path of every artefact, as one JSON-able record."""
    f = {name: r.figures for name, r in records.items()}
    artefacts: dict[str, str] = {
        "settings": str(paths.root / SETTINGS_FILE),
        "dataset": str(paths.synth),
        "dataset_card": str(paths.synth / "README.md"),
        "tiny_model": str(paths.model),
        "sft_adapter": f["sft"]["adapter"],
        "grpo_adapter": f["grpo"]["adapter"],
        "grpo_reward_summary": str(paths.grpo / "reward_summary.json"),
        "sft_checkpoint": str(paths.checkpoint("sft")),
        "grpo_checkpoint": str(paths.checkpoint("grpo")),
        "benchmark": str(paths.bench / "b1.jsonl"),
        "verifier_logs": str(paths.logs),
        "summary": str(paths.root / SUMMARY_FILE),
        "summary_markdown": str(paths.root / SUMMARY_MARKDOWN),
    }
    for name, figures in f["eval"].items():
        for kind, path in figures["reports"].items():
            artefacts[f"eval_{name}_{kind}"] = path
        artefacts[f"eval_{name}_results"] = str(paths.eval_run(name) / "results.jsonl")
    return {
        "out": str(paths.root),
        "settings": settings.model_dump(mode="json"),
        "seconds": {name: r.seconds for name, r in records.items()},
        "dataset": f["synth"],
        "model": f["model"],
        "drill": {k: v for k, v in f.get("drill", {"steps": 0}).items() if k != "adapter"},
        "sft": {k: v for k, v in f["sft"].items() if k != "adapter"},
        "grpo": {k: v for k, v in f["grpo"].items() if k != "adapter"},
        "benchmark": f["bench"],
        "eval": {name: {k: v for k, v in figures.items() if k != "reports"} for name, figures in f["eval"].items()},
        "artefacts": artefacts,
    }


def summary_rows(summary: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(stage, figure, value) rows of the final table."""
    d, sft, grpo, bench = summary["dataset"], summary["sft"], summary["grpo"], summary["benchmark"]
    outcomes = ", ".join(f"{k} {v}" for k, v in d["outcomes"].items())
    rows = [
        ("synth", "samples / decisions", f"{d['samples']} / {d['decisions']} ({outcomes})"),
        ("synth", "records sft / grpo / reserved",
         f"{d['records'].get('sft', 0)} / {d['records'].get('grpo', 0)} / {d['records'].get('reserved', 0)}"),
    ]
    drill = summary.get("drill", {"steps": 0})
    if drill["steps"]:
        rows.append(("drill", f"copy loss first -> last ({drill['steps']} steps, {drill['rows']} rows)",
                     f"{_fmt(drill['loss_first'])} -> {_fmt(drill['loss_last'])}"))
    rows += [
        ("sft", f"loss first -> last ({sft['steps']} steps)", f"{_fmt(sft['loss_first'])} -> {_fmt(sft['loss_last'])}"),
        ("grpo", f"mean reward first -> last ({grpo['steps']} steps, G={grpo['num_generations']})",
         f"{_fmt(grpo['reward_first'])} -> {_fmt(grpo['reward_last'])}"),
        ("grpo", "completions / None rewards / no code", f"{grpo['completions']} / {grpo['none']} / {grpo['no_code']}"),
        ("bench", "B1 items (seeds)", f"{bench['items']} ({', '.join(map(str, bench['seeds']))})"),
    ]
    for name, e in summary["eval"].items():
        rows.append((f"eval {name}", "Pass@1 (DIFF) / build / DIFF+INJ / INJ",
                     (f"{_rate(e['pass_at_1'])} / {_rate(e['build'])} / {_rate(e['dual_pass'])} / {_rate(e['inj'])}"
                      f"  ({e['scored']} scored, {e['unscored']} unscored)")))
    total = sum(summary["seconds"].values())
    rows.append(("all", "stage seconds", ", ".join(f"{k} {v:.0f}" for k, v in summary["seconds"].items()) + f" (total {total:.0f})"))
    return rows


def summary_markdown(summary: dict[str, Any]) -> str:
    lines = [f"# Loop run {summary['out']}", "", "| stage | figure | value |", "|---|---|---|"]
    lines += [f"| {a} | {b} | {c} |" for a, b, c in summary_rows(summary)]
    lines += ["", "## Artefacts", "", "| artefact | path |", "|---|---|"]
    lines += [f"| {k} | `{v}` |" for k, v in summary["artefacts"].items()]
    return "\n".join(lines) + "\n"


def print_summary(summary: dict[str, Any], console: Console) -> None:
    table = Table(title=f"loop run {summary['out']}")
    for column in ("stage", "figure", "value"):
        table.add_column(column)
    for row in summary_rows(summary):
        table.add_row(*row)
    console.print(table)
    paths = Table(title="artefacts")
    paths.add_column("artefact")
    paths.add_column("path", overflow="fold")
    for key, value in summary["artefacts"].items():
        paths.add_row(key, value)
    console.print(paths)


# ---- CLI --------------------------------------------------------------------------------------------------

DEFAULTS = LoopSettings()
"""The embedded default run; the CLI's defaults are its values."""

app = typer.Typer(
    name="loop",
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback(invoke_without_command=True)
def loop_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="Run folder; every artefact goes under it. Re-running it resumes "
                                                          "(finished stages are skipped).")] = Path("run-out"),
    variants: Annotated[list[str] | None, typer.Option(help="Training variants to synthesise and benchmark "
                                                            f"(default {' '.join(DEFAULTS.variants)}).")] = None,
    profiles: Annotated[list[int] | None, typer.Option(help=f"Sampling profiles of the synthesis grid (default {' '.join(map(str, DEFAULTS.profiles))}).")] = None,
    seeds: Annotated[list[int] | None, typer.Option(help=f"Seeds of the synthesis grid, 0..999 (default {' '.join(map(str, DEFAULTS.seeds))}).")] = None,
    customers: Annotated[int, typer.Option(min=2, help="Customers per synthesised instance.")] = DEFAULTS.customers,
    paths: Annotated[str, typer.Option(help="Statement paths, comma-separated: scenario, condensed, strict, index.")] = ",".join(DEFAULTS.paths),
    mutants: Annotated[bool, typer.Option(help="Also send constraint-dropping mutants through synthesis (reserved set).")] = DEFAULTS.mutants,
    copy_drill_steps: Annotated[int, typer.Option(min=0, help="Copy-drill steps before SFT (batch 16): the model first "
                                                               "learns to copy the statement's data lines; 0 skips it.")] = DEFAULTS.copy_drill_steps,
    sft_steps: Annotated[int, typer.Option(min=1, help="SFT optimizer steps (batch 8).")] = DEFAULTS.sft_steps,
    grpo_steps: Annotated[int, typer.Option(min=1, help="GRPO steps (one prompt, G completions each).")] = DEFAULTS.grpo_steps,
    num_generations: Annotated[int, typer.Option(min=2, help="G: completions per GRPO prompt.")] = DEFAULTS.num_generations,
    max_new_tokens: Annotated[int, typer.Option(min=8, help="Token limit of a GRPO completion and of an eval answer.")] = DEFAULTS.max_new_tokens,
    bench_size: Annotated[int, typer.Option(min=1, help="B1 items (seeds from --bench-seed-start up, disjoint from synthesis).")] = DEFAULTS.bench_size,
    bench_seed_start: Annotated[int, typer.Option(min=1000, help="First seed of the benchmark's grid points.")] = DEFAULTS.bench_seed_start,
    evaluate: Annotated[str, typer.Option(help="Checkpoints to evaluate, comma-separated: base, sft, grpo.")] = ",".join(DEFAULTS.evaluate),
    vocab_size: Annotated[int, typer.Option(min=300, help="Cap on the code tokenizer's vocabulary.")] = DEFAULTS.vocab_size,
    model_size: Annotated[str, typer.Option(help="Model trained from scratch: smoke (tests), small (default), base (longer runs).")] = DEFAULTS.model_size,
    mutant_share: Annotated[float, typer.Option(min=0.0, max=0.99, help="Share of DIFF-blind mutants in the SFT set "
                                                                          "(default: the paper's no-injection rate, 550/7347).")] = DEFAULTS.mutant_share,
    workers: Annotated[int, typer.Option(min=1, help="Sandboxed verifier workers of the private stack.")] = DEFAULTS.workers,
    time_limit: Annotated[float, typer.Option(min=1.0, help="Gurobi time limit per solve, seconds.")] = DEFAULTS.time_limit,
    as_json: Annotated[bool, typer.Option("--json", help="Print only the summary as JSON on stdout.")] = False,
) -> None:
    """Run the loop end to end and print a summary table.

    Stages: (1) offline synthesis of a small grid through a private verifier stack (compact scripts,
    their mutants); (2) the SFT set (accepted scripts plus DIFF-blind mutants at --mutant-share) and a
    small local model with a code tokenizer (no model hub); (3) with --copy-drill-steps, a copy drill (the
    model learns to copy the statement's data lines into the script's data blocks); (4) SFT of every
    weight; (5) GRPO with the verifier's reward over HTTP; (6) plain SFT and GRPO checkpoints; (7) a small
    B1 benchmark of the same variants, profiles and size from seeds the synthesis never uses; (8) evaluation of base / SFT / GRPO through the same stack, with
    JSON, markdown and HTML reports. The stack (Redis, API, workers) is started only when a stage
    needs it and stopped at the end. The summary (dataset counts, SFT loss, GRPO rewards and None
    count, Pass@1 / build / DIFF+INJ / INJ rates, every artefact's path) is also written to
    OUT/summary.json and OUT/summary.md. Exit status: 0 done, 1 a stage failed, 2 bad options.
    """
    console = Console(stderr=True, soft_wrap=True)
    try:
        settings = LoopSettings(
            variants=tuple(variants) if variants else DEFAULTS.variants,
            profiles=tuple(profiles) if profiles else DEFAULTS.profiles, seeds=tuple(seeds) if seeds else DEFAULTS.seeds,
            customers=customers,
            paths=tuple(p.strip() for p in paths.split(",") if p.strip()), mutants=mutants, sft_steps=sft_steps,
            grpo_steps=grpo_steps, num_generations=num_generations, max_new_tokens=max_new_tokens, bench_size=bench_size,
            bench_seed_start=bench_seed_start, evaluate=tuple(e.strip() for e in evaluate.split(",") if e.strip()),
            vocab_size=vocab_size, workers=workers, time_limit=time_limit, model_size=model_size,  # type: ignore[arg-type]
            mutant_share=mutant_share, copy_drill_steps=copy_drill_steps,
        )
        _check_paths(settings.paths)
    except ValueError as exc:
        console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    try:
        with json_only(as_json):
            summary = run_loop(settings, out, console=console, quiet=as_json)
    except LoopError as exc:
        console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        console.print("[yellow]interrupted; the stack is down. Run the same command again to resume.[/]")
        raise typer.Exit(130) from None
    if as_json:
        print(json.dumps(summary))
    else:
        print_summary(summary, Console(soft_wrap=True))


def _check_paths(chosen: tuple[str, ...]) -> None:
    from vrpcoder_synth.config import SynthConfig

    SynthConfig(paths=chosen)  # type: ignore[arg-type]


def main() -> None:
    """``python -m vrpcoder_loop``: the command alone."""
    app()

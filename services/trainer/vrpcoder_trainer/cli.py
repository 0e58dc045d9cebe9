"""`vrpcoder train ...`: SFT, frontier filtering, GRPO and adapter merging from YAML run configs.

Registered through the ``vrpcoder.cli`` entry-point group. Heavy libraries (torch, transformers,
TRL) are imported inside the commands, so ``vrpcoder --help`` stays fast and an image without them
still lists the commands. Multi-GPU runs go through accelerate::

    accelerate launch --config_file "$(vrpcoder train config-path accelerate_zero2_3gpu.yaml)" \\
        -m vrpcoder_trainer grpo --config packaged:grpo_qwen3_8b.yaml
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from vrpcoder_trainer.config import (
    ConfigError,
    FrontierConfig,
    GRPORunConfig,
    MergeConfig,
    SFTRunConfig,
    describe,
    load_config,
    packaged_path,
    parse_override,
)

app = typer.Typer(
    name="train",
    help="Train the code model: LoRA SFT, frontier filtering, GRPO with the verifier as reward, adapter merging.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console(stderr=True, soft_wrap=True)

ConfigOpt = Annotated[
    str,
    typer.Option("--config", "-c", help="YAML run config: a path, or packaged:<name> for a shipped one (see `config-path`)."),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", help="Override one setting, e.g. --set run.max_steps=10 --set optim.learning_rate=1e-5 (repeatable)."),
]
ResumeOpt = Annotated[
    str | None,
    typer.Option(
        "--resume",
        help="Resume from a checkpoint: 'last' (newest checkpoint-N in run.output_dir) or a checkpoint folder.",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print only a JSON summary on stdout.")]

_KINDS: dict[str, type[Any]] = {"sft": SFTRunConfig, "grpo": GRPORunConfig, "frontier": FrontierConfig, "merge": MergeConfig}


def _fail(message: str, code: int = 2) -> typer.Exit:
    console.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def _load(path: str, kind: type[Any], overrides: list[str] | None) -> Any:
    try:
        pairs = dict(parse_override(text) for text in overrides or [])
        return load_config(path, kind, pairs)
    except ConfigError as exc:
        raise _fail(str(exc)) from None


def _resume(value: str | None) -> bool | str:
    if value is None:
        return False
    if value == "last":
        return True
    if not Path(value).is_dir():
        raise _fail(f"--resume {value}: no such checkpoint folder")
    return value


def _emit(summary: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(summary, default=str))
    else:
        for key, value in summary.items():
            console.print(f"[bold]{key}[/]: {value}", highlight=False)


@app.command()
def sft(config: ConfigOpt, set_: SetOpt = None, resume: ResumeOpt = None, json_: JsonOpt = False) -> None:
    """LoRA SFT with TRL's SFTTrainer on a synth dataset's chat records (loss on the assistant reply)."""
    from vrpcoder_trainer.sft import run_sft

    run = _load(config, SFTRunConfig, set_)
    try:
        adapter = run_sft(run, resume=_resume(resume))
    except (ConfigError, FileNotFoundError) as exc:
        raise _fail(str(exc)) from None
    _emit({"adapter": str(adapter), "output_dir": run.run.output_dir}, json_)


@app.command()
def grpo(config: ConfigOpt, set_: SetOpt = None, resume: ResumeOpt = None, json_: JsonOpt = False) -> None:
    """GRPO with TRL's GRPOTrainer; the verifier service scores each group of completions in one batch."""
    from vrpcoder_client.client import VerifierError

    from vrpcoder_trainer.grpo import run_grpo

    run = _load(config, GRPORunConfig, set_)
    try:
        adapter, trainer = run_grpo(run, resume=_resume(resume))
    except (ConfigError, FileNotFoundError, VerifierError) as exc:
        raise _fail(str(exc)) from None
    totals = vars(trainer.verifier_reward.totals)
    _emit({"adapter": str(adapter), "output_dir": run.run.output_dir, "reward_totals": totals,
           "cleared_advantages": trainer.cleared_advantages}, json_)


@app.command()
def frontier(config: ConfigOpt, set_: SetOpt = None, json_: JsonOpt = False) -> None:
    """Sample M rollouts per prompt, score them, keep the prompts whose rewards vary; write the set and a report."""
    from rich.progress import Progress
    from vrpcoder_client.client import VerifierError

    from vrpcoder_trainer.dataset import load_records
    from vrpcoder_trainer.frontier import run_frontier
    from vrpcoder_trainer.grpo import verifier_client

    run = _load(config, FrontierConfig, set_)
    try:
        total = len(load_records(run.dataset))
        with verifier_client(run.verifier) as client, Progress(console=console, disable=json_) as bar:
            task = bar.add_task("rollouts", total=total)
            report = run_frontier(run, client=client, progress=lambda: bar.advance(task))
    except (ConfigError, FileNotFoundError, VerifierError) as exc:
        raise _fail(str(exc)) from None
    if json_:
        print(report.model_dump_json())
    else:
        console.print(report.markdown(), highlight=False)
        console.print(f"written to {run.output_dir}", highlight=False)


@app.command()
def merge(config: ConfigOpt, set_: SetOpt = None, json_: JsonOpt = False) -> None:
    """Merge LoRA adapters into the base model and save it (safetensors) for a vLLM server."""
    from vrpcoder_trainer.merge import run_merge

    run = _load(config, MergeConfig, set_)
    try:
        out = run_merge(run)
    except (ConfigError, FileNotFoundError) as exc:
        raise _fail(str(exc)) from None
    _emit({"merged_model": str(out)}, json_)


@app.command("show-config")
def show_config(
    kind: Annotated[str, typer.Argument(help="sft, grpo, frontier or merge.")],
    json_: JsonOpt = False,
) -> None:
    """Every setting of a run config: its key, default and meaning."""
    record = _KINDS.get(kind)
    if record is None:
        raise _fail(f"unknown kind {kind!r}; choose one of {', '.join(_KINDS)}")
    rows = describe(record)
    if json_:
        print(json.dumps([{"key": k, "default": d, "meaning": m} for k, d, m in rows]))
        return
    table = Table("key", "default", "meaning", title=f"{kind} run config")
    for row in rows:
        table.add_row(*row)
    Console().print(table)


@app.command("config-path")
def config_path(name: Annotated[str, typer.Argument(help="A shipped file, e.g. grpo_qwen3_8b.yaml or accelerate_zero2_3gpu.yaml.")]) -> None:
    """Print the path of a shipped config file (for accelerate launch --config_file, or to copy and edit)."""
    try:
        print(packaged_path(name))
    except ConfigError as exc:
        raise _fail(str(exc)) from None


@app.command("tiny-model")
def tiny_model(
    output_dir: Annotated[Path, typer.Argument(help="Where to save the model and tokenizer.")],
    dataset: Annotated[Path, typer.Option(help="A synth dataset folder whose scripts and statements train the tokenizer.")],
    vocab_size: Annotated[int, typer.Option(help="Tokenizer vocabulary size (at most).")] = 4096,
    size: Annotated[str, typer.Option(help="Model shape: smoke (tests), small (make run), base (the longer benchmark).")] = "smoke",
    tokenizer: Annotated[str, typer.Option(help="code: digits and identifiers (the model writes scripts); "
                                                "whole-script: merges whole scripts (the model picks among them).")] = "code",
) -> None:
    """Build a small random-init causal LM + locally trained tokenizer (no model hub needed)."""
    from vrpcoder_trainer.config import DatasetSettings
    from vrpcoder_trainer.dataset import load_records
    from vrpcoder_trainer.tiny import build_tiny_model, model_spec, tokenizer_corpus

    try:
        records = load_records(DatasetSettings(path=str(dataset), config="sft"))
    except ConfigError as exc:
        raise _fail(str(exc)) from None
    corpus = tokenizer_corpus(records)
    if tokenizer not in ("code", "whole-script"):
        raise _fail(f"--tokenizer: choose code or whole-script (got {tokenizer!r})")
    try:
        spec = model_spec(size, vocab_size=vocab_size, tokenizer=tokenizer)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    out = build_tiny_model(output_dir, corpus, spec)
    print(out)

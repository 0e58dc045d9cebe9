"""`vrpcoder synth ...`: run the synthesis pipeline, and read the counts of a finished run.

Registered through the ``vrpcoder.cli`` entry-point group (see ``pyproject.toml``).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from vrpcoder.instances import Instance
from vrpcoder.samples import Sample

from vrpcoder_synth.config import SynthConfig, load_config
from vrpcoder_synth.dataset import sample_files
from vrpcoder_synth.dataset import stats as dataset_stats
from vrpcoder_synth.pipeline import RunReport, run
from vrpcoder_synth.fidelity import check_statement
from vrpcoder_synth.statements import StatementPath, write_statement
from vrpcoder_synth.verifiers import VerifierRefused
from vrpcoder_synth.components import build_components

app = typer.Typer(
    name="synth",
    help="The synthesis pipeline: statements, regenerated code and dual-verified rejection sampling.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console()
err_console = Console(stderr=True)


def _fail(message: str, code: int = 2) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def _config(path: Path | None, verifier: str | None, url: str | None) -> SynthConfig:
    try:
        config = load_config(path)
    except FileNotFoundError:
        raise _fail(f"config file {path} does not exist") from None
    except (ValidationError, ValueError) as exc:
        raise _fail(f"invalid config {path}: {exc}") from None
    updates = {}
    if verifier is not None:
        updates["backend"] = verifier
    if url is not None:
        updates["url"] = url
    if updates:
        try:
            new = config.verifier.model_validate({**config.verifier.model_dump(), **updates})
        except ValidationError as exc:
            raise _fail(str(exc)) from None
        config = config.model_copy(update={"verifier": new})
    return config


@contextmanager
def _stdout_to_stderr(active: bool) -> Iterator[None]:
    """Send whatever the run writes to file descriptor 1 (Gurobi's licence banner comes from C) to
    stderr, so that ``--json`` leaves exactly one JSON document on stdout."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _summary(report: RunReport) -> dict[str, object]:
    return {
        "out": str(report.out),
        "samples": report.samples,
        "sample_files": sample_files(report.out),
        "items": len(report.records),
        "computed_now": report.computed,
        "outcomes": dict(sorted(report.counts().items())),
        "stopped": report.stopped,
        "pending": report.pending,
        "seconds": {k: round(v, 3) for k, v in sorted(report.clock.seconds.items())},
    }


@app.command("run")
def run_command(
    config_file: Annotated[
        Path | None, typer.Option("--config", "-c", help="TOML or JSON run config (default: the embedded offline run).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", "-o", help="Output folder (the dataset; resumable).")] = Path("synth-out"),
    verifier: Annotated[
        str | None, typer.Option(help="Override the verifier backend: 'inprocess' or 'service'.")
    ] = None,
    url: Annotated[str | None, typer.Option(help="Verifier service URL (with --verifier service).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary only.")] = False,
) -> None:
    """Run (or resume) a synthesis into OUT; finished work items are never redone."""
    config = _config(config_file, verifier, url)
    try:
        components = build_components(config, out, token=os.environ.get(config.verifier.token_env))
    except ValueError as exc:
        raise _fail(str(exc)) from None
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err_console, disable=as_json, transient=False) as bars:
        grid = config.grid
        points = len(grid.variant_names()) * len(grid.profiles) * len(grid.seeds)
        stage1 = bars.add_task("stage 1: samples", total=points)
        stages = {
            "statements": bars.add_task("stage 2: statements", total=None),
            "code": bars.add_task("stage 3: code", total=None),
            "verdicts": bars.add_task("stage 4: verdicts", total=None),
        }

        def progress(stage: str, advance: int) -> None:
            if stage == "samples":
                bars.advance(stage1, advance)
            elif stage == "todo":
                for task in stages.values():
                    bars.update(task, total=advance)
            else:
                bars.advance(stages[stage], advance)

        try:
            with _stdout_to_stderr(as_json):
                report = run(
                    config, out, writer=components.writer, coder=components.coder, backend=components.backend,
                    fingerprint=components.fingerprint, progress=progress,
                )
        except VerifierRefused as exc:
            raise _fail(f"{exc} (finished items are kept; fix the setting and run again)") from None
        finally:
            components.close()
    summary = _summary(report)
    if as_json:
        typer.echo(json.dumps(summary))
    else:
        typer.echo((out / "README.md").read_text())
        console.print(summary, highlight=False)
    if report.pending or report.stopped:
        why = report.stopped or f"{report.pending} items got no answer from the verifier"
        err_console.print(f"[bold yellow]unfinished:[/] {why}; run the same command again to finish", soft_wrap=True)
        raise typer.Exit(1)


@app.command("stats")
def stats_command(
    directory: Annotated[Path, typer.Argument(help="A folder written by `vrpcoder synth run`.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON only.")] = False,
) -> None:
    """Counts of a synthesis output: records per config, outcomes, discard reasons, per variant."""
    try:
        figures = dataset_stats(directory)
    except FileNotFoundError as exc:
        raise _fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(figures))
        return
    table = Table(title=f"synthesis output {directory}")
    for column in ("variant", "accepted", "reserved", "discarded"):
        table.add_column(column)
    for variant, counts in figures["per_variant"].items():
        table.add_row(variant, *(str(counts.get(k, 0)) for k in ("accepted", "reserved", "discarded")))
    console.print(table)
    console.print({k: v for k, v in figures.items() if k != "per_variant"}, highlight=False)


@app.command("statement")
def statement_command(
    source: Annotated[Path, typer.Argument(help="A sample (`vrpcoder samples build`) or an instance JSON file.")],
    path: Annotated[
        str, typer.Option("--path", "-p", help=f"One of: {', '.join(p.value for p in StatementPath)}.")
    ] = StatementPath.SCENARIO.value,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON only (text, path, node_id_map, fidelity problems).")] = False,
) -> None:
    """Write the offline statement of one sample or instance for one path, with its fidelity check."""
    try:
        chosen = StatementPath(path)
    except ValueError:
        raise _fail(f"unknown path {path!r}; choose one of: {', '.join(p.value for p in StatementPath)}") from None
    try:
        text = source.read_text()
    except OSError as exc:
        raise _fail(f"cannot read {source}: {exc.strerror}") from None
    try:
        item: Sample | Instance = Sample.model_validate_json(text)
    except ValidationError:
        try:
            item = Instance.model_validate_json(text)
        except ValidationError as exc:
            raise _fail(f"{source} is neither a sample nor an instance: {exc.errors()[0]['msg']}") from None
    statement = write_statement(item, chosen)
    instance = item.instance if isinstance(item, Sample) else item
    report = check_statement(statement, instance)
    if as_json:
        problems = [{"kind": p.kind.value, "detail": p.detail} for p in report.problems]
        typer.echo(json.dumps({"path": chosen.value, "text": statement.text, "node_id_map": statement.node_id_map, "problems": problems}))
        return
    typer.echo(statement.text)
    if statement.node_id_map is not None:
        console.print({"node_id_map": statement.node_id_map}, highlight=False)
    console.print("fidelity: " + ("ok" if report.ok else report.summary()), highlight=False)

"""`vrpcoder eval ...`: build benchmarks, run a model on them, report, audit external labels.

Registered through the ``vrpcoder.cli`` entry-point group. Every command prints a human summary
(rich) or, with ``--json``, JSON only on stdout. Exit status: 0 done, 1 the work ran but something
is wrong (malformed lines, unscored items), 2 bad input.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from vrpcoder.cli import json_only

from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkFormatError, BenchmarkName, dump_json, read_items
from vrpcoder_eval.generation import LocalCheckpointGenerator, OpenAIChatGenerator

app = typer.Typer(
    name="eval",
    help="Evaluation: build benchmarks 1-4, run any OpenAI-compatible model (or a local checkpoint), report Pass@1 "
    "and constraint-level metrics, audit the labels of external items.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON only (machine-readable).")]
DEFAULT_BENCH = Path("eval-data/benchmarks")
DEFAULT_RUNS = Path("eval-data/runs")
"""The layout the compose service mounts (./eval-data:/data)."""


def run_folder_name(model_name: str) -> str:
    """A folder name for a model's default run folder (``org/Model-8B`` -> ``org_Model-8B``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model_name).strip("._") or "model"


def _fail(message: str, code: int = 2) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(code)


def parse_benchmarks(text: str) -> tuple[BenchmarkName, ...]:
    try:
        names = tuple(dict.fromkeys(BenchmarkName.parse(part) for part in text.split(",") if part.strip()))
    except ValueError as exc:
        raise _fail(str(exc)) from None
    if not names:
        raise _fail("--benchmarks is empty; give e.g. 1,2,3,4")
    return names


def _progress(quiet: bool) -> Progress:
    return Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err_console, disable=quiet,
    )


# ---- build ----------------------------------------------------------------------------------------


@app.command()
def build(
    out: Annotated[Path, typer.Argument(help="Benchmark folder to write (b1.jsonl .. b4.jsonl, samples/).")] = DEFAULT_BENCH,
    benchmarks: Annotated[str, typer.Option(help="Which to build: any of 1,2,3 (4 comes from --nlco/--qa files).")] = "1,2,3",
    b1_size: Annotated[int, typer.Option(min=1, help="Items of benchmark 1 (paper: 310).")] = 310,
    b2_size: Annotated[int, typer.Option(min=1, help="Items of benchmark 2 (paper: 66).")] = 66,
    library_dir: Annotated[Path, typer.Option(help="Folder of library instance files for benchmark 3.")] = Path("tests/data/instances"),
    b3_sizes: Annotated[str, typer.Option(help="Customers kept per library sub-instance, comma-separated.")] = "5,6,7,8,9,10,11,12",
    b3_limit: Annotated[int | None, typer.Option(min=1, help="At most this many benchmark-3 items.")] = None,
    seed_start: Annotated[int, typer.Option(min=0, help="First seed of benchmarks 1-2 (training uses small seeds).")] = 1_000_000,
    statement_path: Annotated[str, typer.Option(help="Synth statement path: scenario, condensed, strict, index:one_based, ...")] = "scenario",
    time_limit: Annotated[float, typer.Option(min=1.0, help="Gold solve time limit per instance, seconds.")] = 60.0,
    nlco: Annotated[list[Path] | None, typer.Option(help="NLCO routing file (JSONL or JSON array) for benchmark 4; repeatable.")] = None,
    qa: Annotated[list[Path] | None, typer.Option(help="SIRL/OptMATH/IndustryOR/MAMO question+answer file for benchmark 4; repeatable.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Build benchmark files: B1/B2 from the sampler, B3 from library files, B4 from external files."""
    from vrpcoder_eval.builders import build_b1, build_b2, build_b3
    from vrpcoder_eval.external import ExternalFormat, read_external
    from vrpcoder_eval.prompts import prompt_ref
    from vrpcoder_eval.statements import default_writer

    names = parse_benchmarks(benchmarks)
    if BenchmarkName.B4 in names and not (nlco or qa):
        raise _fail("benchmark 4 is built from user files: pass --nlco FILE and/or --qa FILE")
    if BenchmarkName.B3 in names and not library_dir.is_dir():
        raise _fail(f"{library_dir}: no such folder (--library-dir)")
    try:
        sizes = tuple(int(s) for s in b3_sizes.split(",") if s.strip())
        writer = default_writer(statement_path)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    store = BenchmarkDir(out)
    summary: dict[str, object] = {"folder": str(out), "benchmarks": {}}
    problems: list[str] = []
    with json_only(as_json), _progress(as_json) as bar:
        for name in names:
            if name is BenchmarkName.B4:
                continue
            total = {BenchmarkName.B1: b1_size, BenchmarkName.B2: b2_size}.get(name)
            task = bar.add_task(f"building {name.value}", total=total)
            tick = lambda n, t=task: bar.advance(t, n)  # noqa: E731 - a progress callback
            if name is BenchmarkName.B1:
                result = build_b1(store, writer, b1_size, seed_start=seed_start, time_limit=time_limit, progress=tick)
            elif name is BenchmarkName.B2:
                result = build_b2(store, writer, b2_size, seed_start=seed_start, time_limit=time_limit, progress=tick)
            else:
                result = build_b3(store, writer, library_dir, sizes=sizes, time_limit=time_limit, limit=b3_limit, progress=tick)
            bar.update(task, completed=len(result.items), total=len(result.items))
            store.write(name, result.items)
            summary["benchmarks"][name.value] = {  # type: ignore[index]
                "items": len(result.items),
                "by_source": _count(i.source for i in result.items),
                "by_variant": _count(i.variant or "unknown" for i in result.items),
                "discarded": [{"key": d.key, "reason": d.reason} for d in result.discards],
            }
    if BenchmarkName.B4 in names:
        items = []
        filtered = 0
        for fmt, files in ((ExternalFormat.NLCO, nlco or []), (ExternalFormat.QA, qa or [])):
            for path in files:
                if not path.is_file():
                    raise _fail(f"{path}: no such file")
                report = read_external(path, fmt, prompt=prompt_ref())
                items += report.items
                filtered += report.filtered
                problems += [str(p) for p in report.problems]
        store.write(BenchmarkName.B4, items)
        summary["benchmarks"]["b4"] = {"items": len(items), "by_source": _count(i.source for i in items),  # type: ignore[index]
                                       "not_routing": filtered, "malformed": problems}
    dump_json(out / "manifest.json", summary)
    if as_json:
        print(json.dumps(summary))
    else:
        _print_build(summary)
    if problems:
        raise typer.Exit(1)


def _count(values: object) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in values:  # type: ignore[attr-defined]
        counts[v] = counts.get(v, 0) + 1
    return dict(sorted(counts.items()))


def _print_build(summary: dict[str, object]) -> None:
    table = Table(title=f"benchmarks in {summary['folder']}")
    for col in ("benchmark", "items", "by source", "discarded / malformed"):
        table.add_column(col)
    for name, info in summary["benchmarks"].items():  # type: ignore[attr-defined]
        bad = info.get("discarded", info.get("malformed", []))
        table.add_row(name, str(info["items"]), ", ".join(f"{k}: {v}" for k, v in info["by_source"].items()), str(len(bad)))
    console.print(table)
    for name, info in summary["benchmarks"].items():  # type: ignore[attr-defined]
        for bad in info.get("discarded", [])[:20]:
            console.print(f"  {name} discarded {bad['key']}: {bad['reason']}", highlight=False)
        for line in info.get("malformed", []):
            err_console.print(f"  {name} malformed: {line}", highlight=False)


@app.command()
def check(
    files: Annotated[list[Path], typer.Argument(help="Benchmark JSONL files to validate.")],
    as_json: JsonOpt = False,
) -> None:
    """Validate benchmark files: every malformed line is reported with its number."""
    out = {}
    bad = 0
    for path in files:
        if not path.is_file():
            raise _fail(f"{path}: no such file")
        items, problems = read_items(path)
        bad += len(problems)
        out[str(path)] = {"items": len(items), "problems": [str(p) for p in problems]}
    if as_json:
        print(json.dumps(out))
    else:
        for path, info in out.items():
            console.print(f"{path}: {info['items']} valid item(s), {len(info['problems'])} malformed line(s)", highlight=False)
            for line in info["problems"]:
                console.print(f"  {line}", highlight=False)
    if bad:
        raise typer.Exit(1)


# ---- run ------------------------------------------------------------------------------------------


@app.command()
def run(
    model: Annotated[str, typer.Option(help="OpenAI-compatible API root (http://host:8000/v1) or a local checkpoint folder.")],
    out: Annotated[Path | None, typer.Option(help="Run folder (results.jsonl, run.json; default eval-data/runs/<model name>); "
                                                  "re-running it resumes.")] = None,
    bench_dir: Annotated[Path, typer.Option(help="Benchmark folder written by `vrpcoder eval build`.")] = DEFAULT_BENCH,
    benchmarks: Annotated[str, typer.Option(help="Benchmarks to run, e.g. 1,2,3,4.")] = "1,2,3,4",
    model_name: Annotated[str | None, typer.Option(help="Model name to request (default: the server's first model).")] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the endpoint's API key.")] = "OPENAI_API_KEY",
    prompt_file: Annotated[Path | None, typer.Option(help="A baseline's own system prompt (default: the shared code prompt).")] = None,
    label: Annotated[str | None, typer.Option(help="Name of this run in reports.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Model requests in flight at once.")] = 8,
    max_tokens: Annotated[int, typer.Option(min=1, help="Completion token limit.")] = 4096,
    time_limit: Annotated[float | None, typer.Option(min=1.0, help="Solver time limit per solve in seconds (paper: 600).")] = None,
    tolerance: Annotated[float, typer.Option(min=0.0, help="Absolute objective tolerance of Pass@1.")] = 1e-3,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many items per benchmark (smoke runs).")] = None,
    verifier_url: Annotated[str | None, typer.Option(help="Verifier API (default: $VRPCODER_VERIFIER_URL).")] = None,
    verifier_token_env: Annotated[str, typer.Option(help="Environment variable holding the verifier token.")] = "VRPCODER_VERIFIER_TOKEN",
    cache_dir: Annotated[Path | None, typer.Option(help="Completion cache (default: RUN_DIR/completions).")] = None,
    batch_size: Annotated[int, typer.Option(min=1, help="Candidates per verifier batch request.")] = 16,
    as_json: JsonOpt = False,
) -> None:
    """Ask the model every item (greedy), verify each script, write results.jsonl; resumable."""
    from vrpcoder_client.client import AsyncVerifierClient, VerifierError

    from vrpcoder_eval.generation import CachedGenerator, CompletionCache, DecodingConfig, GenerationError
    from vrpcoder_eval.prompts import prompt_from_file, shared_prompt
    from vrpcoder_eval.runner import RunConfig, Runner, RunProgress

    names = parse_benchmarks(benchmarks)
    url = verifier_url or os.environ.get("VRPCODER_VERIFIER_URL")
    if not url:
        raise _fail("no verifier: pass --verifier-url or set VRPCODER_VERIFIER_URL")
    if not bench_dir.is_dir():
        raise _fail(f"{bench_dir}: no such benchmark folder (build it with `vrpcoder eval build`)")
    missing = [n.value for n in names if not BenchmarkDir(bench_dir).path(n).is_file()]
    if missing:
        raise _fail(f"{bench_dir} has no {', '.join(missing)} (build them, or pick --benchmarks)")
    try:
        prompt = prompt_from_file(prompt_file) if prompt_file is not None else shared_prompt()
    except (OSError, ValueError) as exc:
        raise _fail(str(exc)) from None

    async def go() -> tuple[Path, Runner]:
        generator = _generator(model, model_name, os.environ.get(api_key_env))
        resolved = await generator.resolve_model()
        run_dir = out or DEFAULT_RUNS / run_folder_name(label or resolved)
        config = RunConfig(
            model=model, model_name=resolved, benchmark_dir=str(bench_dir.resolve()), benchmarks=names,
            system_prompt_origin=prompt.origin, system_prompt_sha256=prompt.sha256,
            decoding=DecodingConfig(max_tokens=max_tokens), time_limit=time_limit, diff_tolerance=tolerance,
            limit=limit, label=label,
        )
        cache = CompletionCache(cache_dir or run_dir / "completions")
        verifier = AsyncVerifierClient(url, os.environ.get(verifier_token_env), timeout=max(120.0, 4 * (time_limit or 60.0)))
        with _progress(as_json) as bar:
            task = bar.add_task("verified", total=None)
            progress = RunProgress(on_update=lambda p: bar.update(task, total=p.total, completed=p.verified + p.skipped))
            runner = Runner(config, run_dir, CachedGenerator(generator, cache), verifier, prompt, concurrency=concurrency,
                            batch_size=batch_size, progress=progress)
            try:
                await runner.run()
            finally:
                await verifier.aclose()
                await generator.aclose()
        return run_dir, runner

    try:
        with json_only(as_json):
            run_dir, runner = asyncio.run(go())
    except (GenerationError, VerifierError, ValueError, FileNotFoundError, BenchmarkFormatError) as exc:
        raise _fail(str(exc)) from None
    _finish_run(run_dir, runner.warnings, as_json)


def _generator(model: str, model_name: str | None, api_key: str | None) -> OpenAIChatGenerator | LocalCheckpointGenerator:
    if model.startswith(("http://", "https://")):
        return OpenAIChatGenerator(model, model_name, api_key=api_key)
    path = Path(model)
    if not path.is_dir():
        raise ValueError(f"--model {model!r} is neither an http(s) URL nor a checkpoint folder")
    return LocalCheckpointGenerator(path)


def _finish_run(out: Path, warnings: list[str], as_json: bool) -> None:
    from vrpcoder_eval.metrics import compute
    from vrpcoder_eval.report import rate_text, write_reports
    from vrpcoder_eval.runner import load_run

    run_config, results = load_run(out)
    metrics = compute(run_config.display_name, results, tolerance=run_config.diff_tolerance)
    paths = write_reports(out, metrics)
    if as_json:
        print(json.dumps({"run_dir": str(out), "metrics": metrics.model_dump(mode="json"), "reports": {k: str(v) for k, v in paths.items()},
                          "warnings": warnings}))
    else:
        for w in warnings:
            err_console.print(f"[yellow]warning:[/] {w}", highlight=False)
        table = Table(title=f"{metrics.label}: {metrics.scored} scored, {metrics.unscored} unscored")
        for col in ("benchmark", "items", "Pass@1 % [95% CI]", "DIFF+INJ %", "build %"):
            table.add_column(col)
        for g in (*metrics.benchmarks, metrics.overall):
            table.add_row(g.key, str(g.items), rate_text(g.pass_at_1), f"{100 * (g.dual_pass.rate or 0):.2f}", f"{100 * (g.build.rate or 0):.2f}")
        console.print(table)
        console.print(f"reports: {paths['markdown']}  {paths['html']}", highlight=False)
    if metrics.unscored:
        raise typer.Exit(1)


# ---- report ---------------------------------------------------------------------------------------


@app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by `vrpcoder eval run`.")],
    compare: Annotated[Path | None, typer.Option("--compare", help="Another run folder: what changed (items that flipped).")] = None,
    audit: Annotated[Path | None, typer.Option(help="An audit JSON from `vrpcoder eval audit`: Pass@1 against audited labels too.")] = None,
    out: Annotated[Path | None, typer.Option(help="Where to write metrics.json, report.md, report.html (default: RUN_DIR).")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Metrics and reports (JSON, markdown, self-contained HTML with plots) of a run."""
    from vrpcoder_eval.audit import AuditReport
    from vrpcoder_eval.metrics import compare as compare_runs
    from vrpcoder_eval.metrics import compute
    from vrpcoder_eval.report import write_reports
    from vrpcoder_eval.runner import load_run

    try:
        config, results = load_run(run_dir)
        audit_report = AuditReport.model_validate_json(audit.read_text()) if audit is not None else None
        metrics = compute(config.display_name, results, tolerance=config.diff_tolerance,
                          audited=audit_report.audited_labels() if audit_report else None)
        comparison = None
        if compare is not None:
            other_config, other_results = load_run(compare)
            comparison = compare_runs(other_config.display_name, other_results, config.display_name, results)
    except (FileNotFoundError, ValueError) as exc:
        raise _fail(str(exc)) from None
    paths = write_reports(out or run_dir, metrics, comparison, audit_report)
    if as_json:
        payload = {"metrics": metrics.model_dump(mode="json"), "reports": {k: str(v) for k, v in paths.items()}}
        if comparison is not None:
            payload["comparison"] = comparison.model_dump(mode="json")
        print(json.dumps(payload))
    else:
        console.print(f"{metrics.label}: Pass@1 {100 * (metrics.overall.pass_at_1.rate or 0):.2f}% over {metrics.scored} items", highlight=False)
        if comparison is not None:
            console.print(f"vs {comparison.base}: {len(comparison.gained)} gained, {len(comparison.lost)} lost on {comparison.common} common items", highlight=False)
        console.print(f"reports: {paths['markdown']}  {paths['html']}", highlight=False)


# ---- audit ----------------------------------------------------------------------------------------


@app.command()
def audit(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder whose b4.jsonl holds the external items.")],
    out: Annotated[Path, typer.Option(help="Audit JSON to write.")],
    instances: Annotated[Path | None, typer.Option(help="Folder of <item_id>.json instances for exact re-solves.")] = None,
    scripts: Annotated[Path | None, typer.Option(help="Folder of <item_id>.py or <item_id>/*.py re-solve scripts.")] = None,
    auditor_model: Annotated[str | None, typer.Option(help="OpenAI-compatible API root of a model to sample re-solves from.")] = None,
    auditor_model_name: Annotated[str | None, typer.Option(help="Model name at --auditor-model.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the auditor endpoint's API key.")] = "OPENAI_API_KEY",
    samples: Annotated[int, typer.Option(min=1, help="Re-solves sampled from the auditor model per item.")] = 5,
    temperature: Annotated[float, typer.Option(min=0.0, help="Sampling temperature of the auditor model.")] = 0.7,
    min_votes: Annotated[int, typer.Option(min=1, help="Agreeing re-solves needed to flag (exact re-solves decide alone).")] = 3,
    tolerance: Annotated[float, typer.Option(min=0.0, help="Absolute tolerance when comparing values.")] = 1e-3,
    time_limit: Annotated[float, typer.Option(min=1.0, help="Solver time limit per re-solve, seconds.")] = 60.0,
    verifier_url: Annotated[str | None, typer.Option(help="Verifier API for scripts/model re-solves (default: $VRPCODER_VERIFIER_URL).")] = None,
    verifier_token_env: Annotated[str, typer.Option(help="Environment variable holding the verifier token.")] = "VRPCODER_VERIFIER_TOKEN",
    as_json: JsonOpt = False,
) -> None:
    """Re-solve external items and flag published answers a consistent majority contradicts."""
    from vrpcoder_client.client import AsyncVerifierClient

    from vrpcoder_eval.audit import audit_items
    from vrpcoder_eval.generation import OpenAIChatGenerator
    from vrpcoder_eval.prompts import shared_prompt

    store = BenchmarkDir(bench_dir)
    try:
        items = store.items(BenchmarkName.B4)
    except (FileNotFoundError, BenchmarkFormatError) as exc:
        raise _fail(str(exc)) from None
    url = verifier_url or os.environ.get("VRPCODER_VERIFIER_URL")
    if (scripts is not None or auditor_model is not None) and not url:
        raise _fail("scripts and model re-solves run in the verifier: pass --verifier-url or set VRPCODER_VERIFIER_URL")
    for folder, flag in ((instances, "--instances"), (scripts, "--scripts")):
        if folder is not None and not folder.is_dir():
            raise _fail(f"{folder}: no such folder ({flag})")

    async def go() -> object:
        verifier = AsyncVerifierClient(url, os.environ.get(verifier_token_env)) if url else None
        generator = OpenAIChatGenerator(auditor_model, auditor_model_name, api_key=os.environ.get(api_key_env)) if auditor_model else None
        try:
            return await audit_items(
                items, instances=instances, scripts=scripts, verifier=verifier, generator=generator,
                prompt=shared_prompt(), samples=samples, temperature=temperature, tolerance=tolerance,
                min_votes=min_votes, time_limit=time_limit,
            )
        finally:
            if verifier is not None:
                await verifier.aclose()
            if generator is not None:
                await generator.aclose()

    try:
        with json_only(as_json):
            result = asyncio.run(go())
    except ValueError as exc:
        raise _fail(str(exc)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(result.model_dump_json(indent=2), encoding="utf-8")  # type: ignore[attr-defined]
    if as_json:
        print(result.model_dump_json())  # type: ignore[attr-defined]
    else:
        for line in result.markdown_lines():  # type: ignore[attr-defined]
            console.print(line, highlight=False, markup=False)
        console.print(f"written: {out}", highlight=False)

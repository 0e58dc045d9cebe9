"""`vrpcoder eval ...`: build benchmarks, run a model on them or score answers already made, report,
audit external labels. The manual is docs/eval.md.

Registered through the ``vrpcoder.cli`` entry-point group. Every command prints a human summary
(rich) or, with ``--json``, JSON only on stdout. Exit status: 0 done, 1 the work ran but something
is wrong (malformed lines, unscored items), 2 bad input, 3 no verifier (the private stack did not
come up, or no sandbox for untrusted code).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from vrpcoder.cli import json_only

from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkFormatError, BenchmarkName, dump_json, read_items
from vrpcoder_eval.generation import LocalCheckpointGenerator, OpenAIChatGenerator
from vrpcoder_eval.service import StackOptions

if TYPE_CHECKING:
    from vrpcoder_client.client import AsyncVerifierClient

    from vrpcoder_eval.runner import Runner, RunProgress

T = TypeVar("T")

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
    variants: Annotated[list[str] | None, typer.Option("--variants", help="Only these variants in B1 (training) and B2 "
                                                       "(held-out), e.g. --variants CVRP TSP OVRPHTW.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Build benchmark files: B1/B2 from the sampler, B3 from library files, B4 from external files.

    B4 keeps the routing problems of the files; every record it drops is listed with its id and
    reason in manifest.json (and the JSON output). A record's ``instance`` is stored under
    instances/ for the label audit."""
    from vrpcoder_eval.builders import BUILDERS, BuildRequest
    from vrpcoder_eval.external import ExternalFormat, read_external
    from vrpcoder_eval.prompts import prompt_ref
    from vrpcoder_eval.statements import default_writer

    names = parse_benchmarks(benchmarks)
    if BenchmarkName.B4 in names and not (nlco or qa):
        raise _fail("benchmark 4 is built from user files: pass --nlco FILE and/or --qa FILE")
    if BenchmarkName.B3 in names and not library_dir.is_dir():
        raise _fail(f"{library_dir}: no such folder (--library-dir)")
    from vrpcoder_eval.builders import chosen_variants

    try:
        sizes = tuple(int(s) for s in b3_sizes.split(",") if s.strip())
        writer = default_writer(statement_path)
        for sampled in (BenchmarkName.B1, BenchmarkName.B2):
            if sampled in names and variants:
                chosen_variants(sampled, variants)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    store = BenchmarkDir(out)
    request = BuildRequest(store, writer, b1_size=b1_size, b2_size=b2_size, library_dir=library_dir, b3_sizes=sizes,
                           b3_limit=b3_limit, seed_start=seed_start, time_limit=time_limit, variants=variants)
    summary: dict[str, object] = {"folder": str(out), "benchmarks": {}}
    problems: list[str] = []
    with json_only(as_json), _progress(as_json) as bar:
        for name in names:
            builder = BUILDERS.get(name)
            if builder is None:
                continue
            task = bar.add_task(f"building {name.value}", total=builder.total(request))
            tick = lambda n, t=task: bar.advance(t, n)  # noqa: E731 - a progress callback
            result = builder.build(request, tick)
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
        dropped: list[dict[str, object]] = []
        stored = 0
        for fmt, files in ((ExternalFormat.NLCO, nlco or []), (ExternalFormat.QA, qa or [])):
            for path in files:
                if not path.is_file():
                    raise _fail(f"{path}: no such file")
                report = read_external(path, fmt, prompt=prompt_ref())
                items += report.items
                dropped += [d.as_json() for d in report.dropped]
                problems += [str(p) for p in report.problems]
                for item_id, instance in report.instances.items():
                    store.save_instance(item_id, instance)
                    stored += 1
        store.write(BenchmarkName.B4, items)
        summary["benchmarks"]["b4"] = {  # type: ignore[index]
            "items": len(items), "by_source": _count(i.source for i in items),
            "by_variant": _count(i.variant or "not told" for i in items), "instances": stored,
            "not_routing": len(dropped), "dropped": dropped, "malformed": problems,
        }
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
        dropped = info.get("dropped", [])
        for record in dropped[:20]:
            console.print(f"  {name} dropped {record['file']}:{record['line']} (id {record['id']}): {record['reason']}",
                          highlight=False)
        if len(dropped) > 20:
            console.print(f"  ... {len(dropped) - 20} more dropped records, each listed in {summary['folder']}/manifest.json",
                          highlight=False)
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


WorkersOpt = Annotated[int, typer.Option(min=1, help="Workers of the private verifier stack (when no --verifier-url).")]
UnsandboxedOpt = Annotated[bool, typer.Option(
    "--allow-unsandboxed", help="Private stack only: where no sandbox works, run candidates in-process (trusted code only).")]
VerifierUrlOpt = Annotated[str | None, typer.Option(
    help="Verifier API (default: $VRPCODER_VERIFIER_URL; neither: a private stack is started for the command).")]
TokenEnvOpt = Annotated[str, typer.Option(help="Environment variable holding the verifier token.")]
TimeLimitOpt = Annotated[float | None, typer.Option(min=1.0, help="Solver time limit per solve in seconds (paper: 600).")]
ToleranceOpt = Annotated[float, typer.Option(min=0.0, help="Absolute objective tolerance of Pass@1.")]
LimitOpt = Annotated[int | None, typer.Option(min=1, help="At most this many items per benchmark (smoke runs).")]
BatchOpt = Annotated[int, typer.Option(min=1, help="Candidates per verifier batch request.")]


def _endpoint_options(workers: int, allow_unsandboxed: bool, time_limit: float | None, run_dir: Path | None) -> StackOptions:
    return StackOptions(workers=workers, allow_unsandboxed=allow_unsandboxed, time_limit=time_limit,
                        log_dir=None if run_dir is None else run_dir / "verifier-logs")


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
    time_limit: TimeLimitOpt = None,
    tolerance: ToleranceOpt = 1e-3,
    limit: LimitOpt = None,
    verifier_url: VerifierUrlOpt = None,
    verifier_token_env: TokenEnvOpt = "VRPCODER_VERIFIER_TOKEN",
    workers: WorkersOpt = 2,
    allow_unsandboxed: UnsandboxedOpt = False,
    cache_dir: Annotated[Path | None, typer.Option(help="Completion cache (default: RUN_DIR/completions).")] = None,
    batch_size: BatchOpt = 16,
    as_json: JsonOpt = False,
) -> None:
    """Ask the model every item (greedy), verify each script, write results.jsonl and the reports; resumable.

    Without --verifier-url (or VRPCODER_VERIFIER_URL) a private verifier stack is started for the run."""
    from vrpcoder_eval.generation import CachedGenerator, CompletionCache, DecodingConfig
    from vrpcoder_eval.prompts import prompt_from_file, shared_prompt
    from vrpcoder_eval.runner import RunConfig, Runner

    names = parse_benchmarks(benchmarks)
    _check_bench(bench_dir, names)
    try:
        prompt = prompt_from_file(prompt_file) if prompt_file is not None else shared_prompt()
    except (OSError, ValueError) as exc:
        raise _fail(str(exc)) from None

    async def go(url: str, token: str | None) -> tuple[Path, Runner]:
        generator = _generator(model, model_name, os.environ.get(api_key_env))
        try:
            resolved = await generator.resolve_model()
            run_dir = out or DEFAULT_RUNS / run_folder_name(label or resolved)
            config = RunConfig(
                model=model, model_name=resolved, benchmark_dir=str(bench_dir.resolve()), benchmarks=names,
                system_prompt_origin=prompt.origin, system_prompt_sha256=prompt.sha256,
                decoding=DecodingConfig(max_tokens=max_tokens), time_limit=time_limit, diff_tolerance=tolerance,
                limit=limit, label=label,
            )
            cache = CompletionCache(cache_dir or run_dir / "completions")
            return run_dir, await _drive(
                lambda verifier, progress: Runner(config, run_dir, CachedGenerator(generator, cache), verifier, prompt,
                                                  concurrency=concurrency, batch_size=batch_size, progress=progress),
                url, token, time_limit, as_json)
        finally:
            await generator.aclose()

    run_dir, runner = _with_verifier(go, verifier_url, verifier_token_env, workers, allow_unsandboxed, time_limit, out, as_json)
    _finish_run(run_dir, runner.warnings, as_json)


def _check_bench(bench_dir: Path, names: tuple[BenchmarkName, ...]) -> None:
    if not bench_dir.is_dir():
        raise _fail(f"{bench_dir}: no such benchmark folder (build it with `vrpcoder eval build`)")
    missing = [n.value for n in names if not BenchmarkDir(bench_dir).path(n).is_file()]
    if missing:
        raise _fail(f"{bench_dir} has no {', '.join(missing)} (build them, or pick --benchmarks)")


async def _drive(make_runner: Callable[[AsyncVerifierClient, RunProgress], Runner], url: str, token: str | None,
                 time_limit: float | None, as_json: bool) -> Runner:
    """Run a runner against the verifier at ``url`` with a progress bar; returns the runner."""
    from vrpcoder_client.client import AsyncVerifierClient
    from vrpcoder_eval.runner import RunProgress

    verifier = AsyncVerifierClient(url, token, timeout=max(120.0, 4 * (time_limit or 60.0)))
    try:
        with _progress(as_json) as bar:
            task = bar.add_task("verified", total=None)
            progress = RunProgress(on_update=lambda p: bar.update(task, total=p.total, completed=p.verified + p.skipped))
            runner = make_runner(verifier, progress)
            await runner.run()
        return runner
    finally:
        await verifier.aclose()


def _with_verifier(go: Callable[[str, str | None], Coroutine[Any, Any, T]], verifier_url: str | None, token_env: str,
                   workers: int, allow_unsandboxed: bool, time_limit: float | None, run_dir: Path | None, as_json: bool) -> T:
    """``go(url, token)`` against the named service or a private stack; input and service errors exit cleanly."""
    from vrpcoder_client.client import VerifierError

    from vrpcoder_eval.generation import GenerationError
    from vrpcoder_eval.service import ServiceError, verifier_endpoint

    url = verifier_url or os.environ.get("VRPCODER_VERIFIER_URL") or None
    options = _endpoint_options(workers, allow_unsandboxed, time_limit, run_dir)
    try:
        with json_only(as_json), verifier_endpoint(url, os.environ.get(token_env), options,
                                                   say=lambda m: err_console.print(m, highlight=False)) as endpoint:
            return asyncio.run(go(endpoint.url, endpoint.token))
    except ServiceError as exc:
        raise _fail(str(exc), code=3) from None
    except (GenerationError, VerifierError, ValueError, FileNotFoundError, BenchmarkFormatError) as exc:
        raise _fail(str(exc)) from None


@app.command()
def score(
    answers: Annotated[Path, typer.Argument(help="A JSONL file of completions, or a folder of <item id>.py scripts.")],
    bench_dir: Annotated[Path, typer.Option(help="Benchmark folder written by `vrpcoder eval build`.")] = DEFAULT_BENCH,
    benchmarks: Annotated[str | None, typer.Option(help="Benchmarks to score, e.g. 1,3 (default: every one in --bench-dir).")] = None,
    samples: Annotated[Path | None, typer.Option(help="Score against a folder of verifier samples instead of a benchmark "
                                                      "(synth's samples/, `vrpcoder samples build -o DIR`).")] = None,
    out: Annotated[Path | None, typer.Option(help="Run folder (default eval-data/runs/<label or input name>); re-running "
                                                  "it resumes, scoring only new or changed answers.")] = None,
    label: Annotated[str | None, typer.Option(help="Name of this run in reports (default: the input's name).")] = None,
    missing: Annotated[str, typer.Option(help="Items the answers do not cover: 'fail' scores them as failures (rates "
                                              "over the whole benchmark), 'skip' leaves them out.")] = "fail",
    time_limit: TimeLimitOpt = None,
    tolerance: ToleranceOpt = 1e-3,
    limit: LimitOpt = None,
    verifier_url: VerifierUrlOpt = None,
    verifier_token_env: TokenEnvOpt = "VRPCODER_VERIFIER_TOKEN",
    workers: WorkersOpt = 2,
    allow_unsandboxed: UnsandboxedOpt = False,
    batch_size: BatchOpt = 16,
    as_json: JsonOpt = False,
) -> None:
    """Score answers you already have (a JSONL of completions or a folder of scripts) exactly as `eval run`
    scores a model: same results.jsonl, metrics.json, report.md and report.html; resumable.

    A completion line names its item by item_id / id, sample_id or its prompt (the statement, or chat
    messages), and holds the answer in completion / response / output / text, messages, or code.
    Without --verifier-url (or VRPCODER_VERIFIER_URL) a private verifier stack is started."""
    from vrpcoder_eval.prompts import SystemPrompt
    from vrpcoder_eval.runner import RunConfig, Runner
    from vrpcoder_eval.scoring import MissingPolicy, import_samples, read_completions, read_scripts

    if not answers.exists():
        raise _fail(f"{answers}: no such file or folder")
    try:
        policy = MissingPolicy(missing)
    except ValueError:
        raise _fail(f"--missing {missing!r}: choose fail or skip") from None
    name = label or answers.stem
    run_dir = out or DEFAULT_RUNS / run_folder_name(name)
    if samples is not None:
        if not samples.is_dir():
            raise _fail(f"{samples}: no such folder (--samples)")
        imported = import_samples(samples, run_dir / "benchmark")
        store, names, bench_problems = imported.store, (BenchmarkName.SAMPLES,), [str(p) for p in imported.problems]
    else:
        _check_bench(bench_dir, ())
        store = BenchmarkDir(bench_dir)
        names = parse_benchmarks(benchmarks) if benchmarks else tuple(n for n in store.available() if n is not BenchmarkName.SAMPLES)
        _check_bench(bench_dir, names)
        bench_problems = []
    try:
        items = [item for n in names for item in (store.items(n) if limit is None else store.items(n)[:limit])]
    except (FileNotFoundError, BenchmarkFormatError) as exc:
        raise _fail(str(exc)) from None
    recorded = read_scripts(answers, items, name) if answers.is_dir() else read_completions(answers, items, name)
    unanswered = recorded.missing(items)
    if not recorded.answers:
        raise _fail(f"{answers}: no answer matches an item of {store.root}"
                    + "".join(f"\n  {p}" for p in recorded.problems[:10]))
    scored_ids = None if policy is MissingPolicy.FAIL else {i.id for i in items} - set(unanswered)
    not_sent = SystemPrompt("", "none: answers scored as given")
    config = RunConfig(
        model=f"{'scripts' if answers.is_dir() else 'completions'}:{answers.resolve()}", model_name=name,
        benchmark_dir=str(store.root.resolve()), benchmarks=names, system_prompt_origin=not_sent.origin,
        system_prompt_sha256=not_sent.sha256, time_limit=time_limit, diff_tolerance=tolerance, limit=limit, label=label,
        only=None if scored_ids is None else tuple(sorted(scored_ids)),
    )

    async def go(url: str, token: str | None) -> Runner:
        return await _drive(
            lambda verifier, progress: Runner(config, run_dir, None, verifier, not_sent, batch_size=batch_size,
                                              progress=progress, source=recorded),
            url, token, time_limit, as_json)

    runner = _with_verifier(go, verifier_url, verifier_token_env, workers, allow_unsandboxed, time_limit, run_dir, as_json)
    warnings = list(runner.warnings)
    warnings += [f"{p}" for p in [*bench_problems, *recorded.problems]]
    if unanswered:
        verb = "scored as failures (no answer)" if policy is MissingPolicy.FAIL else "left out (--missing skip)"
        warnings.append(f"{len(unanswered)} item(s) have no answer in {answers.name} and were {verb}: "
                        + ", ".join(unanswered[:10]) + (" ..." if len(unanswered) > 10 else ""))
    _finish_run(run_dir, warnings, as_json, extra={"unanswered": unanswered, "problems": [str(p) for p in recorded.problems],
                                                   "answers": len(recorded.answers)})
    if recorded.problems or bench_problems:
        raise typer.Exit(1)


def _generator(model: str, model_name: str | None, api_key: str | None) -> OpenAIChatGenerator | LocalCheckpointGenerator:
    if model.startswith(("http://", "https://")):
        return OpenAIChatGenerator(model, model_name, api_key=api_key)
    path = Path(model)
    if not path.is_dir():
        raise ValueError(f"--model {model!r} is neither an http(s) URL nor a checkpoint folder")
    return LocalCheckpointGenerator(path)


def _finish_run(out: Path, warnings: list[str], as_json: bool, extra: dict[str, object] | None = None) -> None:
    from vrpcoder_eval.metrics import compute
    from vrpcoder_eval.report import rate_text, write_reports
    from vrpcoder_eval.runner import load_run

    run_config, results = load_run(out)
    metrics = compute(run_config.display_name, results, tolerance=run_config.diff_tolerance)
    paths = write_reports(out, metrics)
    if as_json:
        print(json.dumps({"run_dir": str(out), "metrics": metrics.model_dump(mode="json"), "reports": {k: str(v) for k, v in paths.items()},
                          "warnings": warnings, **(extra or {})}))
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
                          audited=audit_report.audited_labels() if audit_report else None,
                          audit_covered=audit_report.covered() if audit_report else None)
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
    instances: Annotated[list[Path] | None, typer.Option(help="Folder of instances for exact re-solves: <item id>.json or "
                                                              "<record id>.json (the input file's id column); repeatable.")] = None,
    scripts: Annotated[Path | None, typer.Option(help="Folder of <item_id>.py or <item_id>/*.py re-solve scripts.")] = None,
    auditor_model: Annotated[str | None, typer.Option(help="OpenAI-compatible API root of a model to sample re-solves from.")] = None,
    auditor_model_name: Annotated[str | None, typer.Option(help="Model name at --auditor-model.")] = None,
    api_key_env: Annotated[str, typer.Option(help="Environment variable holding the auditor endpoint's API key.")] = "OPENAI_API_KEY",
    samples: Annotated[int, typer.Option(min=1, help="Re-solves sampled from the auditor model per item.")] = 5,
    temperature: Annotated[float, typer.Option(min=0.0, help="Sampling temperature of the auditor model.")] = 0.7,
    min_votes: Annotated[int, typer.Option(min=1, help="Agreeing re-solves needed to flag (exact re-solves decide alone).")] = 3,
    tolerance: Annotated[float, typer.Option(min=0.0, help="Absolute tolerance when comparing values.")] = 1e-3,
    time_limit: Annotated[float, typer.Option(min=1.0, help="Solver time limit per re-solve, seconds.")] = 60.0,
    verifier_url: VerifierUrlOpt = None,
    verifier_token_env: TokenEnvOpt = "VRPCODER_VERIFIER_TOKEN",
    workers: WorkersOpt = 2,
    allow_unsandboxed: UnsandboxedOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Re-solve every external item and decide each label: flagged (with the relaxation that reproduces it),
    agreeing, no decision (with the reason) or out of scope (a variant no exact model states).

    Exact re-solves use the item's instance: --instances DIR/<item id>.json or DIR/<record id>.json, or
    the instance the record carried (BENCH_DIR/instances/). Scripts and model re-solves run in the
    verifier's sandbox (a private stack when no --verifier-url is given)."""
    from vrpcoder_client.client import AsyncVerifierClient

    from vrpcoder_eval.audit import AuditReport, audit_items
    from vrpcoder_eval.generation import OpenAIChatGenerator
    from vrpcoder_eval.prompts import shared_prompt
    from vrpcoder_eval.service import ServiceError, verifier_endpoint

    store = BenchmarkDir(bench_dir)
    try:
        items = store.items(BenchmarkName.B4)
    except (FileNotFoundError, BenchmarkFormatError) as exc:
        raise _fail(str(exc)) from None
    for folder in [*(instances or []), *([scripts] if scripts is not None else [])]:
        if not folder.is_dir():
            raise _fail(f"{folder}: no such folder")
    carried = (bench_dir / "instances").is_dir()
    if not instances and not carried and scripts is None and auditor_model is None:
        raise _fail("no auditor: pass --instances DIR, --scripts DIR or --auditor-model URL (or build B4 from records "
                    "that carry their instance)")
    needs_service = scripts is not None or auditor_model is not None
    url = verifier_url or os.environ.get("VRPCODER_VERIFIER_URL") or None

    async def go(service_url: str | None, token: str | None) -> AuditReport:
        verifier = AsyncVerifierClient(service_url, token) if service_url else None
        generator = OpenAIChatGenerator(auditor_model, auditor_model_name, api_key=os.environ.get(api_key_env)) if auditor_model else None
        try:
            with _progress(as_json) as bar:
                task = bar.add_task("audited", total=len(items))
                return await audit_items(
                    items, instances=instances or (), bench_dir=bench_dir, scripts=scripts, verifier=verifier,
                    generator=generator, prompt=shared_prompt(), samples=samples, temperature=temperature,
                    tolerance=tolerance, min_votes=min_votes, time_limit=time_limit,
                    progress=lambda n: bar.advance(task, n),
                )
        finally:
            if verifier is not None:
                await verifier.aclose()
            if generator is not None:
                await generator.aclose()

    options = _endpoint_options(workers, allow_unsandboxed, time_limit, out.parent / f"{out.stem}-verifier-logs")
    try:
        with json_only(as_json):
            if needs_service:
                with verifier_endpoint(url, os.environ.get(verifier_token_env), options,
                                       say=lambda m: err_console.print(m, highlight=False)) as endpoint:
                    result = asyncio.run(go(endpoint.url, endpoint.token))
            else:
                result = asyncio.run(go(None, None))
    except ServiceError as exc:
        raise _fail(str(exc), code=3) from None
    except ValueError as exc:
        raise _fail(str(exc)) from None
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(result.model_dump_json(indent=2), encoding="utf-8")
    if as_json:
        print(result.model_dump_json())
    else:
        for line in result.markdown_lines():
            console.print(line, highlight=False, markup=False)
        console.print(f"written: {out}", highlight=False)

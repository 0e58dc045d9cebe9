"""The `vrpcoder` command line.

Domain commands live here; each service contributes its own sub-command group through the
``vrpcoder.cli`` entry-point group (a Typer app per service), so the shared library never imports
a service. Commands print human tables by default and one JSON document with ``--json``; bad input
ends with a one-line message and exit status 2, a run that produced no answer with status 1.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from vrpcoder.variants import VARIANTS

if TYPE_CHECKING:
    from vrpcoder.audit import AuditedSolve
    from vrpcoder.demo import DemoRow
    from vrpcoder.samples import BuildReport, Sample
    from vrpcoder.verification import Verdict, VerifyConfig

app = typer.Typer(
    name="vrpcoder",
    help="VRPCoder: sample VRP instances, render and solve gold gurobipy scripts, and check solutions independently.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
instance_app = typer.Typer(help="Sample synthetic instances or import real library files.", no_args_is_help=True)
gold_app = typer.Typer(help="Render and solve the gold gurobipy script of an instance.", no_args_is_help=True)
samples_app = typer.Typer(help="Build verified samples (instance, gold script, reference objective, probes).", no_args_is_help=True)
app.add_typer(instance_app, name="instance")
app.add_typer(gold_app, name="gold")
app.add_typer(samples_app, name="samples")

console = Console(width=None if sys.stdout.isatty() else 160)
err_console = Console(stderr=True)

OutputOpt = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write to this file instead of standard output.")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document instead of a table.")]
TimeLimitOpt = Annotated[
    float, typer.Option("--time-limit", min=0.1, help="Gurobi time limit per solve, in seconds.")
]


def fail(message: str, code: int = 2) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


@app.command()
def variants(as_json: JsonOpt = False) -> None:
    """List the 21 variants: modules, capacity semantics, train / held-out, enabled attackers (the
    paper's table, and ours marked + where the table leaves a family unattacked)."""
    rows = [
        {
            "name": v.name,
            "modules": sorted(m.value for m in v.modules),
            "capacity": v.capacity.value,
            "train": v.train,
            "families": [f.value for f in v.families],
            "attackers": [a.value for a in v.attackers],
            "beyond_paper": [a.value for a in v.beyond_paper],
            "attacked_families": sorted(f.value for f in v.attacked_families),
        }
        for v in VARIANTS.values()
    ]
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title="VRP variants (CVRP backbone + modules; +attacker: beyond the paper's table)")
    for col in ("variant", "modules", "cap.", "split", "attackers"):
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(
            row["name"],
            " ".join(row["modules"]) or "-",
            row["capacity"],
            "train" if row["train"] else "held-out",
            ", ".join([*row["attackers"], *(f"+{a}" for a in row["beyond_paper"])]),
        )
    console.print(table)


@instance_app.command("sample")
def instance_sample(
    variant: Annotated[str, typer.Option("--variant", "-v", help="Variant name, e.g. CVRP (see `vrpcoder variants`).")],
    profile: Annotated[int, typer.Option("--profile", "-p", help="Profile number 1..15.")],
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Random seed; same inputs give the same file.")],
    output: OutputOpt = None,
) -> None:
    """Sample one instance of VARIANT under PROFILE deterministically and write it as JSON."""
    from vrpcoder.io import write_text
    from vrpcoder.sampling import sample_instance

    try:
        instance = sample_instance(variant, profile, seed)
    except ValueError as exc:
        fail(str(exc))
    write_text(instance.model_dump_json(indent=2), output)


@instance_app.command("import")
def instance_import(
    file: Annotated[Path, typer.Argument(help="TSPLIB, CVRPLIB, Solomon, Cordeau, SDVRPLIB or VRPB file.")],
    output: OutputOpt = None,
    customers: Annotated[
        str | None,
        typer.Option(
            "--customers",
            "-k",
            help="Keep the depot(s) and either the first K customers ('12') or the customers the file "
            "numbers as listed ('3,17,42').",
        ),
    ] = None,
    variant: Annotated[str | None, typer.Option("--variant", help="Override the inferred variant.")] = None,
    vehicles: Annotated[int | None, typer.Option("--vehicles", min=1, help="Override the fleet size.")] = None,
    distance: Annotated[
        str | None,
        typer.Option(
            "--distance",
            help="Re-measure a coordinate file: euclidean (exact), euclidean_trunc1 (truncated to one decimal, "
            "Solomon's default), euc_2d (rounded to an integer) or ceil_2d. Default: the library's own.",
        ),
    ] = None,
) -> None:
    """Import a real library instance; the conventions applied (distance, fleet, kept customers) and
    why are printed on stderr."""
    from vrpcoder.importers import import_library, parse_customer_selection
    from vrpcoder.io import write_text

    if not file.is_file():
        fail(f"{file}: no such file")
    try:
        selection = parse_customer_selection(customers)
        result = import_library(file, customers=selection, variant=variant, vehicles=vehicles, distance=distance)
    except ValueError as exc:
        fail(str(exc))
    for convention in result.conventions:
        err_console.print(f"[bold]{convention.topic}:[/] {convention.choice} [dim]({convention.reason})[/]", highlight=False)
    for warning in result.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    write_text(result.instance.model_dump_json(indent=2), output)


@gold_app.command("render")
def gold_render(
    instance_file: Annotated[Path, typer.Argument(help="Instance JSON (or a sample file that embeds one).")],
    output: OutputOpt = None,
    time_limit: TimeLimitOpt = 60.0,
    threads: Annotated[int, typer.Option(min=1, help="Gurobi threads per solve.")] = 1,
) -> None:
    """Write the standalone gold gurobipy script of an instance."""
    from vrpcoder.gold import render_gold
    from vrpcoder.io import read_instance, write_text

    try:
        instance = read_instance(instance_file)
    except ValueError as exc:
        fail(str(exc))
    write_text(render_gold(instance, time_limit=time_limit, threads=threads), output)


@gold_app.command("solve")
def gold_solve(
    instance_file: Annotated[Path, typer.Argument(help="Instance JSON (or a sample file that embeds one).")],
    as_json: JsonOpt = False,
    time_limit: TimeLimitOpt = 60.0,
    threads: Annotated[int, typer.Option(min=1, help="Gurobi threads per solve.")] = 1,
) -> None:
    """Solve the gold script, then price and check its routes with the independent checker."""
    from vrpcoder.audit import audit_gold
    from vrpcoder.io import read_instance

    try:
        instance = read_instance(instance_file)
    except ValueError as exc:
        fail(str(exc))
    audit = audit_gold(instance, time_limit=time_limit, threads=threads)
    if as_json:
        print(audit.model_dump_json(indent=2))
    else:
        _print_audit(audit)
    if audit.status == "size_limited_licence":
        err_console.print(
            "[yellow]The model exceeds the size-limited Gurobi licence (2000 variables / constraints); "
            "use fewer customers or a full licence.[/]"
        )
    if not audit.routes:
        raise typer.Exit(1)


def _print_audit(audit: AuditedSolve) -> None:
    console.print(
        f"[bold]{audit.instance}[/] ({audit.variant}): status [bold]{audit.status}[/], "
        f"objective {audit.objective}, checker cost {audit.checker_cost}, "
        f"violations {[f.value for f in audit.violations] or 'none'}, {audit.runtime:.2f} s"
    )
    for route in audit.routes:
        path = " -> ".join(str(n) for n in (route.depot, *route.visits, route.depot))
        console.print(f"  vehicle {route.vehicle}: {path}")
    if audit.detail:
        console.print(f"  detail: {audit.detail}")


@app.command("check")
def check_solution(
    instance_file: Annotated[Path, typer.Argument(help="Instance JSON.")],
    solution_file: Annotated[Path, typer.Argument(help="Solution JSON (routes per vehicle).")],
    as_json: JsonOpt = False,
) -> None:
    """Price a solution and list the constraint families it violates (no solver involved)."""
    from vrpcoder.checker import check
    from vrpcoder.io import read_instance, read_record
    from vrpcoder.solutions import Solution

    try:
        instance = read_instance(instance_file)
        solution = read_record(solution_file, Solution)
    except ValueError as exc:
        fail(str(exc))
    report = check(instance, solution)
    if as_json:
        print(
            json.dumps(
                {
                    "cost": report.cost,
                    "feasible": report.feasible,
                    "violations": [
                        {"family": v.family.value, "detail": v.detail, "vehicle": v.vehicle}
                        for v in report.violations
                    ],
                },
                indent=2,
            )
        )
    else:
        console.print(f"cost {report.cost:.6f}; {'feasible' if report.feasible else 'INFEASIBLE'}")
        for v in report.violations:
            console.print(f"  [red]{v.family.value}[/]: {v.detail}")
    if not report.feasible:
        raise typer.Exit(1)


@app.command()
def demo(
    seed: Annotated[int, typer.Option(min=0, help="Seed for every sampled instance.")] = 0,
    time_limit: TimeLimitOpt = 60.0,
    as_json: JsonOpt = False,
) -> None:
    """Sample one instance per variant, solve its gold script, check it independently, print a table."""
    from vrpcoder.demo import run_demo

    rows = run_demo(seed=seed, time_limit=time_limit, progress=not as_json)
    if as_json:
        print(json.dumps([r.model_dump(mode="json") for r in rows], indent=2))
    else:
        _print_demo(rows)
    if not all(r.audit.trusted for r in rows):
        raise typer.Exit(1)


def _print_demo(rows: list[DemoRow]) -> None:
    table = Table(title="Gold scripts vs the independent checker, one sampled instance per variant")
    for col in ("variant", "split", "profile", "n", "K", "status", "gold objective", "checker cost", "violations", "s"):
        table.add_column(col, justify="right" if col in {"n", "K", "s", "profile"} else "left")
    for r in rows:
        a = r.audit
        ok = a.trusted
        table.add_row(
            r.variant,
            "train" if r.train else "held-out",
            str(r.profile),
            str(r.customers),
            str(r.vehicles),
            a.status,
            "-" if a.objective is None else f"{a.objective:.4f}",
            "-" if a.checker_cost is None else f"{a.checker_cost:.4f}",
            ("none" if not a.violations else ",".join(v.value for v in a.violations)) + ("" if ok else " ✗"),
            f"{a.runtime:.2f}",
        )
    console.print(table)
    trusted = sum(r.audit.trusted for r in rows)
    console.print(f"{trusted}/{len(rows)} variants: optimal, feasible by the checker, same cost.")


def _write_samples(samples: list[Sample], out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for sample in samples:
        (out_dir / f"{sample.id}.json").write_text(sample.model_dump_json(indent=2) + "\n")


def _print_counts(report: BuildReport) -> None:
    counts = report.counts()
    probes = sorted({name for name, _ in counts}, key=lambda n: (n != "s+", n))
    outcomes = sorted({outcome for _, outcome in counts}, key=lambda o: (o != "kept", o))
    table = Table(title="probes kept / discarded (by reason)")
    table.add_column("probe")
    for outcome in outcomes:
        table.add_column(outcome, justify="right")
    for name in probes:
        table.add_row(name, *(str(counts.get((name, o), 0)) for o in outcomes))
    console.print(table)
    disagreements = sum(n for (_, o), n in counts.items() if o == "disagreement")
    console.print(f"{len(report.samples)} samples written; gold-vs-checker disagreements: {disagreements}")
    reasons = {(r.attacker.value if r.attacker else "s+", r.outcome.value, r.reason) for r in report.records if r.reason}
    for name, outcome, reason in sorted(reasons)[:20]:
        console.print(f"  [dim]{name} {outcome}: {reason}[/]")


@samples_app.command("build")
def samples_build(
    variant: Annotated[str, typer.Option("--variant", "-v", help="Variant name.")],
    profile: Annotated[int, typer.Option("--profile", "-p", help="Profile number 1..15.")],
    seed: Annotated[int, typer.Option("--seed", "-s", min=0, help="Random seed.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Directory for the sample JSON files.")],
    time_limit: TimeLimitOpt = 60.0,
) -> None:
    """Sample one instance, build s+ and every enabled attack, keep what gold INJ and the checker confirm."""
    from vrpcoder.samples import build_grid_point

    try:
        report = build_grid_point(variant, profile, seed, time_limit=time_limit)
    except ValueError as exc:
        fail(str(exc))
    _write_samples(report.samples, output)
    _print_counts(report)
    if not report.samples:
        raise typer.Exit(1)


@samples_app.command("grid")
def samples_grid(
    output: Annotated[Path, typer.Option("--output", "-o", help="Directory for the sample JSON files.")],
    variants: Annotated[list[str] | None, typer.Option("--variants", help="Variants (default: all 21).")] = None,
    profiles: Annotated[list[int] | None, typer.Option("--profiles", help="Profiles (default: every applicable one).")] = None,
    seeds: Annotated[list[int] | None, typer.Option("--seeds", help="Seeds (default: 0).")] = None,
    time_limit: TimeLimitOpt = 60.0,
) -> None:
    """Build samples over a grid of variants x profiles x seeds, with a progress bar and a kept/discarded table."""
    from rich.progress import track

    from vrpcoder.samples import BuildReport, build_grid_point
    from vrpcoder.sampling import applicable_profiles
    from vrpcoder.variants import get_variant

    try:
        names = [get_variant(v).name for v in (variants or list(VARIANTS))]
        points = [
            (v, p, s)
            for v in names
            for p in (profiles or applicable_profiles(v))
            if p in applicable_profiles(v)
            for s in (seeds or [0])
        ]
    except ValueError as exc:
        fail(str(exc))
    if not points:
        fail("the grid is empty: no requested profile applies to the requested variants")
    total = BuildReport()
    for variant, profile, seed in track(points, description="building samples", console=err_console):
        report = build_grid_point(variant, profile, seed, time_limit=time_limit)
        _write_samples(report.samples, output)
        total.extend(report)
    _print_counts(total)


@app.command("verify")
def verify_command(
    candidate: Annotated[Path, typer.Argument(help="Candidate gurobipy script (defines build_model()).")],
    sample_file: Annotated[Path, typer.Argument(help="Sample JSON from `vrpcoder samples build`.")],
    as_json: JsonOpt = False,
    time_limit: TimeLimitOpt = 60.0,
    diff_tolerance: Annotated[float, typer.Option(min=0.0, help="Absolute objective tolerance of DIFF.")] = 1e-3,
    no_sandbox: Annotated[
        bool, typer.Option("--no-sandbox", help="Run the candidate in this process (only for code you trust).")
    ] = False,
) -> None:
    """Dual-verify a candidate script against a sample: build, DIFF, INJ on every probe, reward.

    The candidate runs in the verifier service's bubblewrap sandbox (no network, read-only system,
    limits on time, memory, processes, files and output); without a usable sandbox the command
    refuses unless --no-sandbox is given."""
    from vrpcoder.io import read_record
    from vrpcoder.samples import Sample
    from vrpcoder.verification import VerifyConfig, verify

    try:
        sample = read_record(sample_file, Sample)
        code = candidate.read_text()
    except ValueError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{candidate}: cannot read ({exc.strerror})")
    config = VerifyConfig(time_limit=time_limit, diff_tolerance=diff_tolerance)
    if no_sandbox:
        verdict = verify(code, sample, config)
    else:
        verdict = _sandboxed_verify(code, sample, config)
    if as_json:
        print(verdict.model_dump_json(indent=2))
    else:
        console.print(
            f"build {'ok' if verdict.build else 'FAILED'}; objective {verdict.objective} vs reference "
            f"{verdict.reference_objective} -> DIFF {'pass' if verdict.diff else 'FAIL'}; reward {verdict.reward}"
        )
        for p in verdict.probes:
            mark = "[dim]n/a[/]" if not p.judged else "[green]pass[/]" if p.passed else "[red]FAIL[/]"
            console.print(f"  {mark} {p.name} ({p.family.value if p.family else 'feasible probe'}): expected {p.label.value}, got {p.verdict.value}")
        if verdict.routing_variable:
            console.print(f"  routing variable: {verdict.routing_variable}")
        if verdict.error:
            console.print(f"  error {verdict.error.kind.value}: {verdict.error.detail}")
        console.print("[bold green]PASSED[/]" if verdict.passed else "[bold red]NOT PASSED[/]")
    if not verdict.passed:
        raise typer.Exit(1)


@app.command("mutants")
def mutants_command(
    sample_files: Annotated[
        list[Path], typer.Argument(help="Sample JSON file(s) of one instance (base and attacked copies).")
    ],
    as_json: JsonOpt = False,
    time_limit: TimeLimitOpt = 60.0,
) -> None:
    """Derive mutants of the gold script (omit / relax / spurious) and report which verifier kills them."""
    from vrpcoder.io import read_record
    from vrpcoder.mutants import run_mutants
    from vrpcoder.samples import Sample
    from vrpcoder.verification import VerifyConfig

    try:
        samples = [read_record(f, Sample) for f in sample_files]
    except ValueError as exc:
        fail(str(exc))
    if len({s.instance.provenance.model_dump_json() for s in samples}) > 1 or len({s.variant for s in samples}) > 1:
        fail("all sample files must come from the same instance (one `samples build` run)")
    reports = run_mutants(samples, config=VerifyConfig(time_limit=time_limit))
    totals = {
        "mutants": len(reports),
        "killed_by_diff": sum(r.killed_by_diff for r in reports),
        "killed_by_dual": sum(r.killed_by_dual for r in reports),
    }
    if as_json:
        print(json.dumps({"mutants": [r.model_dump(mode="json") for r in reports], "totals": totals}, indent=2))
        return
    table = Table(title=f"mutants of the {samples[0].variant} gold script ({len(samples)} samples)")
    for col in ("mutant", "kind", "family", "DIFF kills", "DIFF+INJ kills", "caught by"):
        table.add_column(col, overflow="fold")
    for r in reports:
        table.add_row(
            r.name, r.kind.value, r.family.value if r.family else "-",
            "yes" if r.killed_by_diff else "[red]no[/]", "yes" if r.killed_by_dual else "[red]no[/]",
            ", ".join(r.caught_by) or "-",
        )
    console.print(table)
    console.print(
        f"{totals['mutants']} mutants: DIFF alone kills {totals['killed_by_diff']}, "
        f"DIFF+INJ kills {totals['killed_by_dual']}"
    )


def _sandboxed_verify(code: str, sample: Sample, config: VerifyConfig) -> Verdict:
    """Verify through the verifier service's sandbox; a clear error when none can be had."""
    try:
        from vrpcoder_verifier.sandbox import SandboxExecutor, SandboxPolicy, SandboxUnavailable
    except ModuleNotFoundError:
        fail("the sandbox needs the verifier service package (make install); or pass --no-sandbox")
    budget = config.time_limit * (2 + len(sample.probes)) + 30  # one solve per probe, plus the build
    policy = SandboxPolicy(wall_seconds=budget, cpu_seconds=int(budget))
    try:
        with SandboxExecutor(policy) as executor:
            return executor.verify(code, sample, config)
    except SandboxUnavailable as exc:
        fail(f"no sandbox available ({exc}); pass --no-sandbox to run trusted code unsandboxed")


def _register_service_commands() -> None:
    """Attach each installed service's Typer app (entry-point group ``vrpcoder.cli``)."""
    for ep in entry_points(group="vrpcoder.cli"):
        try:
            sub = ep.load()
        except Exception as exc:  # a broken service must not take the whole CLI down
            err_console.print(f"[yellow]warning: service commands {ep.name!r} unavailable: {exc}[/]")
            continue
        app.add_typer(sub, name=ep.name)


def main() -> None:
    _register_service_commands()
    app()

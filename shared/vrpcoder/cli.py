"""The `vrpcoder` command line.

Domain commands live here; each service contributes its own sub-command group through the
``vrpcoder.cli`` entry-point group (a Typer app per service), so the shared library never imports
a service. Commands print human tables by default and one JSON document with ``--json`` (then
nothing else reaches stdout: Gurobi's licence banner and anything a script prints go to stderr).

Exit status: 0 success; 1 the candidate, plan or gold script was judged and rejected; 2 bad input;
3 no answer (the verification carried no reward: our infrastructure or the licence's size limit;
the gold script found no solution).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from vrpcoder.variants import VARIANTS

if TYPE_CHECKING:
    from vrpcoder.audit import AuditedSolve
    from vrpcoder.demo import DemoRow
    from vrpcoder.samples import BuildReport, Sample
    from vrpcoder.solutions import Solution
    from vrpcoder.verification import Verdict

app = typer.Typer(
    name="vrpcoder",
    help=(
        "VRPCoder: tells whether LLM-written gurobipy code for vehicle-routing problems is really right "
        "(DIFF + constraint injection + the optimum check), and runs the loop around it: synthesis, "
        "SFT and GRPO with the verifier as reward, evaluation. `vrpcoder loop` runs it end to end."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="markdown",  # paragraphs of a docstring are reflowed, not broken where the source breaks
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


EXIT_REJECTED = 1
"""The candidate, the plan or the gold script was judged, and rejected."""
EXIT_BAD_INPUT = 2
EXIT_NO_ANSWER = 3
"""No judgement was reached: no reward (infrastructure, the licence's size limit), no gold solution."""

SIZE_LIMIT_HINT = (
    "the model exceeds the size-limited Gurobi licence (2000 variables / 2000 constraints): "
    "try fewer vehicles first (--vehicles; a 3-index model grows with the fleet), then fewer customers "
    "(--customers), or use a full licence"
)


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """One line on stderr (pydantic's "Value error, " prefix removed) and the exit status."""
    err_console.print(f"[bold red]error:[/] {message.replace('Value error, ', '')}", highlight=False)
    raise typer.Exit(code)


@contextlib.contextmanager
def json_only(active: bool) -> Iterator[None]:
    """While ``active``, whatever would reach stdout goes to stderr instead, at the descriptor level.

    Gurobi prints its licence banner ("Restricted license - for non-production use only") from C
    when its first environment starts, and scripts print what they like; with ``--json`` stdout
    must carry the JSON document alone (``| jq`` must work). The document is printed after the
    block."""
    if not active:
        yield
        return
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


LIST_OPTIONS = frozenset({"--variants", "--profiles", "--seeds"})
"""Options that take several values: ``--variants CVRP TSP``, ``--variants CVRP,TSP`` and
``--variants CVRP --variants TSP`` all mean the same."""


def expand_list_options(argv: Sequence[str], options: frozenset[str] = LIST_OPTIONS) -> list[str]:
    """Rewrite ``--opt a b,c`` into ``--opt a --opt b --opt c`` (Click takes one value per flag)."""
    out: list[str] = []
    index = 0
    while index < len(argv):
        token = argv[index]
        name, eq, inline = token.partition("=")
        if name not in options:
            out.append(token)
            index += 1
            continue
        values = [inline] if eq else []
        index += 1
        if not eq:
            while index < len(argv) and not argv[index].startswith("-"):
                values.append(argv[index])
                index += 1
        parts = [part for value in values for part in value.split(",") if part]
        out += [item for part in parts for item in (name, part)] or [name]
    return out


def _round(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)


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
        with json_only(output is None):
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
        with json_only(output is None):
            result = import_library(file, customers=selection, variant=variant, vehicles=vehicles, distance=distance)
    except ValueError as exc:
        fail(f"{exc}{_LAYOUTS if 'cannot tell the instance format' in str(exc) else ''}")
    for convention in result.conventions:
        err_console.print(f"[bold]{convention.topic}:[/] {convention.choice} [dim]({convention.reason})[/]", highlight=False)
    for warning in result.warnings:
        err_console.print(f"[yellow]warning:[/] {warning}", highlight=False)
    write_text(result.instance.model_dump_json(indent=2), output)


_LAYOUTS = (
    "; supported layouts: TSPLIB (TYPE: TSP), CVRPLIB (TYPE: CVRP), Solomon (VEHICLE on line 2), "
    "Cordeau (a header of 3-4 numbers), SDVRPLIB (2 numbers), Goetschalckx-Jacobs-Blanco VRPB (1 number)"
)


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
    with json_only(as_json):
        audit = audit_gold(instance, time_limit=time_limit, threads=threads)
    if as_json:
        print(audit.model_dump_json(indent=2))
    else:
        _print_audit(audit)
    if audit.status == "size_limited_licence":
        err_console.print(f"[yellow]{SIZE_LIMIT_HINT[0].upper()}{SIZE_LIMIT_HINT[1:]}.[/]")
    if not audit.routes:
        raise typer.Exit(EXIT_NO_ANSWER)


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


def read_solution(path: Path) -> Solution:
    """A solution file: ``{"routes": [...], "cycles": [...]}``, or any record that carries its routes
    under ``routes`` (the output of ``gold solve --json``; its other fields are ignored)."""
    from vrpcoder.io import load_json, validate
    from vrpcoder.solutions import Solution

    raw = load_json(path)
    if isinstance(raw, dict) and "routes" in raw:
        raw = {key: raw[key] for key in ("routes", "cycles") if key in raw}
    return validate(Solution, raw, path)


@app.command("check")
def check_solution(
    instance_file: Annotated[Path, typer.Argument(help="Instance JSON (or a sample file that embeds one).")],
    solution_file: Annotated[
        Path,
        typer.Argument(
            help='Solution JSON: {"routes": [{"vehicle": 0, "depot": 0, "visits": [3, 1, 2]}, ...]} in the '
            "instance's node numbers (depots 0..D-1, then customers); `gold solve --json` output is accepted as is."
        ),
    ],
    as_json: JsonOpt = False,
) -> None:
    """Price a solution and list the constraint families it violates (no solver involved).

    Each route names its vehicle (index into the instance's fleet), the depot it starts from and the
    customers in visiting order; optional fields: "deliveries" (split delivery: the quantity left at
    each visit) and "end_depot" (a closed route that ends at another depot). Exit status 1 when the
    plan breaks a rule."""
    from vrpcoder.checker import check
    from vrpcoder.io import read_instance

    try:
        instance = read_instance(instance_file)
        solution = read_solution(solution_file)
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
        raise typer.Exit(EXIT_REJECTED)


@app.command()
def demo(
    seed: Annotated[int, typer.Option(min=0, help="Seed for every sampled instance.")] = 0,
    time_limit: TimeLimitOpt = 60.0,
    as_json: JsonOpt = False,
) -> None:
    """Sample one instance per variant, solve its gold script, check it independently, print a table."""
    from vrpcoder.demo import run_demo

    with json_only(as_json):
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
    variants: Annotated[
        list[str] | None, typer.Option("--variants", help="Variants, e.g. --variants CVRP TSP (default: all 21).")
    ] = None,
    profiles: Annotated[
        list[int] | None, typer.Option("--profiles", help="Profiles, e.g. --profiles 1 5 (default: every applicable one).")
    ] = None,
    seeds: Annotated[list[int] | None, typer.Option("--seeds", help="Seeds, e.g. --seeds 0 1 2 (default: 0).")] = None,
    time_limit: TimeLimitOpt = 60.0,
) -> None:
    """Build samples over a grid of variants x profiles x seeds, with a progress bar and a kept/discarded table.

    List options take several values after one flag (--variants CVRP TSP), comma-separated values
    (--variants CVRP,TSP) or the flag repeated (--variants CVRP --variants TSP)."""
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


def print_verdict(verdict: Verdict) -> None:
    """The verdict as a person reads it: DIFF, the optimum check, each probe and its price, what failed, the reward."""
    reward = "none (not the candidate's fault)" if verdict.reward is None else f"{verdict.reward:.4g}"
    console.print(
        f"build {'ok' if verdict.build else 'FAILED'}; objective {_round(verdict.objective)} vs reference "
        f"{_round(verdict.reference_objective)} -> DIFF {'pass' if verdict.diff else 'FAIL'}; reward {reward}"
    )
    check = verdict.diff_check
    if check is not None and check.continued:
        gap = "?" if check.gap is None else f"{check.gap:.3g}"
        console.print(
            f"  DIFF: the solve stopped at objective {_round(check.objective)} (bound {_round(check.bound)}, "
            f"gap {gap}) and was continued with the gap closed: {_round(check.final_objective)} "
            f"({check.final_status}); tolerance {check.tolerance:g}"
        )
    optimum = verdict.optimum
    if optimum is not None:
        mark = "[green]pass[/]" if optimum.passed else "[red]FAIL[/]"
        console.print(
            f"  {mark} optimum check: the candidate's own plan, priced {_round(optimum.cost)} by the checker "
            f"({optimum.reading})"
        )
        for violation in optimum.violations:
            console.print(f"      [red]{violation.family.value}[/]: {escape(violation.detail)}")
    for p in verdict.probes:
        mark = "[dim]n/a[/]" if not p.judged else "[green]pass[/]" if p.passed else "[red]FAIL[/]"
        console.print(f"  {mark} {p.name} ({p.family.value if p.family else 'feasible probe'}): expected {p.label.value}, got {p.verdict.value}")
    for c in verdict.costs:
        mark = "[dim]n/a[/]" if not c.judged else "[green]pass[/]" if c.passed else "[red]FAIL[/]"
        console.print(f"  {mark} cost of {c.probe}: the model's objective {_round(c.objective)}, the checker's price {_round(c.price)}")
        if c.detail and not (c.judged and c.passed):
            console.print(f"      {escape(c.detail)}")
        for term in c.terms if not c.passed else ():
            console.print(f"      {term.kind.value}{'' if term.priced else ' (not priced)'} {_round(term.value)}: {escape(term.detail)}")
        if c.objective_parts:
            console.print("      the model's objective by variable: " + ", ".join(f"{q.name} {_round(q.value)}" for q in c.objective_parts))
    if verdict.routing_variable:
        console.print(f"  how x was read: {escape(verdict.routing_variable)}")
    if verdict.error:
        console.print(f"  error {verdict.error.kind.value}: {escape(verdict.error.detail)}")
    if verdict.failed_checks:
        console.print(f"  failed checks: {', '.join(verdict.failed_checks)}")
    console.print("[bold green]PASSED[/]" if verdict.passed else "[bold red]NOT PASSED[/]")


@app.command("mutants")
def mutants_command(
    sample_files: Annotated[
        list[Path], typer.Argument(help="Sample JSON file(s) of one instance (base and attacked copies).")
    ],
    as_json: JsonOpt = False,
    time_limit: TimeLimitOpt = 60.0,
) -> None:
    """Derive mutants of the gold script (omit / relax / spurious / cost) and report which verifier kills them:
    DIFF alone, DIFF+INJ (with the optimum check), and DIFF+INJ+cost injection."""
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
    with json_only(as_json):
        reports = run_mutants(samples, config=VerifyConfig(time_limit=time_limit))
    totals = {
        "mutants": len(reports),
        "killed_by_diff": sum(r.killed_by_diff for r in reports),
        "killed_by_dual": sum(r.killed_by_dual for r in reports),
        "killed_with_cost": sum(r.killed_with_cost for r in reports),
    }
    if as_json:
        print(json.dumps({"mutants": [r.model_dump(mode="json") for r in reports], "totals": totals}, indent=2))
        return
    table = Table(title=f"mutants of the {samples[0].variant} gold script ({len(samples)} samples)")
    for col in ("mutant", "kind", "family", "DIFF kills", "DIFF+INJ kills", "+cost kills", "caught by"):
        table.add_column(col, overflow="fold")
    for r in reports:
        table.add_row(
            r.name, r.kind.value, r.family.value if r.family else "-",
            "yes" if r.killed_by_diff else "[red]no[/]", "yes" if r.killed_by_dual else "[red]no[/]",
            "yes" if r.killed_with_cost else "[red]no[/]", ", ".join(r.caught_by) or "-",
        )
    console.print(table)
    console.print(
        f"{totals['mutants']} mutants: DIFF alone kills {totals['killed_by_diff']}, "
        f"DIFF+INJ kills {totals['killed_by_dual']}, DIFF+INJ+cost kills {totals['killed_with_cost']}"
    )


def _register_service_commands() -> None:
    """Attach each installed service's Typer app (entry-point group ``vrpcoder.cli``) and each
    top-level command a service provides (group ``vrpcoder.commands``, e.g. the verifier's
    ``vrpcoder verify``): the shared library never imports a service."""
    for group in ("vrpcoder.cli", "vrpcoder.commands"):
        for ep in entry_points(group=group):
            try:
                loaded = ep.load()
            except Exception as exc:  # a broken service must not take the whole CLI down
                err_console.print(f"[yellow]warning: service command {ep.name!r} unavailable: {exc}[/]")
                continue
            if group == "vrpcoder.cli":
                app.add_typer(loaded, name=ep.name)
            else:
                app.command(ep.name)(loaded)


def main() -> None:
    _register_service_commands()
    app(args=expand_list_options(sys.argv[1:]))

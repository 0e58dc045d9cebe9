"""`vrpcoder verifier demo`: the whole service on one machine, judged on gold scripts and their mutants.

For each of the 21 variants one small instance is sampled and its samples built; the gold script
and a few mutants (wrong on purpose, one constraint family each) go through the HTTP API as one
batch per variant, against every sample of the instance. The gold script must pass everywhere; a
mutant is caught when some sample's verdict fails. Nothing may end in an infrastructure fault.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from rich.console import Console
from rich.progress import Progress
from rich.table import Table
from vrpcoder.errors import ErrorKind
from vrpcoder.mutants import MutantKind, equivalence_reason, failures, mutation_rules
from vrpcoder.samples import Sample, build_grid_point
from vrpcoder.sampling import applicable_profiles
from vrpcoder.variants import VARIANTS

from vrpcoder_client.client import VerifierClient, VerifierError
from vrpcoder_verifier.health import sandbox_report
from vrpcoder_verifier.schemas import VerifyOptions, VerifyResult
from vrpcoder_verifier.stack import LocalStack, StackError, local_redis, purge, sigterm_as_interrupt, stack_settings

console = Console(stderr=True)


class DemoError(RuntimeError):
    pass


class DemoRow(BaseModel):
    model_config = ConfigDict(frozen=True)

    variant: str
    candidate: str
    """``gold`` or the mutation rule's name."""
    kind: str
    samples: int
    passed: int
    """Samples whose verdict passed (DIFF and every probe)."""
    base_reward: float | None
    caught_by: tuple[str, ...]
    errors: tuple[str, ...]
    equivalence: str | None = None
    """Why no verifier can tell the mutant from the gold script on its instances, when it cannot."""
    seconds: float

    @property
    def equivalent(self) -> bool:
        return self.equivalence is not None

    @property
    def infrastructure(self) -> bool:
        return ErrorKind.INFRASTRUCTURE.value in self.errors or "job failed" in self.errors

    @property
    def as_expected(self) -> bool:
        """Gold passes every sample; no candidate ends in our own fault (a surviving mutant is a finding, not a bug)."""
        if self.infrastructure:
            return False
        return self.kind != "gold" or self.passed == self.samples


@dataclass(frozen=True, slots=True)
class _Candidate:
    name: str
    kind: str
    equivalence: str | None
    """Why the mutant is equivalent on the sample's instances (None: a verifier can catch it)."""
    codes: tuple[str | None, ...]
    """One script per sample: every sample (base and attacked copies) has its own gold script."""


def _candidates(variant: str, samples: list[Sample], count: int) -> list[_Candidate]:
    """The gold script and the first ``count`` mutants that apply to the base sample.

    Kinds are interleaved (omit, relax, spurious, omit, ...) so that a short list still shows each,
    and within a kind the variant's own families (listed last by the registry) come first.
    """
    rules = mutation_rules(variant)
    by_kind = {kind: [r for r in reversed(rules) if r.kind is kind] for kind in MutantKind}
    order = [r for group in zip(*by_kind.values(), strict=False) for r in group]
    order += [r for r in rules if r not in order]
    chosen = [_Candidate("gold", "gold", None, tuple(s.gold_code for s in samples))]
    for rule in order:
        if len(chosen) > count:
            break
        codes = tuple(rule.apply(s.gold_code, s) for s in samples)
        if codes[0] is not None:
            chosen.append(_Candidate(rule.name, rule.kind.value, equivalence_reason(rule, (s.instance for s in samples)), codes))
    return chosen


def _row(variant: str, name: str, kind: str, equivalence: str | None, results: list[VerifyResult], seconds: float) -> DemoRow:
    caught: list[str] = []
    errors: list[str] = []
    for result in results:
        verdict = result.verdict
        if verdict is None:
            errors.append("job failed")
            continue
        if verdict.error is not None:
            errors.append(verdict.error.kind.value)
        caught += failures(verdict)
    base = results[0].verdict
    return DemoRow(
        variant=variant,
        candidate=name,
        kind=kind,
        samples=len(results),
        passed=sum(1 for r in results if r.verdict is not None and r.verdict.passed),
        base_reward=None if base is None else base.reward,
        caught_by=tuple(dict.fromkeys(caught)),
        errors=tuple(dict.fromkeys(errors)),
        equivalence=equivalence,
        seconds=seconds,
    )


def _build_samples(seed: int, time_limit: float, progress: bool) -> dict[str, list[Sample]]:
    built: dict[str, list[Sample]] = {}
    with Progress(console=console, disable=not progress, transient=True) as bar:
        task = bar.add_task("building samples (one small instance per variant)", total=len(VARIANTS))
        for variant in VARIANTS:
            profile = applicable_profiles(variant)[0]
            samples = build_grid_point(variant, profile, seed, time_limit=time_limit).samples
            if samples:
                built[variant] = samples
            bar.advance(task)
    return built


def run_demo(
    *, workers: int = 2, mutants: int = 2, seed: int = 0, time_limit: float = 30.0, no_sandbox: bool = False,
    progress: bool = True,
) -> list[DemoRow]:
    if not no_sandbox and not sandbox_report().available:
        console.print(
            "[yellow]No sandbox is usable here; the demo runs only its own gold scripts and mutants, "
            "so it runs them unsandboxed (as with --no-sandbox).[/]"
        )
    built = _build_samples(seed, time_limit, progress)
    missing = sorted(set(VARIANTS) - set(built))
    if missing:
        console.print(f"[yellow]no sample could be built for: {', '.join(missing)}[/]")
    rows: list[DemoRow] = []
    log_dir = Path(os.environ.get("VRPCODER_DEMO_LOGS") or tempfile.mkdtemp(prefix="vrpcoder-demo-"))
    with sigterm_as_interrupt(), local_redis() as redis_url:
        settings = stack_settings(
            redis_url,
            executor="in-process" if no_sandbox else "auto",
            allow_unsandboxed=True,
            max_time_limit=max(120.0, time_limit),
        )
        console.print(f"Redis at {redis_url}; starting the API and {workers} workers (logs in {log_dir})")
        try:
            with LocalStack(settings, workers=workers, log_dir=log_dir) as stack, VerifierClient(
                stack.base_url, stack.token
            ) as client:
                console.print(f"API at {stack.base_url}/docs; verifying {len(built)} variants")
                options = VerifyOptions(time_limit=time_limit)
                with Progress(console=console, disable=not progress, transient=True) as bar:
                    task = bar.add_task("verifying through the HTTP API", total=len(built))
                    for variant, samples in built.items():
                        rows += _verify_variant(client, variant, samples, mutants, options)
                        bar.advance(task)
        except StackError as exc:
            raise DemoError(f"{exc} (logs in {log_dir})") from exc
        except VerifierError as exc:
            raise DemoError(f"the service failed: {exc} (logs in {log_dir})") from exc
        finally:
            purge(settings)
    return rows


def _verify_variant(
    client: VerifierClient, variant: str, samples: list[Sample], mutants: int, options: VerifyOptions
) -> list[DemoRow]:
    """One batch per variant: every candidate against every sample it applies to."""
    candidates = _candidates(variant, samples, mutants)
    pairs = [(c, code, s) for c in candidates for code, s in zip(c.codes, samples, strict=True) if code is not None]
    started = time.perf_counter()
    results = client.verify_batch([code for _, code, _ in pairs], [s for _, _, s in pairs], options=options)
    seconds = (time.perf_counter() - started) / len(candidates)
    return [
        _row(variant, c.name, c.kind, c.equivalence, [r for (owner, _, _), r in zip(pairs, results, strict=True) if owner is c], seconds)
        for c in candidates
    ]


def _outcome(row: DemoRow) -> str:
    if row.kind == "gold":
        return "[green]passes[/]" if row.passed == row.samples else "[red]FAILS[/]"
    if row.caught_by:
        return "[green]caught[/]"
    return "[yellow]survives (equivalent)[/]" if row.equivalent else "[yellow]survives[/]"


def print_rows(rows: list[DemoRow]) -> None:
    out = Console(file=sys.stdout, width=None if sys.stdout.isatty() else 160)
    table = Table(title="Gold scripts and mutants verified through the verifier service (HTTP -> Redis -> workers)")
    for col in ("variant", "candidate", "outcome", "passed", "base reward", "caught by", "errors"):
        table.add_column(col, overflow="fold", justify="right" if col in ("passed", "base reward") else "left")
    for row in rows:
        table.add_row(
            row.variant,
            row.candidate,
            _outcome(row),
            f"{row.passed}/{row.samples}",
            "-" if row.base_reward is None else f"{row.base_reward:.2f}",
            ", ".join(row.caught_by) or "-",
            ", ".join(row.errors) or "-",
        )
    out.print(table)
    survivors = [r for r in rows if r.kind != "gold" and not r.caught_by and r.equivalence]
    if survivors:
        out.print("Why each surviving mutant is equivalent to the gold script on its instances:")
        for row in survivors:
            out.print(f"  {row.variant} {row.candidate}: {row.equivalence}", highlight=False)
    gold = [r for r in rows if r.kind == "gold"]
    mutant_rows = [r for r in rows if r.kind != "gold"]
    distinguishable = [r for r in mutant_rows if not r.equivalent]
    out.print(
        f"gold scripts passing every sample: {sum(r.passed == r.samples for r in gold)}/{len(gold)}; "
        f"mutants caught: {sum(bool(r.caught_by) for r in distinguishable)}/{len(distinguishable)} "
        f"(+{len(mutant_rows) - len(distinguishable)} equivalent to the gold script on their instance, "
        f"which no verifier can catch); infrastructure faults: {sum(r.infrastructure for r in rows)}"
    )

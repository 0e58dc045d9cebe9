"""Label audit of external items (beyond the paper): do the published answers hold?

External benchmarks carry wrong labels. Every external (B4) item gets one finding with one of four
decisions, and the reason in words:

* ``flagged``: the re-solves settle on a value the published answer contradicts. With an exact
  re-solve the finding also says which relaxation the published value is (each one a whole model:
  ``vrpcoder_eval.relaxations``), so a reader sees the rule the label ignores;
* ``agrees``: the re-solves settle on the published value;
* ``no_decision``: no instance found, the exact re-solve did not prove an optimum, or the sandboxed
  re-solves disagree or are too few (the reason says which);
* ``out_of_scope``: a routing problem of a variant the 21 do not state (TSPTW, two-echelon, periodic,
  orienteering, ...) that no auditor could decide: not a failure of the audit or of the label.

Auditors:

* an **exact re-solve** of the item's instance in our ``Instance`` format: the gold script solves it
  and the solver-free checker confirms the routes and their cost; it decides alone. The instance is
  looked for (:class:`InstanceLookup`, first hit wins) in each ``--instances`` folder as
  ``<item id>.json`` (``b4-mamo-59.json``) or ``<record id>.json`` (the input file's own id column,
  ``59.json``), then in the benchmark folder's ``instances/<item id>.json``, where ``eval build``
  stores the instance a record carried in its ``instance`` field;
* **scripts** the user supplies per item (``SCRIPTS/<item_id>.py`` or ``SCRIPTS/<item_id>/*.py``),
  and/or a **model endpoint** sampled several times; these run in the verifier's sandbox (they are
  untrusted code) and count when they build and solve to optimality. Without an exact re-solve an
  item is decided when a majority of at least ``min_votes`` usable re-solves agree.

A flagged item is never relabelled in place: the audit is its own report, and metrics compute
Pass@1 against the published and the audited labels side by side.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, computed_field
from vrpcoder.audit import audit_gold
from vrpcoder.instances import Instance
from vrpcoder.variants import Module
from vrpcoder_client.client import AsyncVerifierClient, VerifierError
from vrpcoder_client.reward import extract_code
from vrpcoder_client.schemas import VerifyOptions

from vrpcoder_eval.benchmark import INSTANCES_DIR, BenchmarkItem
from vrpcoder_eval.external import unsupported_variant
from vrpcoder_eval.generation import DecodingConfig, GenerationError, Generator
from vrpcoder_eval.prompts import SystemPrompt
from vrpcoder_eval.relaxations import RelaxationResult, solve_relaxations
from vrpcoder_eval.runner import diff_only_sample


class AuditDecision(StrEnum):
    FLAGGED = "flagged"
    AGREES = "agrees"
    NO_DECISION = "no_decision"
    OUT_OF_SCOPE = "out_of_scope"


NO_INSTANCE = "no instance found"
RESOLVES_DISAGREE = "re-solves disagree"
TOO_FEW = "too few agreeing re-solves"
EXACT_FAILED = "exact re-solve proved no optimum"
"""The no-decision reasons, as the summary counts them (the finding's reason adds the details)."""


class Resolve(BaseModel):
    """One auditor's answer for one item."""

    model_config = ConfigDict(frozen=True)

    origin: str
    """``instance`` (exact), ``script:<file>`` or ``model:<n>``."""
    status: str
    objective: float | None
    exact: bool = False
    routes: tuple[tuple[int, ...], ...] = ()
    detail: str | None = None

    @property
    def usable(self) -> bool:
        return self.status == "optimal" and self.objective is not None


class AuditFinding(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_id: str
    source: str = ""
    variant: str | None = None
    published: float
    resolves: tuple[Resolve, ...]
    audited: float | None
    """The value the auditors settle on (None: no decision)."""
    votes: int
    usable: int
    decision: AuditDecision
    reason: str
    """In words; for ``no_decision`` and ``out_of_scope`` it starts with the summary's reason."""
    instance: str | None = None
    """Where the exact re-solve's instance was found."""
    relaxations: tuple[RelaxationResult, ...] = ()
    """Every relaxation tried on a flagged item with an instance."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def flagged(self) -> bool:
        return self.decision is AuditDecision.FLAGGED

    @property
    def explained_by(self) -> tuple[RelaxationResult, ...]:
        """The relaxations whose optimum is the published value."""
        return tuple(r for r in self.relaxations if r.reaches_published)

    @property
    def reason_kind(self) -> str:
        """The summary's bucket: the decision, and for the undecided the reason before any detail."""
        if self.decision in (AuditDecision.FLAGGED, AuditDecision.AGREES):
            return self.decision.value
        return self.reason.split(":")[0] if self.decision is AuditDecision.NO_DECISION else self.reason.split(" (")[0]


class AuditReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    tolerance: float
    min_votes: int
    findings: tuple[AuditFinding, ...]

    def audited_labels(self) -> dict[str, float]:
        """item id -> audited value, for the flagged items only."""
        return {f.item_id: f.audited for f in self.findings if f.flagged and f.audited is not None}

    def covered(self) -> set[str]:
        """Every item the audit looked at (flagged or not)."""
        return {f.item_id for f in self.findings}

    def decisions(self) -> dict[str, int]:
        counts = Counter(f.decision.value for f in self.findings)
        return {d.value: counts.get(d.value, 0) for d in AuditDecision}

    def by_source(self) -> dict[str, dict[str, int]]:
        """source -> decision -> items."""
        out: dict[str, dict[str, int]] = {}
        for f in self.findings:
            row = out.setdefault(f.source or "unknown", {d.value: 0 for d in AuditDecision})
            row[f.decision.value] += 1
        return dict(sorted(out.items()))

    def undecided_reasons(self) -> dict[str, int]:
        """Why items were not decided (no instance, variant not supported, re-solves disagree, ...)."""
        counts = Counter(f.reason_kind for f in self.findings
                         if f.decision in (AuditDecision.NO_DECISION, AuditDecision.OUT_OF_SCOPE))
        return dict(counts.most_common())

    def markdown_lines(self) -> list[str]:
        decisions = self.decisions()
        lines = [
            f"## Label audit: {decisions['flagged']} of {len(self.findings)} external items flagged",
            "Published answers are never overwritten; Pass@1 against audited labels is reported beside the published one. "
            "Out of scope: a routing variant the exact models do not state, which no auditor could decide (not a failure).",
            "",
            "| source | items | flagged | agreeing | no decision | out of scope |",
            "|---|---|---|---|---|---|",
        ]
        for source, row in self.by_source().items():
            lines.append(f"| {source} | {sum(row.values())} | {row['flagged']} | {row['agrees']} | {row['no_decision']} | "
                         f"{row['out_of_scope']} |")
        lines.append(f"| all | {len(self.findings)} | {decisions['flagged']} | {decisions['agrees']} | "
                     f"{decisions['no_decision']} | {decisions['out_of_scope']} |")
        reasons = self.undecided_reasons()
        if reasons:
            lines += ["", "| undecided because | items |", "|---|---|"]
            lines += [f"| {reason} | {count} |" for reason, count in reasons.items()]
        explained = Counter(r.description for f in self.findings for r in f.explained_by[:1])
        if explained:
            lines += ["", "| flagged labels reproduced by the model | items |", "|---|---|"]
            lines += [f"| {description} | {count} |" for description, count in explained.most_common()]
        lines += ["", "| item | published | audited | decision | re-solves (usable / agreeing) | reason |",
                  "|---|---|---|---|---|---|"]
        for f in self.findings:
            audited = "n/a" if f.audited is None else f"{f.audited:g}"
            reason = f.reason.replace("|", "/")
            lines.append(f"| {f.item_id} | {f.published:g} | {audited} | {f.decision.value} | {f.usable} / {f.votes} | {reason} |")
        return lines


def _close(a: float, b: float, tolerance: float) -> bool:
    return abs(a - b) <= tolerance


def majority(values: Sequence[float], tolerance: float) -> tuple[float | None, int]:
    """The value most re-solves agree on (within tolerance) and how many agree."""
    best: tuple[float | None, int] = (None, 0)
    for v in values:
        agreeing = sum(_close(v, w, tolerance) for w in values)
        if agreeing > best[1]:
            best = (v, agreeing)
    return best


def _distinct(values: Sequence[float], tolerance: float) -> list[float]:
    out: list[float] = []
    for v in values:
        if not any(_close(v, w, tolerance) for w in out):
            out.append(v)
    return out


def decide(
    item: BenchmarkItem, resolves: Sequence[Resolve], relaxations: Sequence[RelaxationResult] = (), *, tolerance: float,
    min_votes: int, missing: str | None = None, instance: str | None = None,
) -> AuditFinding:
    """The decision and its reason. ``missing``: why no exact re-solve was made (no instance found)."""
    published = item.reference_objective
    usable = [r for r in resolves if r.usable]
    exact = [r for r in usable if r.exact]
    base = {"item_id": item.id, "source": item.source, "variant": item.variant, "published": published,
            "resolves": tuple(resolves), "usable": len(usable), "instance": instance, "relaxations": tuple(relaxations)}
    if exact:
        value, votes = exact[0].objective, 1
        decided = True
    else:
        values = [r.objective for r in usable if r.objective is not None]
        value, votes = majority(values, tolerance)
        decided = value is not None and votes >= min_votes and votes * 2 > len(usable)
    if not decided or value is None:
        reason = _undecided(item, resolves, usable, votes, min_votes, tolerance, missing)
        decision = AuditDecision.OUT_OF_SCOPE if reason.startswith("variant not supported") else AuditDecision.NO_DECISION
        return AuditFinding(**base, audited=None, votes=votes, decision=decision, reason=reason)
    if _close(value, published, tolerance):
        return AuditFinding(**base, audited=value, votes=votes, decision=AuditDecision.AGREES,
                            reason="re-solves agree with the published answer")
    return AuditFinding(**base, audited=value, votes=votes, decision=AuditDecision.FLAGGED,
                        reason=_explain(value, published, exact, relaxations))


def _undecided(item: BenchmarkItem, resolves: Sequence[Resolve], usable: Sequence[Resolve], votes: int, min_votes: int,
               tolerance: float, missing: str | None) -> str:
    unsupported = unsupported_variant(item.variant)
    if unsupported is not None and not usable:
        return f"{unsupported}: no exact model states it" + (f"; {len(resolves)} sandboxed re-solve(s), none usable" if resolves else "")
    failed_exact = [r for r in resolves if r.exact and not r.usable]
    if failed_exact:
        r = failed_exact[0]
        return f"{EXACT_FAILED}: {r.status}" + (f" ({r.detail})" if r.detail else "")
    if len(_distinct([r.objective for r in usable if r.objective is not None], tolerance)) > 1:
        values = ", ".join(f"{v:g}" for v in _distinct([r.objective for r in usable if r.objective is not None], tolerance))
        return f"{RESOLVES_DISAGREE}: {len(usable)} usable re-solve(s) give {values}, {votes} agree on one (need {min_votes} and a majority)"
    if not resolves and missing is not None:
        return f"{NO_INSTANCE}: {missing}"
    return (f"{TOO_FEW}: {len(usable)} usable of {len(resolves)} re-solve(s), {votes} agreeing (need {min_votes})"
            + (f"; {missing}" if missing else ""))


def _explain(value: float, published: float, exact: Sequence[Resolve], relaxations: Sequence[RelaxationResult]) -> str:
    parts = [f"published {published:g}, re-solved optimum {value:g}"]
    if exact and exact[0].routes:
        parts.append("routes " + "; ".join("-".join(str(n) for n in r) for r in exact[0].routes))
    reaching = [r for r in relaxations if r.reaches_published]
    if reaching:
        rules = sorted({r.rule.replace("_", " ") for r in reaching})
        parts.append("the published value is the optimum of the model " + " / ".join(r.description for r in reaching)
                     + f": the label ignores the {' / '.join(rules)} rule")
    elif relaxations:
        tried = ", ".join(f"{r.name} {r.objective:g}" if r.objective is not None else f"{r.name} {r.status}" for r in relaxations)
        parts.append(f"no relaxation the audit knows reproduces the published value (tried: {tried})")
    elif published < value:
        parts.append("published value is below a proven optimum: a relaxed or misread model")
    else:
        parts.append("published value is above the optimum: a suboptimal or misread answer")
    return "; ".join(parts)


# ---- finding an item's instance -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InstanceLookup:
    """Where an item's instance is looked for, in order: each user folder by item id, then by the
    record's own id (the input file's id column), then the benchmark folder's ``instances/``."""

    folders: tuple[Path, ...] = ()
    bench_dir: Path | None = None

    def candidates(self, item: BenchmarkItem) -> list[Path]:
        names = [item.id]
        record_id = item.provenance.get("record_id")
        if record_id is not None and str(record_id) != item.id:
            names.append(str(record_id))
        paths = [folder / f"{name}.json" for folder in self.folders for name in names]
        if self.bench_dir is not None:
            paths.append(self.bench_dir / INSTANCES_DIR / f"{item.id}.json")
        return paths

    def find(self, item: BenchmarkItem) -> tuple[Path | None, list[Path]]:
        """The first instance file that exists, and every path looked at."""
        looked = self.candidates(item)
        return next((p for p in looked if p.is_file()), None), looked


# ---- auditors -----------------------------------------------------------------------------------


def exact_resolve(instance: Instance, *, time_limit: float = 60.0) -> Resolve:
    """Gold script + checker: optimal only when both agree on the routes' cost."""
    audit = audit_gold(instance, time_limit=time_limit)
    open_routes = instance.spec.has(Module.OPEN)
    routes = tuple((r.depot, *r.visits, *(() if open_routes else (r.end_depot if r.end_depot is not None else r.depot,)))
                   for r in audit.routes)
    status = "optimal" if audit.trusted else f"untrusted:{audit.status}"
    return Resolve(origin="instance", status=status, objective=audit.objective if audit.trusted else None, exact=True,
                   routes=routes, detail=audit.detail)


def user_scripts(root: Path, item_id: str) -> list[Path]:
    """``root/<item_id>.py`` and every ``root/<item_id>/*.py``."""
    found = [root / f"{item_id}.py"] if (root / f"{item_id}.py").is_file() else []
    folder = root / item_id
    if folder.is_dir():
        found += sorted(folder.glob("*.py"))
    return found


async def sandboxed_resolves(
    item: BenchmarkItem, scripts: Sequence[tuple[str, str]], verifier: AsyncVerifierClient, time_limit: float | None,
) -> list[Resolve]:
    """(origin, code) pairs run through the verifier (DIFF-only placeholder sample)."""
    if not scripts:
        return []
    sample = diff_only_sample(item)
    try:
        results = await verifier.verify_batch([code for _, code in scripts], sample,
                                              options=VerifyOptions(time_limit=time_limit))
    except VerifierError as exc:
        return [Resolve(origin=origin, status="verifier_unavailable", objective=None, detail=str(exc)) for origin, _ in scripts]
    out = []
    for (origin, _), result in zip(scripts, results, strict=True):
        verdict = result.verdict
        if verdict is None or not verdict.build:
            detail = result.failure if verdict is None else (verdict.error.detail if verdict.error else None)
            out.append(Resolve(origin=origin, status="no_build", objective=None, detail=detail))
            continue
        out.append(Resolve(origin=origin, status=str(verdict.status), objective=verdict.objective))
    return out


async def model_scripts(
    item: BenchmarkItem, generator: Generator, prompt: SystemPrompt, samples: int, temperature: float
) -> list[tuple[str, str]]:
    """``samples`` completions at ``temperature`` (distinct seeds), reduced to their scripts."""
    messages = [{"role": "system", "content": prompt.text}, {"role": "user", "content": item.statement}]
    scripts: list[tuple[str, str]] = []
    for n in range(samples):
        try:
            completion = await generator.complete(messages, DecodingConfig(temperature=temperature, seed=n))
        except GenerationError:
            continue
        code = extract_code(completion.text)
        if code is not None:
            scripts.append((f"model:{n}", code))
    return scripts


async def audit_items(
    items: Sequence[BenchmarkItem],
    *,
    instances: Path | Sequence[Path] | None = None,
    bench_dir: Path | None = None,
    scripts: Path | None = None,
    verifier: AsyncVerifierClient | None = None,
    generator: Generator | None = None,
    prompt: SystemPrompt | None = None,
    samples: int = 5,
    temperature: float = 0.7,
    tolerance: float = 1e-3,
    min_votes: int = 3,
    time_limit: float = 60.0,
    progress: Callable[[int], None] | None = None,
) -> AuditReport:
    """Audit every item with every auditor given (at least one is needed); one finding per item."""
    folders = (instances,) if isinstance(instances, Path) else tuple(instances or ())
    lookup = InstanceLookup(folders, bench_dir)
    if not folders and bench_dir is None and scripts is None and generator is None:
        raise ValueError("give at least one auditor: instances, scripts or a model endpoint")
    if (scripts is not None or generator is not None) and verifier is None:
        raise ValueError("scripts and model re-solves run in the verifier's sandbox: give a verifier")
    findings = []
    for item in items:
        finding = await _audit_one(item, lookup, scripts, verifier, generator, prompt, samples=samples,
                                   temperature=temperature, tolerance=tolerance, min_votes=min_votes, time_limit=time_limit)
        findings.append(finding)
        if progress is not None:
            progress(1)
    return AuditReport(tolerance=tolerance, min_votes=min_votes, findings=tuple(findings))


async def _audit_one(
    item: BenchmarkItem, lookup: InstanceLookup, scripts: Path | None, verifier: AsyncVerifierClient | None,
    generator: Generator | None, prompt: SystemPrompt | None, *, samples: int, temperature: float, tolerance: float,
    min_votes: int, time_limit: float,
) -> AuditFinding:
    resolves: list[Resolve] = []
    relaxations: list[RelaxationResult] = []
    found, looked = lookup.find(item)
    missing = None if found is not None else "looked for " + ", ".join(str(p) for p in looked) if looked else None
    instance: Instance | None = None
    if found is not None:
        try:
            instance = Instance.model_validate_json(found.read_text(encoding="utf-8"))
        except ValueError as exc:
            resolves.append(Resolve(origin="instance", status="invalid_instance", objective=None, exact=True,
                                    detail=f"{found}: {str(exc).splitlines()[0]}"))
    if instance is not None:
        exact = await asyncio.to_thread(exact_resolve, instance, time_limit=time_limit)
        resolves.append(exact)
        if exact.usable and exact.objective is not None and not _close(exact.objective, item.reference_objective, tolerance):
            relaxations = await asyncio.to_thread(solve_relaxations, instance, item.reference_objective,
                                                  tolerance=tolerance, time_limit=time_limit)
    pending: list[tuple[str, str]] = []
    if scripts is not None:
        pending += [(f"script:{p.name}", p.read_text(encoding="utf-8")) for p in user_scripts(scripts, item.id)]
    if generator is not None and prompt is not None:
        pending += await model_scripts(item, generator, prompt, samples, temperature)
    if pending and verifier is not None:
        resolves += await sandboxed_resolves(item, pending, verifier, time_limit)
    return decide(item, resolves, relaxations, tolerance=tolerance, min_votes=min_votes, missing=missing,
                  instance=None if found is None else str(found))

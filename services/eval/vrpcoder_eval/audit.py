"""Label audit of external items (beyond the paper): do the published answers hold?

External benchmarks carry wrong labels. Each external item is re-solved by one or more auditors:

* an **exact re-solve** from an instance the user transcribed into our ``Instance`` format
  (``INSTANCES/<item_id>.json``): our gold script solves it and the solver-free checker confirms the
  routes and their cost. One such re-solve decides alone: it is exact and independently checked.
  It also gives the evidence a reader needs: the routes, and the optimum of the same model with one
  family dropped at a time (no subtour elimination, no capacity, ...) and as an open-route problem,
  so a published value that one of them reaches is explained by the constraint it ignores.
* **scripts** the user supplies per item (``SCRIPTS/<item_id>.py`` or ``SCRIPTS/<item_id>/*.py``),
  and/or a **model endpoint** sampled several times; these run in the verifier's sandbox (they are
  untrusted code) and count when they build and solve to optimality. An item is flagged when a
  consistent majority of at least ``min_votes`` re-solves agree with each other and not with the
  published answer.

A flagged item is never relabelled in place: the audit is its own report, and metrics compute
Pass@1 against the published and the audited labels side by side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from vrpcoder.audit import audit_gold
from vrpcoder.gold import render_gold, solve_script
from vrpcoder.gold.markers import module_names, remove_family
from vrpcoder.instances import Instance
from vrpcoder.variants import get_variant
from vrpcoder_client.client import AsyncVerifierClient, VerifierError
from vrpcoder_client.reward import extract_code
from vrpcoder_client.schemas import VerifyOptions

from vrpcoder_eval.benchmark import BenchmarkItem
from vrpcoder_eval.generation import DecodingConfig, GenerationError, Generator
from vrpcoder_eval.prompts import SystemPrompt
from vrpcoder_eval.runner import diff_only_sample


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


class DroppedRule(BaseModel):
    """The exact model with one rule changed, and whether that reaches the published answer."""

    model_config = ConfigDict(frozen=True)

    change: str
    status: str
    objective: float | None
    reaches_published: bool


class AuditFinding(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_id: str
    published: float
    resolves: tuple[Resolve, ...]
    audited: float | None
    """The value the auditors settle on (None: no decision, too few or inconsistent re-solves)."""
    votes: int
    usable: int
    flagged: bool
    reason: str
    dropped: tuple[DroppedRule, ...] = ()


class AuditReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    tolerance: float
    min_votes: int
    findings: tuple[AuditFinding, ...]

    def audited_labels(self) -> dict[str, float]:
        """item id -> audited value, for the flagged items only."""
        return {f.item_id: f.audited for f in self.findings if f.flagged and f.audited is not None}

    def markdown_lines(self) -> list[str]:
        flagged = [f for f in self.findings if f.flagged]
        lines = [
            f"## Label audit: {len(flagged)} of {len(self.findings)} external items flagged",
            "Published answers are never overwritten; Pass@1 against audited labels is reported beside the published one.",
            "",
            "| item | published | audited | re-solves (usable / agreeing) | reason |",
            "|---|---|---|---|---|",
        ]
        for f in self.findings:
            audited = "n/a" if f.audited is None else f"{f.audited:g}"
            mark = " (flagged)" if f.flagged else ""
            lines.append(f"| {f.item_id}{mark} | {f.published:g} | {audited} | {f.usable} / {f.votes} | {f.reason} |")
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


def decide(item: BenchmarkItem, resolves: Sequence[Resolve], dropped: Sequence[DroppedRule], *, tolerance: float,
           min_votes: int) -> AuditFinding:
    """Flag or not, with the reason in words."""
    published = item.reference_objective
    usable = [r for r in resolves if r.usable]
    exact = [r for r in usable if r.exact]
    if exact:
        value, votes = exact[0].objective, 1
        decided = True
    else:
        value, votes = majority([r.objective for r in usable if r.objective is not None], tolerance)
        decided = value is not None and votes >= min_votes and votes * 2 > len(usable)
    if not decided or value is None:
        reason = f"no decision: {len(usable)} usable re-solve(s), {votes} agreeing (need {min_votes} and a majority)"
        return AuditFinding(item_id=item.id, published=published, resolves=tuple(resolves), audited=None, votes=votes,
                            usable=len(usable), flagged=False, reason=reason, dropped=tuple(dropped))
    if _close(value, published, tolerance):
        return AuditFinding(item_id=item.id, published=published, resolves=tuple(resolves), audited=value, votes=votes,
                            usable=len(usable), flagged=False, reason="re-solves agree with the published answer",
                            dropped=tuple(dropped))
    return AuditFinding(item_id=item.id, published=published, resolves=tuple(resolves), audited=value, votes=votes,
                        usable=len(usable), flagged=True, reason=_explain(value, published, exact, dropped),
                        dropped=tuple(dropped))


def _explain(value: float, published: float, exact: Sequence[Resolve], dropped: Sequence[DroppedRule]) -> str:
    parts = [f"published {published:g}, re-solved optimum {value:g}"]
    if exact and exact[0].routes:
        parts.append("routes " + "; ".join("-".join(str(n) for n in r) for r in exact[0].routes))
    reaching = [d.change for d in dropped if d.reaches_published]
    if reaching:
        parts.append("the published value is reached " + " / ".join(reaching) + ": it appears to ignore that rule")
    elif dropped:
        parts.append("no single dropped rule reproduces the published value")
    elif published < value:
        parts.append("published value is below a proven optimum: a relaxed or misread model")
    else:
        parts.append("published value is above the optimum: a suboptimal or misread answer")
    return "; ".join(parts)


# ---- auditors -----------------------------------------------------------------------------------


def exact_resolve(instance: Instance, *, time_limit: float = 60.0) -> Resolve:
    """Gold script + checker: optimal only when both agree on the routes' cost."""
    audit = audit_gold(instance, time_limit=time_limit)
    routes = tuple((r.depot, *r.visits, r.depot) for r in audit.routes)
    status = "optimal" if audit.trusted else f"untrusted:{audit.status}"
    return Resolve(origin="instance", status=status, objective=audit.objective if audit.trusted else None, exact=True,
                   routes=routes, detail=audit.detail)


def open_variant(variant: str) -> str | None:
    """The open-route counterpart of a variant (CVRP -> OVRP, VRPHTW -> OVRPHTW), if it exists."""
    for name in (f"O{variant}", f"O{variant.removeprefix('C')}"):
        try:
            return get_variant(name).name
        except (KeyError, ValueError):
            continue
    return None


def dropped_rules(instance: Instance, published: float, *, tolerance: float, time_limit: float = 60.0) -> list[DroppedRule]:
    """The exact model with each family dropped in turn, and as an open-route problem."""
    script = render_gold(instance, time_limit=time_limit)
    names = set(module_names(script))
    out: list[DroppedRule] = []
    for family in instance.spec.families:
        if family.value not in names:
            continue
        result = solve_script(remove_family(script, family.value), instance)
        out.append(_rule(f"without {family.value.replace('_', ' ')}", result.status.value, result.objective, published, tolerance))
    opened = open_variant(instance.variant)
    if opened is not None:
        try:
            variant_instance = Instance.model_validate({**instance.model_dump(), "variant": opened})
        except ValueError:
            variant_instance = None
        if variant_instance is not None:
            result = solve_script(render_gold(variant_instance, time_limit=time_limit), variant_instance)
            out.append(_rule("as open routes", result.status.value, result.objective, published, tolerance))
    return out


def _rule(change: str, status: str, objective: float | None, published: float, tolerance: float) -> DroppedRule:
    reaches = status == "optimal" and objective is not None and _close(objective, published, tolerance)
    return DroppedRule(change=change, status=status, objective=objective, reaches_published=reaches)


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
    instances: Path | None = None,
    scripts: Path | None = None,
    verifier: AsyncVerifierClient | None = None,
    generator: Generator | None = None,
    prompt: SystemPrompt | None = None,
    samples: int = 5,
    temperature: float = 0.7,
    tolerance: float = 1e-3,
    min_votes: int = 3,
    time_limit: float = 60.0,
) -> AuditReport:
    """Audit every item with every auditor given (at least one is needed)."""
    if instances is None and scripts is None and generator is None:
        raise ValueError("give at least one auditor: instances, scripts or a model endpoint")
    if (scripts is not None or generator is not None) and verifier is None:
        raise ValueError("scripts and model re-solves run in the verifier's sandbox: give a verifier")
    findings = []
    for item in items:
        resolves: list[Resolve] = []
        dropped: list[DroppedRule] = []
        if instances is not None and (instances / f"{item.id}.json").is_file():
            instance = Instance.model_validate_json((instances / f"{item.id}.json").read_text(encoding="utf-8"))
            exact = await asyncio.to_thread(exact_resolve, instance, time_limit=time_limit)
            resolves.append(exact)
            if exact.usable and exact.objective is not None and not _close(exact.objective, item.reference_objective, tolerance):
                dropped = await asyncio.to_thread(dropped_rules, instance, item.reference_objective,
                                                  tolerance=tolerance, time_limit=time_limit)
        pending: list[tuple[str, str]] = []
        if scripts is not None:
            pending += [(f"script:{p.name}", p.read_text(encoding="utf-8")) for p in user_scripts(scripts, item.id)]
        if generator is not None and prompt is not None:
            pending += await model_scripts(item, generator, prompt, samples, temperature)
        if pending and verifier is not None:
            resolves += await sandboxed_resolves(item, pending, verifier, time_limit)
        findings.append(decide(item, resolves, dropped, tolerance=tolerance, min_votes=min_votes))
    return AuditReport(tolerance=tolerance, min_votes=min_votes, findings=tuple(findings))

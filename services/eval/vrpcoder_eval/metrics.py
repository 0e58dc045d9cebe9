"""Metrics of a run: Pass@1 with bootstrap intervals, build / DIFF / INJ rates, per-family rates,
error kinds, and the comparison of two runs.

Rates are over *scored* items (unscored ones are counted apart: an outage is not the model's
failure). Two per-family views:

* **caught families** count every check that names a family, read generically off the verdict's
  ``failed_checks``: each entry ``<check>:<family>`` (``inj:capacity``, ``optimum:time_window``,
  and whatever check a later verifier adds in that form) counts for that family under that check,
  and a failed ``diff`` counts for the families the item's own optimal plan breaks (its
  ``optimum:<family>`` entries: the objective is off because that rule is broken). A DIFF failure
  with a plan the checker accepts is an objective error and names no family. ``inj:feasible`` is
  the feasible probe (row ``feasible_probe``). A bug that only DIFF or the optimum check sees is
  counted here, where the probe table would miss it;
* **INJ probes** per family, split the two ways they matter: a **false accept** is a violating probe
  of that family the candidate's model called feasible (the family is missing or too weak in the
  model); a **false reject** is the feasible probe called infeasible (the model is too tight, e.g.
  a spurious rule). Unjudgeable probes count neither way.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict
from vrpcoder.variants import VARIANTS

from vrpcoder_eval.results import PASS, ItemResult, ItemStatus

FEASIBLE_PROBE = "feasible_probe"
"""The row of the family tables that holds the feasible probe s+ (its false rejects)."""
FEASIBLE_CHECK = "feasible"
"""The family part of ``inj:feasible`` in ``failed_checks``."""
DIFF_CHECK = "diff"
OPTIMUM_CHECK = "optimum"
BOOTSTRAP_SAMPLES = 2000
CONFIDENCE = 0.95


class Rate(BaseModel):
    """A proportion with its percentile-bootstrap confidence interval."""

    model_config = ConfigDict(frozen=True)

    passed: int
    total: int
    rate: float | None
    low: float | None
    high: float | None


def bootstrap_rate(outcomes: Sequence[bool], *, samples: int = BOOTSTRAP_SAMPLES, seed: int = 0) -> Rate:
    """The share of True and a percentile bootstrap interval (seeded: reports are reproducible). The
    outcomes are put in a fixed order first, so the interval depends on the counts alone, never on the
    order in which results arrived (verification finishes items in any order)."""
    outcomes = sorted(outcomes)
    n = len(outcomes)
    k = sum(outcomes)
    if n == 0:
        return Rate(passed=0, total=0, rate=None, low=None, high=None)
    rng = random.Random(seed)
    draws = sorted(sum(rng.choices(outcomes, k=n)) / n for _ in range(samples))
    tail = (1.0 - CONFIDENCE) / 2.0
    low = draws[int(tail * (samples - 1))]
    high = draws[int((1.0 - tail) * (samples - 1))]
    return Rate(passed=k, total=n, rate=k / n, low=low, high=high)


class GroupMetrics(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str
    items: int
    pass_at_1: Rate
    dual_pass: Rate
    build: Rate
    inj: Rate
    """Over items with a sample whose candidate built and had probes judged."""


class FamilyMetrics(BaseModel):
    """One constraint family's probes (or the feasible probe) over a set of items."""

    model_config = ConfigDict(frozen=True)

    family: str
    judged: int
    passed: int
    rate: float | None
    false_accepts: int
    """Violating probes answered feasible."""
    false_rejects: int
    """Feasible probes answered infeasible."""
    errors: int
    """Probes whose INJ query ended in an error."""
    unjudgeable: int


class CaughtFamily(BaseModel):
    """How many items' checks caught one family (or the feasible probe), in all and per check."""

    model_config = ConfigDict(frozen=True)

    family: str
    items: int
    """Items on which at least one check named the family."""
    by_check: dict[str, int]
    """check (``inj``, ``optimum``, ``diff``, ...) -> items on which that check named the family."""


class HeatCell(BaseModel):
    """One variant x family cell: items whose script built, and how many of them a check caught there."""

    model_config = ConfigDict(frozen=True)

    built: int
    caught: int

    @property
    def rate(self) -> float | None:
        """Share of built items on which no check named the family."""
        return None if self.built == 0 else 1.0 - self.caught / self.built


class ItemFailure(BaseModel):
    """A scored item that did not pass: its outcome and every failed check, with the families they name."""

    model_config = ConfigDict(frozen=True)

    item_id: str
    benchmark: str
    variant: str | None
    outcome: str
    checks: tuple[str, ...]
    families: tuple[str, ...]


class RunMetrics(BaseModel):
    model_config = ConfigDict(frozen=True)

    label: str
    scored: int
    unscored: int
    unscored_reasons: dict[str, int]
    overall: GroupMetrics
    benchmarks: tuple[GroupMetrics, ...]
    variants: tuple[GroupMetrics, ...]
    """Keys ``b1/CVRP``: per benchmark and variant."""
    sources: tuple[GroupMetrics, ...]
    """Keys ``b3/tsplib``: per benchmark and source."""
    families: tuple[FamilyMetrics, ...]
    family_by_variant: dict[str, tuple[FamilyMetrics, ...]]
    error_kinds: dict[str, int]
    """Outcome counts of the scored items that did not pass (``inj_failed``, ``wrong_objective``, kinds)."""
    audited: tuple[GroupMetrics, ...] = ()
    """Pass@1 against audited labels, per benchmark the audit covered."""
    caught: tuple[CaughtFamily, ...] = ()
    """Families named by any check (see the module docstring), over every scored item."""
    heatmap: dict[str, dict[str, HeatCell]] = {}
    """variant -> family -> cell, for every family the variant states or a check named on it."""
    failures: tuple[ItemFailure, ...] = ()


def group(key: str, results: Sequence[ItemResult], seed: int = 0) -> GroupMetrics:
    with_inj = [r for r in results if r.inj is not None]
    return GroupMetrics(
        key=key,
        items=len(results),
        pass_at_1=bootstrap_rate([r.pass_at_1 for r in results], seed=seed),
        dual_pass=bootstrap_rate([r.dual_pass for r in results], seed=seed + 1),
        build=bootstrap_rate([r.build for r in results], seed=seed + 2),
        inj=bootstrap_rate([bool(r.inj) for r in with_inj], seed=seed + 3),
    )


def _grouped(results: Iterable[ItemResult], key: Callable[[ItemResult], str]) -> tuple[GroupMetrics, ...]:
    buckets: dict[str, list[ItemResult]] = defaultdict(list)
    for r in results:
        buckets[key(r)].append(r)
    return tuple(group(k, v) for k, v in sorted(buckets.items()))


def family_metrics(results: Iterable[ItemResult]) -> tuple[FamilyMetrics, ...]:
    """Per family (and the feasible probe), over every probe of every scored item."""
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        for p in r.probes:
            row = counts[p.family or FEASIBLE_PROBE]
            if not p.judged:
                row["unjudgeable"] += 1
                continue
            row["judged"] += 1
            row["passed"] += p.passed
            if p.verdict == "error":
                row["errors"] += 1
            elif p.label == "infeasible" and p.verdict == "feasible":
                row["false_accepts"] += 1
            elif p.label == "feasible" and not p.passed:
                row["false_rejects"] += 1
    order = sorted(counts, key=lambda f: (f != FEASIBLE_PROBE, f))
    return tuple(
        FamilyMetrics(
            family=f,
            judged=counts[f]["judged"],
            passed=counts[f]["passed"],
            rate=counts[f]["passed"] / counts[f]["judged"] if counts[f]["judged"] else None,
            false_accepts=counts[f]["false_accepts"],
            false_rejects=counts[f]["false_rejects"],
            errors=counts[f]["errors"],
            unjudgeable=counts[f]["unjudgeable"],
        )
        for f in order
    )


def caught_by_item(result: ItemResult) -> dict[str, set[str]]:
    """family -> the checks that named it on this item (see the module docstring)."""
    found: dict[str, set[str]] = defaultdict(set)
    diff_failed = False
    for entry in result.failed_checks:
        check, sep, family = entry.partition(":")
        if not sep:
            diff_failed = diff_failed or check == DIFF_CHECK
            continue
        found[FEASIBLE_PROBE if family == FEASIBLE_CHECK else family].add(check)
    if diff_failed:
        for family, checks in found.items():
            if OPTIMUM_CHECK in checks:
                checks.add(DIFF_CHECK)
    return dict(found)


def caught_families(results: Iterable[ItemResult]) -> tuple[CaughtFamily, ...]:
    items: Counter[str] = Counter()
    by_check: dict[str, Counter[str]] = defaultdict(Counter)
    for r in results:
        for family, checks in caught_by_item(r).items():
            items[family] += 1
            by_check[family].update(checks)
    order = sorted(items, key=lambda f: (f == FEASIBLE_PROBE, f))
    return tuple(CaughtFamily(family=f, items=items[f], by_check=dict(sorted(by_check[f].items()))) for f in order)


def stated_families(variant: str | None) -> tuple[str, ...]:
    """The families a variant's exact model states (none for a variant the registry does not know)."""
    spec = VARIANTS.get(variant or "")
    return () if spec is None else tuple(f.value for f in spec.families)


def heatmap(results: Iterable[ItemResult]) -> dict[str, dict[str, HeatCell]]:
    """variant -> family -> (built items, items caught): a family gets a cell where the variant states
    it, where its items had probes of it, or where a check named it; the rest is left blank."""
    built: Counter[str] = Counter()
    caught: dict[str, Counter[str]] = defaultdict(Counter)
    applies: dict[str, set[str]] = defaultdict(set)
    for r in results:
        if not r.build:
            continue
        variant = r.variant or "unknown"
        built[variant] += 1
        applies[variant].update(stated_families(r.variant))
        applies[variant].update(p.family or FEASIBLE_PROBE for p in r.probes)
        for family in caught_by_item(r):
            caught[variant][family] += 1
            applies[variant].add(family)
    return {v: {f: HeatCell(built=built[v], caught=caught[v][f]) for f in sorted(applies[v])}
            for v in sorted(built) if applies[v]}


def item_failures(results: Iterable[ItemResult]) -> tuple[ItemFailure, ...]:
    out = []
    for r in results:
        if r.outcome == PASS:
            continue
        out.append(ItemFailure(item_id=r.item_id, benchmark=r.benchmark.value, variant=r.variant, outcome=r.outcome,
                               checks=r.failed_checks, families=tuple(sorted(caught_by_item(r)))))
    return tuple(sorted(out, key=lambda f: (f.benchmark, f.item_id)))


def with_audited_labels(results: Sequence[ItemResult], audited: Mapping[str, float], tolerance: float) -> list[ItemResult]:
    """The same results judged against audited reference values where an audit gave one."""
    out = []
    for r in results:
        ref = audited.get(r.item_id)
        if ref is None:
            out.append(r)
            continue
        ok = r.build and r.objective is not None and abs(r.objective - ref) <= tolerance
        out.append(r.model_copy(update={"pass_at_1": ok, "diff": ok, "dual_pass": ok and r.inj is not False,
                                        "reference_objective": ref}))
    return out


def compute(
    label: str, results: Sequence[ItemResult], *, audited: Mapping[str, float] | None = None, tolerance: float = 1e-3,
    audit_covered: set[str] | None = None,
) -> RunMetrics:
    """Every metric of a run. ``audited``: item id -> audited label (flagged items); ``audit_covered``:
    every item the audit looked at, so Pass@1 against audited labels is given only for the benchmarks
    the audit covered (default: those holding a relabelled item)."""
    done = [r for r in results if r.status is ItemStatus.SCORED]
    skipped = [r for r in results if r.status is ItemStatus.UNSCORED]
    by_variant: dict[str, list[ItemResult]] = defaultdict(list)
    for r in done:
        by_variant[r.variant or "unknown"].append(r)
    audited_groups: tuple[GroupMetrics, ...] = ()
    if audited:
        covered = audit_covered if audit_covered is not None else set(audited)
        benchmarks = {r.benchmark for r in done if r.item_id in covered}
        relabelled = with_audited_labels([r for r in done if r.benchmark in benchmarks], audited, tolerance)
        audited_groups = _grouped(relabelled, lambda r: r.benchmark.value)
    return RunMetrics(
        label=label,
        scored=len(done),
        unscored=len(skipped),
        unscored_reasons=dict(Counter(r.outcome for r in skipped)),
        overall=group("all", done),
        benchmarks=_grouped(done, lambda r: r.benchmark.value),
        variants=_grouped(done, lambda r: f"{r.benchmark.value}/{r.variant or 'unknown'}"),
        sources=_grouped(done, lambda r: f"{r.benchmark.value}/{r.source}"),
        families=family_metrics(done),
        family_by_variant={v: family_metrics(rs) for v, rs in sorted(by_variant.items())},
        error_kinds=dict(Counter(r.outcome for r in done if r.outcome != PASS).most_common()),
        audited=audited_groups,
        caught=caught_families(done),
        heatmap=heatmap(done),
        failures=item_failures(done),
    )


class Flip(BaseModel):
    model_config = ConfigDict(frozen=True)

    item_id: str
    benchmark: str
    before: str
    after: str


class Comparison(BaseModel):
    """Run B against run A on the items both scored."""

    model_config = ConfigDict(frozen=True)

    base: str
    other: str
    common: int
    pass_delta: dict[str, float]
    """Pass@1 of B minus A per benchmark (and ``all``), on the common items."""
    gained: tuple[Flip, ...]
    """Items A failed and B passes (Pass@1)."""
    lost: tuple[Flip, ...]
    dual_gained: tuple[Flip, ...]
    dual_lost: tuple[Flip, ...]


def compare(base_label: str, base: Sequence[ItemResult], other_label: str, other: Sequence[ItemResult]) -> Comparison:
    a = {r.item_id: r for r in base if r.status is ItemStatus.SCORED}
    b = {r.item_id: r for r in other if r.status is ItemStatus.SCORED}
    common = sorted(a.keys() & b.keys())
    per: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for i in common:
        pair = (a[i].pass_at_1, b[i].pass_at_1)
        per[a[i].benchmark.value].append(pair)
        per["all"].append(pair)
    delta = {k: (sum(y for _, y in v) - sum(x for x, _ in v)) / len(v) for k, v in sorted(per.items())}

    def flips(attr: str, gained: bool) -> tuple[Flip, ...]:
        out = []
        for i in common:
            x, y = getattr(a[i], attr), getattr(b[i], attr)
            if (not x and y) if gained else (x and not y):
                out.append(Flip(item_id=i, benchmark=a[i].benchmark.value, before=a[i].outcome, after=b[i].outcome))
        return tuple(out)

    return Comparison(
        base=base_label, other=other_label, common=len(common), pass_delta=delta,
        gained=flips("pass_at_1", True), lost=flips("pass_at_1", False),
        dual_gained=flips("dual_pass", True), dual_lost=flips("dual_pass", False),
    )

"""Stage 1 of the pipeline: assemble verified samples (I*, C_gold, reference objective, s+, {s-}).

A probe is kept only when two independent judges agree on its label: the gold script, through the
same INJ operator that later judges candidates, and the solver-free checker. Their disagreement is
never a sample; it is counted as ``disagreement`` because it means one of them has a bug.

The base sample lives on the relaxed instance I*; every parameter attack produces its own
attacked copy I*_a with its own gold script and reference optimum. Both are built by one function,
so an attacked copy carries, on its own instance, the same probes as the base sample (s+, the
far-apart feasible plans, the structural, edge and gold-derived probes of every family its variant
encodes) and its own attack's probe besides.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from vrpcoder.attacks import Attack, AttackSkipped, run_attacks, run_edge_attacks
from vrpcoder.attacks.derived import (
    FREEDOM_REQUIREMENTS,
    derived_attack,
    derived_rule_attack,
    derived_service_time,
    derived_waiting,
    fewest_vehicles_plan,
    freedom_plan,
)
from vrpcoder.attacks.editing import label_problem
from vrpcoder.candidate import BuiltCandidate, build_candidate
from vrpcoder.checker import check, compartment_loads
from vrpcoder.errors import VerificationFailure
from vrpcoder.families import Family
from vrpcoder.feasible import FREEDOMS, diverse_feasible, feasible_probe
from vrpcoder.gold import render_gold
from vrpcoder.injection import InjVerdict, inject
from vrpcoder.instances import Instance
from vrpcoder.probes import Label, Probe
from vrpcoder.relaxation import relax
from vrpcoder.sampling import sample_instance
from vrpcoder.solutions import Solution
from vrpcoder.variants import ATTACKERS, DERIVED_ATTACKERS, DERIVED_RULE_ATTACKERS, Attacker, Module

BASE_KIND = "base"


class Sample(BaseModel):
    """One verified sample: everything a verifier needs to judge a candidate for this instance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    variant: str
    kind: str
    """``base`` (I*) or the parameter attacker that made I*_a."""
    profile: int | None = None
    seed: int | None = None
    instance: Instance
    gold_code: str
    reference_objective: float
    probes: tuple[Probe, ...]
    """The feasible probes first (s+, then the far-apart ones found on this sample's instance), then
    the violating ones: on an attacked copy its own attack's probe, then on every sample the
    paper's structural probes and the edge probes of every family the variant encodes (or, where
    those found none, the gold-derived ones)."""
    node_id_map: dict[str, str] | None = None
    """Internal node number -> the id the index-rewritten statement uses (Stage 2), as strings;
    the verifier composes it with the candidate's own ``id2idx`` / ``node_ids``."""
    statement: str | None = None


class ProbeOutcome(StrEnum):
    KEPT = "kept"
    NOT_APPLICABLE = "not_applicable"
    """The attacker found no way to build its probe on this s+ (e.g. no route with two customers)."""
    GOLD_ERROR = "gold_error"
    """The gold INJ solve ended without a verdict (time limit, licence)."""
    GOLD_REJECTS_PLUS = "gold_rejects_plus"
    """The gold script rejected s+ on the attacked copy."""
    DISAGREEMENT = "disagreement"
    """Gold INJ and the checker disagree on a label: a bug in one of them."""
    NO_FEASIBLE_PROBE = "no_feasible_probe"


@dataclass(frozen=True, slots=True)
class ProbeRecord:
    """The fate of one candidate probe, for the kept/discarded report."""

    attacker: Attacker | None
    family: Family | None
    outcome: ProbeOutcome
    reason: str = ""


@dataclass
class BuildReport:
    samples: list[Sample] = field(default_factory=list)
    records: list[ProbeRecord] = field(default_factory=list)

    def counts(self) -> Counter[tuple[str, str]]:
        """(probe name, outcome) -> count, the figure `samples grid` prints."""
        return Counter(
            ("s+" if r.attacker is None else r.attacker.value, r.outcome.value) for r in self.records
        )

    def extend(self, other: BuildReport) -> None:
        self.samples.extend(other.samples)
        self.records.extend(other.records)

    def sources(self) -> dict[tuple[str, Family], tuple[str, ...]]:
        """(variant, family) -> the attackers whose probes the base samples kept for that family on
        their own instance ("none" where no attacker produced one): which families a single sample
        checks, and whether hand-written or gold-derived attackers made the probe."""
        out: dict[tuple[str, Family], set[str]] = {}
        for sample in self.samples:
            if sample.kind != BASE_KIND:
                continue
            spec = sample.instance.spec
            for family in spec.families:
                out.setdefault((spec.name, family), set())
            for probe in sample.probes:
                if probe.attacker is not None:
                    for family in ATTACKERS[probe.attacker].reveals:
                        out.setdefault((spec.name, family), set()).add(probe.attacker.value)
        return {key: tuple(sorted(found)) or ("none",) for key, found in out.items()}


@dataclass(frozen=True, slots=True)
class _GoldModel:
    code: str
    built: BuiltCandidate
    objective: float


def _gold_model(instance: Instance, time_limit: float) -> _GoldModel | str:
    code = render_gold(instance, time_limit=time_limit)
    try:
        built = build_candidate(code, time_limit=time_limit)
    except VerificationFailure as failure:
        return f"gold script failed: {failure.error.kind.value}: {failure.error.detail}"
    outcome = built.outcome
    if outcome.status != "optimal" or outcome.objective is None:
        return f"gold solve ended {outcome.status} without a proven optimum"
    return _GoldModel(code=code, built=built, objective=outcome.objective)


def _judge(gold: _GoldModel, instance: Instance, probe: Probe, time_limit: float) -> ProbeRecord | None:
    """None when gold INJ and the checker both confirm the probe's label, else the discard record."""
    result = inject(gold.built, instance, probe, time_limit=time_limit)
    if result.verdict is InjVerdict.ERROR:
        detail = result.error.detail if result.error else result.status
        return ProbeRecord(probe.attacker, probe.family, ProbeOutcome.GOLD_ERROR, detail)
    gold_label = Label.FEASIBLE if result.verdict is InjVerdict.FEASIBLE else Label.INFEASIBLE
    report = check(instance, probe.solution)
    checker_label = Label.FEASIBLE if report.feasible else Label.INFEASIBLE
    expected = () if probe.family is None else (probe.family,)
    # a sub-rule probe must break exactly its one rule (issue 28.2), not just its family
    part = None if probe.attacker is None or report.families != expected else label_problem(report, probe.attacker)
    if gold_label is not probe.label or checker_label is not probe.label or report.families != expected or part:
        why = (
            f"intended {probe.label.value}; gold INJ says {gold_label.value}; "
            f"checker says {checker_label.value} {[f.value for f in report.families]}"
        )
        why += f"; the probe {part}" if part else ""
        return ProbeRecord(probe.attacker, probe.family, ProbeOutcome.DISAGREEMENT, why)
    return None


def _violating(attack: Attack) -> Probe:
    return Probe(label=Label.INFEASIBLE, solution=attack.solution, attacker=attack.attacker, family=attack.family)


def _sample_id(base_name: str, kind: str) -> str:
    return f"{base_name}-{kind}"


def attacked_name(base_name: str, attacker: Attacker) -> str:
    """An attacked copy's instance name: the base instance's and the attack that changed it
    (``CVRP-p1-s0+capacity_overload``). The copies of one grid point differ in their data and
    their reference objectives, so sharing the base name would make them look like one instance."""
    return f"{base_name}+{attacker.value}"


def build_samples(
    instance: Instance,
    *,
    seed: int = 0,
    time_limit: float = 60.0,
    fallback_time_limit: float = 15.0,
    relax_instance: bool = True,
    parameter_attacks: bool = True,
) -> BuildReport:
    """All verified samples of one base instance (the base sample first).

    The base sample and every attacked copy are built by the same :func:`_probed_sample`, each on
    its own instance: a rule that a copy's data changes (a tightened capacity, narrowed windows, a
    shorter distance limit) is probed there as it is on I*, so no sample a reward is computed on
    leaves a family of its variant unprobed.

    ``relax_instance=False`` keeps the instance's own data in the base sample (evaluation on library
    sub-instances states the real numbers); ``parameter_attacks=False`` builds the base sample only.
    """
    report = BuildReport()
    found = feasible_probe(instance, fallback_time_limit=fallback_time_limit)
    if found is None:
        report.records.append(ProbeRecord(None, None, ProbeOutcome.NO_FEASIBLE_PROBE, "heuristic and gold fallback failed"))
        return report
    relaxed = relax(instance, found.solution) if relax_instance else instance
    plus = Probe(label=Label.FEASIBLE, solution=found.solution)
    attacked = _probed_sample(relaxed, plus, relaxed.name, seed=seed, time_limit=time_limit, report=report)
    if parameter_attacks:
        for attack in attacked:
            named = attack.instance.model_copy(update={"name": attacked_name(relaxed.name, attack.attacker)})
            own = attack.model_copy(update={"instance": named})
            _probed_sample(named, plus, relaxed.name, seed=seed, time_limit=time_limit, report=report, own=own)
    return report


def _probed_sample(
    instance: Instance,
    plus: Probe,
    base_name: str,
    *,
    seed: int,
    time_limit: float,
    report: BuildReport,
    own: Attack | None = None,
) -> list[Attack]:
    """Build one sample on ``instance``: the base sample (``own`` None) or the attacked copy that
    ``own``, a parameter attack, made; returns the base sample's parameter attacks (none for a copy).

    Every sample gets the same kinds of probe, built on its own instance and confirmed by its own
    gold script: s+ and the far-apart feasible plans (``diverse_feasible``, the gold model's fewest
    vehicles), the structural and edge probes of every attacker the variant table enables
    (``Variant.enabled_attackers``, ``Variant.on_instance``), and the gold-derived ones for a family
    none of those broke. A copy puts its own attack's probe first among the violating ones (without
    it kept there is no copy) and skips the parameter attacks it proposes itself: those would be
    copies of copies.
    """
    gold = _gold_model(instance, time_limit)
    if isinstance(gold, str):
        attacker, family = (None, None) if own is None else (own.attacker, own.family)
        report.records.append(ProbeRecord(attacker, family, ProbeOutcome.GOLD_ERROR, gold))
        return []
    rejected = _judge(gold, instance, plus, time_limit)
    if rejected is not None:
        if own is not None:
            rejected = ProbeRecord(own.attacker, own.family, ProbeOutcome.GOLD_REJECTS_PLUS, "s+ not accepted on I*_a")
        report.records.append(rejected)
        return []
    violating: list[Probe] = []
    if own is None:
        report.records.append(ProbeRecord(None, None, ProbeOutcome.KEPT))
    else:
        violating = _keep(gold, instance, [_violating(own)], time_limit, report)
        if not violating:
            return []
    feasible = [plus, *_keep(gold, instance, _far_apart(instance, plus), time_limit, report)]

    structural: list[Probe] = []
    parameter: list[Attack] = []
    proposals = [
        *run_attacks(instance, plus.solution, seed=seed, parametric=own is None),
        *run_edge_attacks(instance, plus.solution, seed=seed),
    ]
    for proposal in proposals:
        if isinstance(proposal, AttackSkipped):
            report.records.append(ProbeRecord(proposal.attacker, None, ProbeOutcome.NOT_APPLICABLE, proposal.reason))
        elif proposal.bound is None:
            structural.append(_violating(proposal))
        else:
            parameter.append(proposal)

    violating += _keep(gold, instance, structural, time_limit, report)
    violating += _derived(gold, instance, violating, time_limit, report)
    kind = BASE_KIND if own is None else own.attacker.value
    report.samples.append(_assemble(instance, kind, gold, (*feasible, *violating), base_name))
    return parameter


def _far_apart(instance: Instance, plus: Probe) -> list[Probe]:
    """The feasible plans a sample carries besides s+, before the gold script confirms them: the
    heuristic ones (``diverse_feasible``), then from the gold model a plan with fewer vehicles where
    every plan so far uses the whole fleet, and a plan for each freedom the gold model can be asked
    for (``FREEDOM_REQUIREMENTS``) that no plan so far uses."""
    extra = [
        Probe(label=Label.FEASIBLE, solution=plan, variety=name)
        for name, plan in diverse_feasible(instance, plus.solution)
    ]
    fewest = _fewer_vehicles(instance, [plus, *extra])
    if fewest is not None:
        extra.insert(0, Probe(label=Label.FEASIBLE, solution=fewest, variety="fewest_vehicles"))
    for freedom in FREEDOMS:
        if freedom.name not in FREEDOM_REQUIREMENTS or not freedom.allowed(instance):
            continue
        if any(freedom.used(instance, p.solution) for p in (plus, *extra)):
            continue
        plan, _ = freedom_plan(instance, freedom.name, time_limit=DERIVED_TIME_LIMIT)
        if plan is not None and freedom.used(instance, plan):
            extra.append(Probe(label=Label.FEASIBLE, solution=plan, variety=freedom.name))
    return extra


def _keep(
    gold: _GoldModel, instance: Instance, probes: Iterable[Probe], time_limit: float, report: BuildReport
) -> list[Probe]:
    kept: list[Probe] = []
    for probe in probes:
        rejected = _judge(gold, instance, probe, time_limit)
        if rejected is None:
            kept.append(probe)
            report.records.append(ProbeRecord(probe.attacker, probe.family, ProbeOutcome.KEPT))
        else:
            report.records.append(rejected)
    return kept


def _fewer_vehicles(instance: Instance, probes: list[Probe]) -> Solution | None:
    """A plan with fewer vehicles than the fleet from the gold model, when every feasible probe so
    far uses the whole fleet (else a model that forces every vehicle out goes unnoticed)."""
    fleet = len(instance.vehicles)
    if fleet < 2 or any(_used(p.solution) < fleet for p in probes):
        return None
    plan, _ = fewest_vehicles_plan(instance, time_limit=DERIVED_TIME_LIMIT)
    return plan if plan is not None and _used(plan) < fleet else None


def _used(plan: Solution) -> int:
    return sum(1 for r in plan.routes if r.visits)


DERIVED_TIME_LIMIT = 10.0
"""Cap on a gold-derived attacker's solve (it runs only where the hand-written ones found nothing)."""


def _derived(
    gold: _GoldModel, instance: Instance, kept: list[Probe], time_limit: float, report: BuildReport
) -> list[Probe]:
    """Gold-derived probes for the families the variant encodes that no kept probe of the sample
    breaks (issue 14.4: the fallback behind the hand-written attackers), for the rules of a compound
    family that no kept probe breaks alone (issue 28.2), and with hard windows a service-time-only
    and a waiting-only lateness where the edge attackers found none."""
    covered = {f for p in kept if p.attacker is not None for f in ATTACKERS[p.attacker].reveals}
    ruled = {r for p in kept if p.attacker is not None for r in ATTACKERS[p.attacker].rules}
    probes: list[Probe] = []
    proposals: list[Attack | AttackSkipped] = []
    limit = min(time_limit, DERIVED_TIME_LIMIT)
    for family in instance.spec.families:
        attacker = DERIVED_ATTACKERS.get(family)
        if attacker is None or family in covered and not set(ATTACKERS[attacker].rules) - ruled:
            continue
        proposals.append(derived_attack(instance, family, time_limit=limit))
    for rule, attacker in DERIVED_RULE_ATTACKERS.items():
        if rule.family in instance.spec.families and rule not in ruled:
            proposals.append(derived_rule_attack(instance, rule, time_limit=limit))
    if Family.COMPARTMENT in covered:
        # one compartment probed by hand, another not (issue 28.2: a probe per compartment)
        missing = sorted(set(range(_width(instance))) - _overloaded_compartments(instance, kept))
        if missing:
            proposals.append(derived_attack(instance, Family.COMPARTMENT, time_limit=limit, compartment=missing[0]))
    if instance.has(Module.HTW) and not any(p.attacker is Attacker.SERVICE_TIME_EDGE for p in kept):
        proposals.append(derived_service_time(instance, time_limit=min(time_limit, DERIVED_TIME_LIMIT)))
    if instance.has(Module.HTW) and not any(p.attacker is Attacker.WAITING_EDGE for p in kept):
        proposals.append(derived_waiting(instance, time_limit=limit))
    for proposal in proposals:
        if isinstance(proposal, AttackSkipped):
            family = ATTACKERS[proposal.attacker].target
            report.records.append(ProbeRecord(proposal.attacker, family, ProbeOutcome.NOT_APPLICABLE, proposal.reason))
        else:
            probes.append(_violating(proposal))
    return _keep(gold, instance, probes, time_limit, report)


def _width(instance: Instance) -> int:
    return len(instance.vehicles[0].compartment_capacity or ())


def _overloaded_compartments(instance: Instance, probes: Iterable[Probe]) -> set[int]:
    """Compartments that some kept compartment probe overloads."""
    found: set[int] = set()
    for probe in (p for p in probes if p.family is Family.COMPARTMENT):
        for route in (r for r in probe.solution.routes if r.visits):
            rooms = instance.vehicles[route.vehicle].compartment_capacity or ()
            loads = compartment_loads(instance, route)
            found |= {c for c, (load, room) in enumerate(zip(loads, rooms, strict=True)) if load > room + 1e-6}
    return found


def _assemble(instance: Instance, kind: str, gold: _GoldModel, probes: tuple[Probe, ...], base_name: str) -> Sample:
    """A sample; its id is the base instance's name and the sample's kind, whatever its instance is named."""
    prov = instance.provenance
    return Sample(
        id=_sample_id(base_name, kind),
        variant=instance.variant,
        kind=kind,
        profile=prov.profile,
        seed=prov.seed,
        instance=instance,
        gold_code=gold.code,
        reference_objective=gold.objective,
        probes=probes,
    )


def build_grid_point(variant: str, profile: int, seed: int, *, time_limit: float = 60.0) -> BuildReport:
    """Sample the instance of (variant, profile, seed) and build its samples."""
    return build_samples(sample_instance(variant, profile, seed), seed=seed, time_limit=time_limit)

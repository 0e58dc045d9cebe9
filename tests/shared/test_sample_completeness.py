"""Issue 28.1: every sample a reward is computed on probes every family its variant encodes.

The base sample and each attacked copy (its own instance, statement and reference) are built by one
function, so a copy carries, on its own data, the same kinds of probes as the base sample: s+ and
the far-apart feasible plans, the structural and edge probes of every attacker the variant table
enables, the gold-derived ones where those found none, and its own attack's probe. A rule that only
shows on a copy's data (windows narrowed around s+, a shorter distance limit, a smaller capacity)
is therefore probed there too; before, a copy carried s+ and its own probe only, and a model that
leaves service times or the return leg out earned full reward on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from vrpcoder.attacks.derived import service_lateness_impossible, violation_impossible
from vrpcoder.checker import check
from vrpcoder.families import Family
from vrpcoder.instances import Instance
from vrpcoder.probes import Label
from vrpcoder.samples import BASE_KIND, Sample
from vrpcoder.variants import ATTACKERS, VARIANTS, Module, Variant
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_synth.formulations import render_source

from tests.shared.small_grid import FLAWED, describe, grid_samples

CONFIG = VerifyConfig(time_limit=30.0)

ONLY_ON_OWN_COPY: dict[str, frozenset[Family]] = {"SDVRP": frozenset({Family.CAPACITY, Family.DELIVERY_COUPLING})}
"""Families no attacker probes on an unchanged instance yet, so only their own parameter attack's
copy carries a probe: split delivery's capacity (quantities are free, so a plan is over capacity
only where no split of the demands fits, which neither an edge attacker nor the gold-derived one
builds; the derived attacker's load is not linear in the arcs) and delivery coupling (a route plan
cannot deliver without a visit; only the phantom-delivery copy exposes it)."""


def encoded(spec: Variant) -> set[Family]:
    """The families a sample of the variant must probe: all it encodes, route structure only
    where a route can break it alone (a closed route ending at another depot)."""
    wanted = set(spec.families) - {Family.ROUTE_STRUCTURE}
    if spec.has(Module.MD) and not spec.has(Module.OPEN):
        wanted.add(Family.ROUTE_STRUCTURE)
    return wanted


def probed(sample: Sample) -> set[Family]:
    return {f for p in sample.probes if p.attacker is not None for f in ATTACKERS[p.attacker].reveals}


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_sample_probes_every_family_of_its_variant(variant: str) -> None:
    """On every sample of the small grid point, copies included, each family the variant encodes
    has a violating probe on that sample's own instance, unless the gold model proves that no plan
    keeping the other rules breaks it there (then no model can be caught leaving it out)."""
    spec = VARIANTS[variant]
    samples = grid_samples(variant)
    exempt = ONLY_ON_OWN_COPY.get(variant, frozenset())
    gaps = [
        f"{sample.id}: no {family.value} probe"
        for sample in samples
        for family in sorted(encoded(spec) - probed(sample) - exempt, key=lambda f: f.value)
        if not violation_impossible(sample.instance, family)
    ]
    assert not gaps, "\n".join(gaps)
    for family in exempt:
        assert any(family in probed(s) for s in samples if s.kind != BASE_KIND), family


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_an_attacked_copy_carries_the_base_samples_kinds_of_probe_built_on_its_own_data(variant: str) -> None:
    """Each copy leads its violating probes with its own attack's, carries structural probes for
    coverage and subtours like the base sample, no other copy's parameter probe, and every label
    holds on the copy's own instance."""
    for copy in (s for s in grid_samples(variant) if s.kind != BASE_KIND):
        violating = [p for p in copy.probes if p.label is Label.INFEASIBLE]
        assert violating[0].attacker is not None and violating[0].attacker.value == copy.kind
        assert {Family.COVERAGE, Family.SUBTOUR} <= probed(copy), copy.id
        assert [p for p in violating if p.attacker is not None and ATTACKERS[p.attacker].parametric] == violating[:1]
        for probe in copy.probes:
            assert check(copy.instance, probe.solution).feasible is (probe.label is Label.FEASIBLE), (copy.id, probe.name)


def test_the_small_grid_has_attacked_copies_for_most_variants() -> None:
    with_copies = [v for v in VARIANTS if any(s.kind != BASE_KIND for s in grid_samples(v))]
    assert len(with_copies) >= 18, with_copies




# ---- a flaw only a copy's own probes show ---------------------------------------------------------


@dataclass(frozen=True)
class Flaw:
    file: str
    variant: str
    point: tuple[int, int]
    """(profile, seed) where the old samples' attacked copies let the flaw keep its full reward."""
    fix: tuple[str, str]
    """The text that, replaced everywhere, makes the script correct (so the flaw is all the probes
    catch)."""
    admits: Callable[[Instance], bool] | None = None
    """Whether an instance admits a plan the flawed model accepts and the rules reject (None: every
    sample of the point does)."""


FLAWS = (
    Flaw(
        "vrphtw_2index_no_service_times.py", "VRPHTW", (2, 0),
        ("t[i] + length[i, j]", "t[i] + SERVICE[i] + length[i, j]"),
        lambda instance: not service_lateness_impossible(instance),
    ),
    Flaw(
        "dcvrp_2index_no_return_leg.py", "DCVRP", (1, 0),
        (
            '        m.addConstr(driven[j] >= length[depot, j], name=f"driven_lb[{j}]")\n',
            '        m.addConstr(driven[j] >= length[depot, j], name=f"driven_lb[{j}]")\n'
            '        m.addConstr(driven[j] + length[j, depot] <= MAX_DIST + big_m * (1 - x[j, depot]), name=f"home[{j}]")\n',
        ),
    ),
)


@pytest.mark.parametrize("flaw", FLAWS, ids=lambda f: f.file.removesuffix(".py"))
def test_a_flaw_that_attacked_copies_used_to_miss_is_caught_on_every_sample(flaw: Flaw) -> None:
    """VRPHTW with service times left out of the clock, and DCVRP with the return leg left out of
    the route length, keep the optimum of these samples. On the old samples their attacked copies
    (capacity_overload, time_window) carried only s+ and the copy's own probe and paid them full
    reward; now each copy's own service-time and return-leg probes cost them reward on every sample
    that admits a witness, while the same script with the flaw fixed earns full reward everywhere."""
    template = (FLAWED / flaw.file).read_text()
    old, new = flaw.fix
    assert old in template
    fixed = template.replace(old, new)
    samples = grid_samples(flaw.variant, *flaw.point)
    assert any(s.kind != BASE_KIND for s in samples)
    admitted = [s for s in samples if flaw.admits is None or flaw.admits(s.instance)]
    assert any(s.kind != BASE_KIND for s in admitted), "a copy admits the witness at this point"
    verdicts = [verify(render_source(template, s.instance), s, CONFIG) for s in admitted]
    full = [v for v in verdicts if v.reward is None or v.reward >= 1.0 - 1e-9]
    assert not full, "\n".join(map(describe, full))
    for sample in samples:
        verdict = verify(render_source(fixed, sample.instance), sample, CONFIG)
        assert verdict.passed and verdict.reward == pytest.approx(1.0), describe(verdict)

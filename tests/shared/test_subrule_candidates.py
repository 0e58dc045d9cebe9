"""Independently written candidates that keep one half of a compound rule and drop the other
(issue 28.2): they must earn less than full reward, and the complete script full reward.

The scripts in ``tests/data/candidates/subrules/`` are written from the problem statement, not from
the gold (data block and ``# @omit`` blocks as in test_independent_candidates.py):

* VRPB: the order rule (no backhaul -> linehaul arc) and the route-start rule (no depot -> backhaul
  arc) in separate blocks; without the route-start block the model keeps the order but allows
  routes of backhauls only, which the paper's ``backhaul_order`` probe (its route started with a
  backhaul, breaking both) never showed;
* PDP: the on-board load propagated exactly and kept within [0, Q], pairing and precedence apart;
  without precedence the model still rejects the paper's probe (a delivery first drops what nobody
  picked up) but accepts ``precedence_carried``; without pairing it accepts ``pair_exchange``;
* TSP: without the start city's degree constraints the model accepts two tours through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from vrpcoder.instances import Instance
from vrpcoder.samples import Sample, build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_synth.formulations import render_source

from tests.shared.test_independent_candidates import describe, samples

SCRIPTS = Path(__file__).resolve().parents[1] / "data" / "candidates" / "subrules"
CONFIG = VerifyConfig(time_limit=60.0)
CUSTOMERS = 6


def script(file: str, instance: Instance, omit: str | None = None) -> str:
    return render_source((SCRIPTS / file).read_text(), instance, omit=omit)


def equal_pairs(variant: str, profile: int, seed: int) -> tuple[Sample, ...]:
    """The sampled PDP instance with every pair carrying the smallest quantity (sampled quantities
    are never equal, and two routes can swap deliveries only of equal quantity)."""
    instance = sample_instance(variant, profile, seed, customers=CUSTOMERS)
    least = min(p.quantity for p in instance.pairs)
    pairs = tuple(p.model_copy(update={"quantity": least}) for p in instance.pairs)
    return tuple(build_samples(instance.model_copy(update={"pairs": pairs}), seed=seed).samples)


@dataclass(frozen=True)
class Point:
    variant: str
    profile: int
    seed: int
    equal_pairs: bool = False

    def samples(self) -> tuple[Sample, ...]:
        if self.equal_pairs:
            return equal_pairs(self.variant, self.profile, self.seed)
        return samples(self.variant, self.profile, self.seed, CUSTOMERS)

    def __str__(self) -> str:
        return f"{self.variant}-p{self.profile}s{self.seed}{'-equal-pairs' if self.equal_pairs else ''}"


VRPB_ORDER, VRPB_START, VRPB_DERIVED = Point("VRPB", 1, 0), Point("VRPB", 4, 0), Point("VRPB", 4, 1)
PDP, PDP_EQUAL, TSP = Point("PDP", 1, 0), Point("PDP", 1, 0, equal_pairs=True), Point("TSP", 1, 0)

CORRECT = (
    ("vrpb_3index_mtz_two_loads.py", VRPB_ORDER),
    ("vrpb_3index_mtz_two_loads.py", VRPB_START),
    ("vrpb_3index_mtz_two_loads.py", VRPB_DERIVED),
    ("pdp_3index_exact_load.py", PDP),
    ("pdp_3index_exact_load.py", PDP_EQUAL),
    ("tsp_2index_single_commodity.py", TSP),
)

HALVES = (
    # (script, block left out, point, the probe that catches it, the older probe it passes)
    ("vrpb_3index_mtz_two_loads.py", "linehaul_start", VRPB_START, "s-:backhaul_start", None),
    ("vrpb_3index_mtz_two_loads.py", "linehaul_start", VRPB_DERIVED, "s-:derived_backhaul_start", "s-:backhaul_order"),
    ("vrpb_3index_mtz_two_loads.py", "linehaul_first", VRPB_ORDER, "s-:backhaul_order", None),
    ("pdp_3index_exact_load.py", "precedence", PDP, "s-:precedence_carried", "s-:precedence"),
    ("pdp_3index_exact_load.py", "pairing", PDP_EQUAL, "s-:pair_exchange", "s-:split_pd_pair"),
    ("tsp_2index_single_commodity.py", "start_degree", TSP, "s-:extra_route", None),
)


@pytest.mark.parametrize(("file", "point"), CORRECT, ids=[f"{f.removesuffix('.py')}-{p}" for f, p in CORRECT])
def test_the_complete_script_earns_full_reward_on_every_sample(file: str, point: Point) -> None:
    failures = []
    for sample in point.samples():
        verdict = verify(script(file, sample.instance), sample, CONFIG)
        if not (verdict.passed and verdict.error is None and verdict.reward == pytest.approx(1.0)):
            failures.append(describe(verdict))
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    ("file", "omit", "point", "catches", "passes"), HALVES, ids=[f"{f.removesuffix('.py')}-no-{o}" for f, o, *_ in HALVES]
)
def test_a_script_with_half_of_the_rule_earns_less_than_full_reward(
    file: str, omit: str, point: Point, catches: str, passes: str | None
) -> None:
    base = point.samples()[0]
    assert base.kind == "base"
    verdict = verify(script(file, base.instance, omit), base, CONFIG)
    failed = {p.name for p in verdict.probes if p.judged and not p.passed}
    assert catches in failed, describe(verdict)
    assert verdict.reward is not None and verdict.reward < 1.0 and not verdict.passed
    if passes is not None:
        assert passes not in failed, f"{passes} alone would already catch it: {describe(verdict)}"

"""The attacker catalogue: one function per attacker, all selected through ``ATTACKERS_IMPL``.

Each attacker turns the feasible probe s+ of an instance into a one-constraint-violating probe s-
(paper, Appendix B.4). Whatever it returns has passed the independent-checker half of the label
rule: s+ is feasible on the attack's instance and s- breaks exactly the attacker's target family
there. The gold-side half (INJ on the gold script) is checked where samples are assembled.

Attacks expect the relaxed sample instance I* (``vrpcoder.relaxation.relax``) so that parameter
attacks have room between what s+ uses and what their probe uses.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vrpcoder.attacks.boundary import EDGE_ATTACKERS
from vrpcoder.attacks.parametric import (
    capacity_overload,
    compartment_overload,
    distance_overrun,
    hf_overload,
    time_window,
)
from vrpcoder.attacks.records import (
    EPS,
    SPLIT_EPS,
    Attack,
    AttackSkipped,
    BoundKind,
    ParameterBound,
    tightened_bound,
)
from vrpcoder.attacks.split import (
    phantom_delivery,
    quarantine_overload,
    sd_isolated_subtour,
    sd_remove_customer,
)
from vrpcoder.attacks.structural import (
    backhaul_order,
    precedence,
    remove_customer,
    split_pd_pair,
    subtour_cycle,
)
from vrpcoder.attacks.subrules import SUBRULE_ATTACKERS
from vrpcoder.checker import check
from vrpcoder.instances import Instance
from vrpcoder.solutions import Solution
from vrpcoder.variants import ATTACKERS, Attacker

AttackFn = Callable[[Instance, Solution, np.random.Generator], Attack | AttackSkipped]

ATTACKERS_IMPL: dict[Attacker, AttackFn] = {
    Attacker.REMOVE_CUSTOMER: remove_customer,
    Attacker.SUBTOUR_CYCLE: subtour_cycle,
    Attacker.BACKHAUL_ORDER: backhaul_order,
    Attacker.PRECEDENCE: precedence,
    Attacker.SPLIT_PD_PAIR: split_pd_pair,
    Attacker.SD_REMOVE_CUSTOMER: sd_remove_customer,
    Attacker.SD_ISOLATED_SUBTOUR: sd_isolated_subtour,
    Attacker.CAPACITY_OVERLOAD: capacity_overload,
    Attacker.HF_OVERLOAD: hf_overload,
    Attacker.DISTANCE_OVERRUN: distance_overrun,
    Attacker.COMPARTMENT_OVERLOAD: compartment_overload,
    Attacker.QUARANTINE_OVERLOAD: quarantine_overload,
    Attacker.PHANTOM_DELIVERY: phantom_delivery,
    Attacker.TIME_WINDOW: time_window,
    **EDGE_ATTACKERS,
    **SUBRULE_ATTACKERS,
}


def run_attack(
    attacker: Attacker, instance: Instance, plus: Solution, *, seed: int = 0
) -> Attack | AttackSkipped:
    """One attacker on (I*, s+); the seed fixes every choice it makes among equal alternatives."""
    allowed = (*instance.spec.enabled_attackers, *instance.spec.on_instance)
    if attacker not in allowed:
        raise ValueError(
            f"attacker {attacker.value} is not enabled for {instance.variant}; "
            f"enabled: {', '.join(a.value for a in allowed)}"
        )
    report = check(instance, plus)
    if not report.feasible:
        raise ValueError(f"s+ is not feasible on {instance.name!r}: {report.violations[0].detail}")
    return ATTACKERS_IMPL[attacker](instance, plus, np.random.default_rng(seed))


def run_attacks(
    instance: Instance, plus: Solution, *, seed: int = 0, parametric: bool = True
) -> list[Attack | AttackSkipped]:
    """Every attacker the registry enables for the instance's variant (the paper's, then ours), in
    the registry's order; with ``parametric=False`` only those that leave the instance as it is
    (on an attacked copy a parameter attack would make a copy of the copy)."""
    return [
        run_attack(a, instance, plus, seed=seed)
        for a in instance.spec.enabled_attackers
        if parametric or not ATTACKERS[a].parametric
    ]


def run_edge_attacks(instance: Instance, plus: Solution, *, seed: int = 0) -> list[Attack | AttackSkipped]:
    """The variant's edge attackers (``Variant.on_instance``): probes on I* itself, each breaking
    its family by as little as a plan near s+ can (``vrpcoder.attacks.boundary``), or one rule of a
    compound family alone (``vrpcoder.attacks.subrules``)."""
    return [run_attack(a, instance, plus, seed=seed) for a in instance.spec.on_instance]


__all__ = [
    "ATTACKERS_IMPL",
    "EPS",
    "SPLIT_EPS",
    "Attack",
    "AttackFn",
    "AttackSkipped",
    "BoundKind",
    "ParameterBound",
    "run_attack",
    "run_attacks",
    "run_edge_attacks",
    "tightened_bound",
]

"""The registry must reproduce the paper's two tables (module matrix, enabled attackers) exactly.

The expected rows below were typed from the paper's tables independently of the registry code.
"""

from __future__ import annotations

import pytest

from vrpcoder.families import Family
from vrpcoder.variants import (
    ATTACKERS,
    VARIANTS,
    Attacker,
    CapacityKind,
    get_variant,
    held_out_variants,
    train_variants,
    training_variant_names,
)

# name: (capacity, modules, train)
MODULE_MATRIX = {
    "TSP": ("none", "", True),
    "CVRP": ("Q", "", True),
    "MDVRP": ("Q", "MD", True),
    "MCVRP": ("Q", "MC", True),
    "PDP": ("Q", "PD", True),
    "OVRP": ("Q", "Open", True),
    "DCVRP": ("Q", "Dist", True),
    "VRPB": ("Q", "BH", True),
    "SDVRP": ("Q", "Split", True),
    "VRPHTW": ("Q", "HTW", True),
    "VRPSTW": ("Q", "STW", True),
    "HFVRP": ("Q_k", "HF", True),
    "HFMDVRP": ("Q_k", "MD HF", True),
    "HFMCVRP": ("Q_k", "MC HF", True),
    "HFVRPHTW": ("Q_k", "HTW HF", True),
    "MDVRPSTW": ("Q", "MD STW", True),
    "PDPSTW": ("Q", "PD STW", True),
    "PDPTW": ("none", "PD HTW", True),
    "OVRPHTW": ("Q", "Open HTW", False),
    "MCVRPSTW": ("Q", "MC STW", False),
    "DCVRPHTW": ("Q", "HTW Dist", False),
}

BASE = {"remove_customer", "subtour_cycle"}
CAP = {"capacity_overload"}
ENABLED_ATTACKERS = {
    "TSP": BASE,
    "CVRP": BASE | CAP,
    "MDVRP": BASE | CAP,
    "MCVRP": BASE | CAP | {"compartment_overload"},
    "PDP": BASE | {"precedence", "split_pd_pair"} | CAP,
    "OVRP": BASE | CAP,
    "DCVRP": BASE | CAP | {"distance_overrun"},
    "VRPB": BASE | {"backhaul_order"} | CAP,
    "SDVRP": {"sd_remove_customer", "sd_isolated_subtour", "quarantine_overload", "phantom_delivery"},
    "VRPHTW": BASE | CAP | {"time_window"},
    "VRPSTW": BASE | CAP,
    "HFVRP": BASE | CAP | {"hf_overload"},
    "HFMDVRP": BASE | CAP,
    "HFMCVRP": BASE | CAP | {"compartment_overload"},
    "HFVRPHTW": BASE | CAP | {"hf_overload", "time_window"},
    "MDVRPSTW": BASE | CAP,
    "PDPSTW": BASE | {"precedence", "split_pd_pair"} | CAP,
    "PDPTW": BASE | {"precedence", "time_window"},
    "OVRPHTW": BASE | CAP | {"time_window"},
    "MCVRPSTW": BASE | CAP | {"compartment_overload"},
    "DCVRPHTW": BASE | CAP | {"distance_overrun", "time_window"},
}


def test_twenty_one_variants_eighteen_for_training() -> None:
    assert len(VARIANTS) == 21
    assert len(train_variants()) == 18
    assert {v.name for v in held_out_variants()} == {"OVRPHTW", "MCVRPSTW", "DCVRPHTW"}


@pytest.mark.parametrize("name", list(MODULE_MATRIX))
def test_module_matrix_row(name: str) -> None:
    capacity, modules, train = MODULE_MATRIX[name]
    variant = VARIANTS[name]
    assert variant.capacity is CapacityKind(capacity)
    assert {m.value for m in variant.modules} == set(modules.split())
    assert variant.train is train


@pytest.mark.parametrize("name", list(ENABLED_ATTACKERS))
def test_enabled_attackers_row(name: str) -> None:
    assert {a.value for a in VARIANTS[name].attackers} == ENABLED_ATTACKERS[name]


BEYOND_PAPER = {"PDPTW": {"split_pd_pair"}}
"""The paper's PDPTW row attacks no pairing; its PDP and PDPSTW rows use split_pd_pair for it."""


@pytest.mark.parametrize("name", list(VARIANTS))
def test_attackers_beyond_the_paper_are_listed_apart(name: str) -> None:
    variant = VARIANTS[name]
    assert {a.value for a in variant.beyond_paper} == BEYOND_PAPER.get(name, set())
    assert variant.enabled_attackers == (*variant.attackers, *variant.beyond_paper)
    assert not set(variant.attackers) & set(variant.beyond_paper)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_family_but_route_structure_is_attacked(name: str) -> None:
    """A family no probe attacks lets a candidate that omits it keep its full reward. Route
    structure (degrees, one departure per vehicle) is what every probe's routes already respect."""
    variant = VARIANTS[name]
    assert set(variant.families) - {Family.ROUTE_STRUCTURE} <= variant.attacked_families


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_attacked_family_is_encoded_by_the_variant(name: str) -> None:
    variant = VARIANTS[name]
    assert variant.attacked_families <= set(variant.families)


def test_every_attacker_has_a_target() -> None:
    assert set(ATTACKERS) == set(Attacker)
    assert ATTACKERS[Attacker.PHANTOM_DELIVERY].reveals == (Family.CAPACITY, Family.DELIVERY_COUPLING)


@pytest.mark.parametrize(
    ("variant", "present", "absent"),
    [
        ("TSP", {Family.SUBTOUR}, {Family.CAPACITY}),
        ("PDPTW", {Family.PRECEDENCE, Family.PAIRING, Family.TIME_WINDOW}, {Family.CAPACITY}),
        ("VRPSTW", {Family.CAPACITY}, {Family.TIME_WINDOW}),
        ("MCVRPSTW", {Family.COMPARTMENT, Family.CAPACITY}, {Family.TIME_WINDOW}),
        ("SDVRP", {Family.DELIVERY_COUPLING, Family.CAPACITY}, {Family.PAIRING}),
        ("DCVRPHTW", {Family.DISTANCE, Family.TIME_WINDOW}, {Family.BACKHAUL}),
    ],
)
def test_families_follow_modules(variant: str, present: set[Family], absent: set[Family]) -> None:
    families = set(get_variant(variant).families)
    assert present <= families
    assert not absent & families


@pytest.mark.parametrize("spelling", ["cvrp", "Cvrp", "CVRP"])
def test_lookup_is_case_insensitive(spelling: str) -> None:
    assert get_variant(spelling).name == "CVRP"


@pytest.mark.parametrize("bad", ["", "VRP", "CVRP2", "tsp "])
def test_unknown_variant_names_the_choices(bad: str) -> None:
    with pytest.raises(ValueError, match="choose one of: TSP, CVRP"):
        get_variant(bad)


@pytest.mark.parametrize(
    ("names", "expected"),
    [(("cvrp", "TSP"), ("CVRP", "TSP")), (("VRPB",), ("VRPB",)), ((), ())],
)
def test_training_variant_names_canonicalises(names: tuple[str, ...], expected: tuple[str, ...]) -> None:
    assert training_variant_names(names) == expected


@pytest.mark.parametrize("held_out", ["OVRPHTW", "mcvrpstw", "DCVRPHTW"])
def test_training_variant_names_refuses_each_held_out_variant(held_out: str) -> None:
    with pytest.raises(ValueError, match=f"held-out variants never enter training data: {held_out.upper()}"):
        training_variant_names(("CVRP", held_out))

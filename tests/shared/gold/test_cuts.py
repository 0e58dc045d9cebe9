"""The joint cuts module: where it applies, and that a script without it solves to the same optimum."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from vrpcoder.gold import AuxModule, module_names, render_gold
from vrpcoder.gold.cuts import pickup_delivery_cuts_module, valid_inequalities_module
from vrpcoder.gold.features import features_of
from vrpcoder.instances import Instance


@pytest.mark.parametrize(
    ("variant", "expected"), [("TSP", False), ("CVRP", True), ("PDPTW", True), ("SDVRP", True)]
)
def test_joint_module_only_where_cuts_exist(
    variant: str, expected: bool, tiny_instance: Callable[..., Instance]
) -> None:
    names = module_names(render_gold(tiny_instance(variant)))
    assert (AuxModule.VALID_INEQUALITIES in names) is expected


def test_cut_renderers_refuse_variants_they_do_not_fit(tiny_instance: Callable[..., Instance]) -> None:
    with pytest.raises(ValueError, match="scalar-capacity"):
        valid_inequalities_module(features_of(tiny_instance("PDP")))
    with pytest.raises(ValueError, match="scalar-capacity"):
        valid_inequalities_module(features_of(tiny_instance("TSP")))
    with pytest.raises(ValueError, match="pickup-and-delivery"):
        pickup_delivery_cuts_module(features_of(tiny_instance("CVRP")))

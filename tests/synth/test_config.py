"""The synthesis configuration's defaults: what an unconfigured run synthesises."""

from __future__ import annotations

import pytest
from vrpcoder.variants import VARIANTS, held_out_variants
from vrpcoder_synth.config import GridConfig


def test_default_grid_is_exactly_the_training_variants() -> None:
    names = GridConfig().variant_names()
    assert set(names) == {name for name, v in VARIANTS.items() if v.train}
    assert not {v.name for v in held_out_variants()} & set(names), "a held-out variant would leak into training data"
    assert len(names) == 18


@pytest.mark.parametrize("held_out", [v.name for v in held_out_variants()])
def test_a_grid_naming_a_held_out_variant_is_refused(held_out: str) -> None:
    with pytest.raises(ValueError, match="held-out variants never enter training data"):
        GridConfig(variants=("CVRP", held_out))

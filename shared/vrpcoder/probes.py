"""Probe records: route plans with the verdict a correct model must give on them.

A feasible probe ``s+`` must be accepted; every violating probe ``s-`` breaks exactly one
constraint family (its ``family``) and must be rejected. Parameter attacks also carry the attacked
copy of the instance they are valid on, because their violation exists only under the tightened
bound.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from vrpcoder_client.verdicts import Label

from vrpcoder.families import Family
from vrpcoder.solutions import Solution
from vrpcoder.variants import Attacker, Variant


class Encoding(StrEnum):
    """How a probe is written into a candidate's routing variables (paper, Method and Appendix D)."""

    PROJECTION_2D = "projection_2d"
    """Customer-customer arcs used / unused, vehicle left free (s+, homogeneous fleet)."""
    BOUND_2D = "bound_2d"
    """2D projection plus: consecutive arcs of one probe route share a vehicle (s-, homogeneous)."""
    DIRECT_3D = "direct_3d"
    """Each used arc fixed on the probe's own vehicle (heterogeneous fleet, both roles)."""


def choose_encoding(variant: Variant, label: Label) -> Encoding:
    if variant.heterogeneous:
        return Encoding.DIRECT_3D
    return Encoding.PROJECTION_2D if label is Label.FEASIBLE else Encoding.BOUND_2D


class Probe(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    label: Label
    solution: Solution
    attacker: Attacker | None = None
    """None for the feasible probe."""
    family: Family | None = None
    """The family a violating probe breaks (None for the feasible probe)."""
    variety: str | None = None
    """What sets a further feasible probe apart from s+ (``fewest_vehicles``, ``most_vehicles``,
    ``fullest``, ``tightest_window``, ``longest``, and the freedoms of the rules: ``split_delivery``,
    ``late_service``, ``waiting``, ``costly_wait``, ``open_end``, ``every_vehicle_type``,
    ``type_load_k<v>[_c<c>]``; see
    ``vrpcoder.feasible.diverse_feasible``); None for s+ and violating probes."""

    @property
    def name(self) -> str:
        if self.attacker is not None:
            return f"s-:{self.attacker.value}"
        return "s+" if self.variety is None else f"s+:{self.variety}"

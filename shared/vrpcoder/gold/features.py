"""What a gold script must model for one instance, read off the variant registry and its data.

The renderers branch on these flags only, so the choice of formulation for a variant is visible in
one place and every flag traces back to the registry (``vrpcoder.variants``) or to the instance.
"""

from __future__ import annotations

from dataclasses import dataclass

from vrpcoder.families import Family
from vrpcoder.instances import Instance
from vrpcoder.variants import CapacityKind, Module


@dataclass(frozen=True, slots=True)
class ScriptFeatures:
    families: tuple[Family, ...]
    capacity: bool
    split: bool
    open_routes: bool
    hard_windows: bool
    soft_windows: bool
    pickup_delivery: bool
    backhaul: bool
    compartments: bool
    distance_limit: bool
    heterogeneous: bool
    fixed_costs: bool
    """Some vehicle has a positive fixed cost, so the objective needs the ``used`` term."""
    interchangeable_vehicles: bool
    """Vehicles sharing a depot are identical, so symmetry among them may be broken."""
    multi_depot: bool = False
    two_index: bool = False
    """Routing variable ``x[i, j]`` without a vehicle index and the fleet as one bound per depot
    (:func:`vrpcoder.gold.render.choose_features` sets it wherever the variant and fleet allow
    it: identical vehicles of the variants whose modules it states)."""

    @property
    def timed(self) -> bool:
        return self.hard_windows or self.soft_windows

    @property
    def needs_demand(self) -> bool:
        """Scalar customer demands drive capacity (not for pickup-and-delivery) and split coverage."""
        return self.split or (self.capacity and not self.pickup_delivery)


def features_of(instance: Instance) -> ScriptFeatures:
    spec = instance.spec
    return ScriptFeatures(
        families=spec.families,
        capacity=spec.capacity is not CapacityKind.NONE,
        split=spec.has(Module.SPLIT),
        open_routes=spec.has(Module.OPEN),
        hard_windows=spec.has(Module.HTW),
        soft_windows=spec.has(Module.STW),
        pickup_delivery=spec.has(Module.PD),
        backhaul=spec.has(Module.BH),
        compartments=spec.has(Module.MC),
        distance_limit=spec.has(Module.DIST),
        heterogeneous=spec.heterogeneous,
        fixed_costs=any(v.fixed_cost > 0 for v in instance.vehicles),
        interchangeable_vehicles=not spec.heterogeneous and len(instance.vehicles) > 1,
        multi_depot=instance.num_depots > 1,
    )

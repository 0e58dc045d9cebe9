"""The variant registry: the 21 VRP variants of the paper as one table of data.

Every other part of the project (sampler, gold scripts, checker, attackers, reports) asks this
table which modules a variant enables, how capacity is meant, whether the variant is used for
training, and which attackers apply. Nothing else hard-codes a variant's properties.

Sources: the paper's "Structural module matrix" (modules, capacity semantics, train / held-out)
and its "Enabled attackers" table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from vrpcoder.families import Family, Rule


class Module(StrEnum):
    """A constraint module added to the CVRP backbone."""

    MD = "MD"
    """Multiple depots; each vehicle starts and ends at its assigned depot."""
    MC = "MC"
    """Multiple non-mixing compartments, each with its own capacity."""
    PD = "PD"
    """Paired pickup and delivery: same vehicle, pickup first."""
    OPEN = "Open"
    """Routes may end at their last customer; no return leg is paid."""
    HTW = "HTW"
    """Hard time windows (waiting allowed, no late service)."""
    STW = "STW"
    """Soft time windows: late service is allowed and penalised in the objective."""
    DIST = "Dist"
    """Maximum travelled distance per route."""
    BH = "BH"
    """Linehaul customers before backhaul customers on every route."""
    SPLIT = "Split"
    """A customer's demand may be split across several vehicles."""
    HF = "HF"
    """Heterogeneous fleet: capacity, fixed cost and per-distance cost per vehicle."""


class CapacityKind(StrEnum):
    """Capacity semantics of the "Cap." column."""

    NONE = "none"
    """No effective capacity limit (TSP, PDPTW)."""
    HOMOGENEOUS = "Q"
    """One capacity Q for every vehicle."""
    HETEROGENEOUS = "Q_k"
    """A capacity per vehicle."""


class Attacker(StrEnum):
    """The attack operators of the paper's catalogue (one constraint family each)."""

    REMOVE_CUSTOMER = "remove_customer"
    SUBTOUR_CYCLE = "subtour_cycle"
    BACKHAUL_ORDER = "backhaul_order"
    PRECEDENCE = "precedence"
    SPLIT_PD_PAIR = "split_pd_pair"
    SD_REMOVE_CUSTOMER = "sd_remove_customer"
    SD_ISOLATED_SUBTOUR = "sd_isolated_subtour"
    CAPACITY_OVERLOAD = "capacity_overload"
    HF_OVERLOAD = "hf_overload"
    DISTANCE_OVERRUN = "distance_overrun"
    COMPARTMENT_OVERLOAD = "compartment_overload"
    QUARANTINE_OVERLOAD = "quarantine_overload"
    PHANTOM_DELIVERY = "phantom_delivery"
    TIME_WINDOW = "time_window"
    # On the sample's own instance, as close to the rule's boundary as the data allows (issue 19):
    CAPACITY_EDGE = "capacity_edge"
    BACKHAUL_LOAD_EDGE = "backhaul_load_edge"
    COMPARTMENT_EDGE = "compartment_edge"
    DISTANCE_EDGE = "distance_edge"
    RETURN_LEG_EDGE = "return_leg_edge"
    TIME_WINDOW_EDGE = "time_window_edge"
    SERVICE_TIME_EDGE = "service_time_edge"
    OTHER_DEPOT_RETURN = "other_depot_return"
    # One part of a compound family alone, on the sample's own instance (issue 28.2):
    BACKHAUL_START = "backhaul_start"
    PRECEDENCE_CARRIED = "precedence_carried"
    PAIR_EXCHANGE = "pair_exchange"
    EXTRA_ROUTE = "extra_route"
    FOREIGN_DEPOT_START = "foreign_depot_start"
    DEPOT_CLOSE_EDGE = "depot_close_edge"
    WAITING_EDGE = "waiting_edge"
    OTHER_COMPARTMENT_EDGE = "other_compartment_edge"
    SMALLEST_VEHICLE_EDGE = "smallest_vehicle_edge"
    SMALLEST_VEHICLE_COMPARTMENT_EDGE = "smallest_vehicle_compartment_edge"
    MIDDLE_VEHICLE_EDGE = "middle_vehicle_edge"
    MIDDLE_VEHICLE_COMPARTMENT_EDGE = "middle_vehicle_compartment_edge"
    SPLIT_LOAD_EDGE = "split_load_edge"
    # Derived from the gold model with the family's module dropped and its violation required:
    DERIVED_CAPACITY = "derived_capacity"
    DERIVED_COMPARTMENT = "derived_compartment"
    DERIVED_DISTANCE = "derived_distance"
    DERIVED_TIME_WINDOW = "derived_time_window"
    DERIVED_BACKHAUL = "derived_backhaul"
    DERIVED_PAIRING = "derived_pairing"
    DERIVED_PRECEDENCE = "derived_precedence"
    DERIVED_SERVICE_TIME = "derived_service_time"
    DERIVED_BACKHAUL_START = "derived_backhaul_start"
    DERIVED_WAITING = "derived_waiting"


@dataclass(frozen=True, slots=True)
class AttackerInfo:
    """What an attacker targets and whether it tightens an instance parameter.

    ``target`` is the family the independent checker finds violated by the attacker's probe.
    ``exposes`` lists further gold-script families whose omission the probe is designed to reveal
    although no route-level solution can violate them on its own (phantom delivery: a route plan
    cannot express a delivery without a visit, yet a model that drops visit/delivery coupling
    accepts the probe).

    ``rules`` makes it a sub-rule probe (issue 28.2): the checker must name exactly one rule, one
    of these (a model that keeps every other part of the family then accepts the probe); empty,
    only the family is required. ``single``: and exactly one violation (one route, one pair).
    """

    target: Family
    parametric: bool
    exposes: tuple[Family, ...] = ()
    rules: tuple[Rule, ...] = ()
    single: bool = False

    def __post_init__(self) -> None:
        strays = [r.value for r in self.rules if r.family is not self.target]
        if strays:
            raise ValueError(f"rules {strays} are not parts of {self.target.value}")

    @property
    def reveals(self) -> tuple[Family, ...]:
        return (self.target, *self.exposes)


_R = Rule
_LATE = (_R.WINDOW_CLOSE, _R.DEPOT_CLOSE)

ATTACKERS: dict[Attacker, AttackerInfo] = {
    Attacker.REMOVE_CUSTOMER: AttackerInfo(Family.COVERAGE, parametric=False),
    Attacker.SUBTOUR_CYCLE: AttackerInfo(Family.SUBTOUR, parametric=False),
    Attacker.BACKHAUL_ORDER: AttackerInfo(Family.BACKHAUL, parametric=False, rules=(_R.LINEHAUL_FIRST,), single=True),
    Attacker.PRECEDENCE: AttackerInfo(Family.PRECEDENCE, parametric=False, rules=(_R.PICKUP_FIRST,), single=True),
    Attacker.SPLIT_PD_PAIR: AttackerInfo(Family.PAIRING, parametric=False, rules=(_R.SAME_VEHICLE,), single=True),
    Attacker.SD_REMOVE_CUSTOMER: AttackerInfo(Family.COVERAGE, parametric=False),
    Attacker.SD_ISOLATED_SUBTOUR: AttackerInfo(Family.SUBTOUR, parametric=False),
    Attacker.CAPACITY_OVERLOAD: AttackerInfo(Family.CAPACITY, parametric=True),
    Attacker.HF_OVERLOAD: AttackerInfo(Family.CAPACITY, parametric=True),
    Attacker.DISTANCE_OVERRUN: AttackerInfo(Family.DISTANCE, parametric=True),
    Attacker.COMPARTMENT_OVERLOAD: AttackerInfo(Family.COMPARTMENT, parametric=True),
    Attacker.QUARANTINE_OVERLOAD: AttackerInfo(Family.CAPACITY, parametric=True),
    Attacker.PHANTOM_DELIVERY: AttackerInfo(
        Family.CAPACITY, parametric=True, exposes=(Family.DELIVERY_COUPLING,)
    ),
    Attacker.TIME_WINDOW: AttackerInfo(Family.TIME_WINDOW, parametric=True),
    Attacker.CAPACITY_EDGE: AttackerInfo(Family.CAPACITY, parametric=False, rules=(_R.LOAD,)),
    Attacker.BACKHAUL_LOAD_EDGE: AttackerInfo(Family.CAPACITY, parametric=False, rules=(_R.BACKHAUL_LOAD,)),
    Attacker.COMPARTMENT_EDGE: AttackerInfo(
        Family.COMPARTMENT, parametric=False, rules=(_R.COMPARTMENT_LOAD,), single=True
    ),
    Attacker.DISTANCE_EDGE: AttackerInfo(Family.DISTANCE, parametric=False, rules=(_R.ROUTE_DISTANCE,), single=True),
    Attacker.RETURN_LEG_EDGE: AttackerInfo(Family.DISTANCE, parametric=False, rules=(_R.ROUTE_DISTANCE,), single=True),
    Attacker.TIME_WINDOW_EDGE: AttackerInfo(
        Family.TIME_WINDOW, parametric=False, rules=(_R.WINDOW_CLOSE,), single=True
    ),
    Attacker.SERVICE_TIME_EDGE: AttackerInfo(Family.TIME_WINDOW, parametric=False, rules=_LATE, single=True),
    Attacker.OTHER_DEPOT_RETURN: AttackerInfo(
        Family.ROUTE_STRUCTURE, parametric=False, rules=(_R.RETURN_DEPOT,), single=True
    ),
    Attacker.BACKHAUL_START: AttackerInfo(Family.BACKHAUL, parametric=False, rules=(_R.LINEHAUL_START,), single=True),
    Attacker.PRECEDENCE_CARRIED: AttackerInfo(
        Family.PRECEDENCE, parametric=False, rules=(_R.PICKUP_FIRST,), single=True
    ),
    Attacker.PAIR_EXCHANGE: AttackerInfo(Family.PAIRING, parametric=False, rules=(_R.SAME_VEHICLE,)),
    Attacker.EXTRA_ROUTE: AttackerInfo(Family.ROUTE_STRUCTURE, parametric=False, rules=(_R.FLEET_SIZE,), single=True),
    Attacker.FOREIGN_DEPOT_START: AttackerInfo(
        Family.ROUTE_STRUCTURE, parametric=False, rules=(_R.OWN_DEPOT,), single=True
    ),
    Attacker.DEPOT_CLOSE_EDGE: AttackerInfo(Family.TIME_WINDOW, parametric=False, rules=(_R.DEPOT_CLOSE,), single=True),
    Attacker.WAITING_EDGE: AttackerInfo(Family.TIME_WINDOW, parametric=False, rules=_LATE, single=True),
    Attacker.OTHER_COMPARTMENT_EDGE: AttackerInfo(
        Family.COMPARTMENT, parametric=False, rules=(_R.COMPARTMENT_LOAD,), single=True
    ),
    Attacker.SMALLEST_VEHICLE_EDGE: AttackerInfo(Family.CAPACITY, parametric=False, rules=(_R.LOAD,), single=True),
    Attacker.SMALLEST_VEHICLE_COMPARTMENT_EDGE: AttackerInfo(
        Family.COMPARTMENT, parametric=False, rules=(_R.COMPARTMENT_LOAD,), single=True
    ),
    Attacker.MIDDLE_VEHICLE_EDGE: AttackerInfo(Family.CAPACITY, parametric=False, rules=(_R.LOAD,), single=True),
    Attacker.MIDDLE_VEHICLE_COMPARTMENT_EDGE: AttackerInfo(
        Family.COMPARTMENT, parametric=False, rules=(_R.COMPARTMENT_LOAD,), single=True
    ),
    Attacker.SPLIT_LOAD_EDGE: AttackerInfo(
        Family.CAPACITY, parametric=False, exposes=(Family.DELIVERY_COUPLING,), rules=(_R.LOAD,)
    ),
    Attacker.DERIVED_CAPACITY: AttackerInfo(Family.CAPACITY, parametric=False),
    Attacker.DERIVED_COMPARTMENT: AttackerInfo(Family.COMPARTMENT, parametric=False),
    Attacker.DERIVED_DISTANCE: AttackerInfo(Family.DISTANCE, parametric=False),
    Attacker.DERIVED_TIME_WINDOW: AttackerInfo(Family.TIME_WINDOW, parametric=False),
    Attacker.DERIVED_BACKHAUL: AttackerInfo(Family.BACKHAUL, parametric=False, rules=(_R.LINEHAUL_FIRST,), single=True),
    Attacker.DERIVED_PAIRING: AttackerInfo(Family.PAIRING, parametric=False),
    Attacker.DERIVED_PRECEDENCE: AttackerInfo(Family.PRECEDENCE, parametric=False),
    Attacker.DERIVED_SERVICE_TIME: AttackerInfo(Family.TIME_WINDOW, parametric=False),
    Attacker.DERIVED_WAITING: AttackerInfo(Family.TIME_WINDOW, parametric=False),
    Attacker.DERIVED_BACKHAUL_START: AttackerInfo(
        Family.BACKHAUL, parametric=False, rules=(_R.LINEHAUL_START,), single=True
    ),
}

DERIVED_ATTACKERS: dict[Family, Attacker] = {
    ATTACKERS[a].target: a
    for a in (
        Attacker.DERIVED_CAPACITY,
        Attacker.DERIVED_COMPARTMENT,
        Attacker.DERIVED_DISTANCE,
        Attacker.DERIVED_TIME_WINDOW,
        Attacker.DERIVED_BACKHAUL,
        Attacker.DERIVED_PAIRING,
        Attacker.DERIVED_PRECEDENCE,
    )
}
"""The gold-model-derived attacker of each family that has one (``vrpcoder.attacks.derived``): the
fallback wherever the hand-written attackers leave a family of a variant without a kept probe on the
sample's own instance."""

DERIVED_RULE_ATTACKERS: dict[Rule, Attacker] = {Rule.LINEHAUL_START: Attacker.DERIVED_BACKHAUL_START}
"""Gold-derived attackers of one rule of a compound family (the family's own derived attacker
breaks another of its rules): the fallback where no kept probe of the base sample breaks that rule."""


@dataclass(frozen=True, slots=True)
class Variant:
    """One row of the registry."""

    name: str
    modules: frozenset[Module]
    capacity: CapacityKind
    train: bool
    attackers: tuple[Attacker, ...]
    """The paper's table of enabled attackers, as printed."""
    beyond_paper: tuple[Attacker, ...] = ()
    """Attackers we add for a family the variant encodes but the paper's row leaves unattacked
    (SPEC section 3): without one, a candidate that omits that family keeps its full reward."""

    def has(self, module: Module) -> bool:
        return module in self.modules

    @property
    def on_instance(self) -> tuple[Attacker, ...]:
        """Attackers whose probes live on the sample's own instance I* and break their rule by as
        little as the data allows (issue 19): with them one base sample checks every family its
        variant encodes, instead of leaving capacity or windows to the attacked copies, where a
        dropped rule that does not move the optimum stays invisible within a sample. Those with
        ``AttackerInfo.rules`` break one rule of a compound family alone (issue 28.2): the parts
        of backhaul, route structure, windows, pairs, compartments and mixed fleets."""
        out: list[Attacker] = []
        if self.capacity is not CapacityKind.NONE and not self.has(Module.SPLIT):
            out.append(Attacker.CAPACITY_EDGE)
            if self.has(Module.BH):
                out.append(Attacker.BACKHAUL_LOAD_EDGE)
            if self.heterogeneous and not self.has(Module.MC):
                out += [Attacker.SMALLEST_VEHICLE_EDGE, Attacker.MIDDLE_VEHICLE_EDGE]
        if self.has(Module.SPLIT):
            out.append(Attacker.SPLIT_LOAD_EDGE)
        if self.has(Module.MC):
            out += [Attacker.COMPARTMENT_EDGE, Attacker.OTHER_COMPARTMENT_EDGE]
            if self.heterogeneous:
                out += [Attacker.SMALLEST_VEHICLE_COMPARTMENT_EDGE, Attacker.MIDDLE_VEHICLE_COMPARTMENT_EDGE]
        if self.has(Module.DIST):
            out += [Attacker.DISTANCE_EDGE, Attacker.RETURN_LEG_EDGE]
        if self.has(Module.HTW):
            out += [Attacker.TIME_WINDOW_EDGE, Attacker.SERVICE_TIME_EDGE, Attacker.WAITING_EDGE]
            if not self.has(Module.OPEN):
                out.append(Attacker.DEPOT_CLOSE_EDGE)
        if self.has(Module.MD) and not self.has(Module.OPEN):
            out += [Attacker.OTHER_DEPOT_RETURN, Attacker.FOREIGN_DEPOT_START]
        if self.has(Module.BH):
            out.append(Attacker.BACKHAUL_START)
        if self.has(Module.PD):
            out += [Attacker.PRECEDENCE_CARRIED, Attacker.PAIR_EXCHANGE]
        out.append(Attacker.EXTRA_ROUTE)
        return tuple(out)

    @property
    def derived(self) -> tuple[Attacker, ...]:
        """Gold-derived fallback attackers for the families the variant encodes, the rules of a
        compound family that have their own, and, with hard windows, those for a lateness that
        only service times or only waiting cause."""
        found = [DERIVED_ATTACKERS[f] for f in self.families if f in DERIVED_ATTACKERS]
        found += [a for rule, a in DERIVED_RULE_ATTACKERS.items() if rule.family in self.families]
        timed = (Attacker.DERIVED_SERVICE_TIME, Attacker.DERIVED_WAITING) if self.has(Module.HTW) else ()
        return (*found, *timed)

    @property
    def heterogeneous(self) -> bool:
        return Module.HF in self.modules

    @property
    def is_tsp(self) -> bool:
        return self.name == "TSP"

    @property
    def families(self) -> tuple[Family, ...]:
        """Feasibility families the variant's gold script encodes, in a stable order."""
        fams = [Family.COVERAGE, Family.ROUTE_STRUCTURE, Family.SUBTOUR]
        if self.capacity is not CapacityKind.NONE:
            fams.append(Family.CAPACITY)
        optional = [
            (Module.MC, Family.COMPARTMENT),
            (Module.DIST, Family.DISTANCE),
            (Module.HTW, Family.TIME_WINDOW),
            (Module.PD, Family.PRECEDENCE),
            (Module.PD, Family.PAIRING),
            (Module.BH, Family.BACKHAUL),
            (Module.SPLIT, Family.DELIVERY_COUPLING),
        ]
        fams.extend(fam for module, fam in optional if module in self.modules)
        return tuple(fams)

    @property
    def enabled_attackers(self) -> tuple[Attacker, ...]:
        """What probes are built with: the paper's attackers, then ours."""
        return (*self.attackers, *self.beyond_paper)

    @property
    def attacked_families(self) -> frozenset[Family]:
        return frozenset(f for a in self.enabled_attackers for f in ATTACKERS[a].reveals)


_A = Attacker
_BASE = (_A.REMOVE_CUSTOMER, _A.SUBTOUR_CYCLE)
_PD = (*_BASE, _A.PRECEDENCE, _A.SPLIT_PD_PAIR)


def _row(
    name: str,
    modules: str,
    capacity: CapacityKind,
    attackers: tuple[Attacker, ...],
    *,
    train: bool = True,
    beyond_paper: tuple[Attacker, ...] = (),
) -> Variant:
    mods = frozenset(Module(m) for m in modules.split()) if modules else frozenset()
    return Variant(name, mods, capacity, train, attackers, beyond_paper)


_Q, _QK, _NO = CapacityKind.HOMOGENEOUS, CapacityKind.HETEROGENEOUS, CapacityKind.NONE

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        _row("TSP", "", _NO, _BASE),
        _row("CVRP", "", _Q, (*_BASE, _A.CAPACITY_OVERLOAD)),
        _row("MDVRP", "MD", _Q, (*_BASE, _A.CAPACITY_OVERLOAD)),
        _row("MCVRP", "MC", _Q, (*_BASE, _A.CAPACITY_OVERLOAD, _A.COMPARTMENT_OVERLOAD)),
        _row("PDP", "PD", _Q, (*_PD, _A.CAPACITY_OVERLOAD)),
        _row("OVRP", "Open", _Q, (*_BASE, _A.CAPACITY_OVERLOAD)),
        _row("DCVRP", "Dist", _Q, (*_BASE, _A.CAPACITY_OVERLOAD, _A.DISTANCE_OVERRUN)),
        _row("VRPB", "BH", _Q, (*_BASE, _A.BACKHAUL_ORDER, _A.CAPACITY_OVERLOAD)),
        _row(
            "SDVRP",
            "Split",
            _Q,
            (_A.SD_REMOVE_CUSTOMER, _A.SD_ISOLATED_SUBTOUR, _A.QUARANTINE_OVERLOAD, _A.PHANTOM_DELIVERY),
        ),
        _row("VRPHTW", "HTW", _Q, (*_BASE, _A.CAPACITY_OVERLOAD, _A.TIME_WINDOW)),
        _row("VRPSTW", "STW", _Q, (*_BASE, _A.CAPACITY_OVERLOAD)),
        _row("HFVRP", "HF", _QK, (*_BASE, _A.CAPACITY_OVERLOAD, _A.HF_OVERLOAD)),
        _row("HFMDVRP", "MD HF", _QK, (*_BASE, _A.CAPACITY_OVERLOAD)),
        _row("HFMCVRP", "MC HF", _QK, (*_BASE, _A.CAPACITY_OVERLOAD, _A.COMPARTMENT_OVERLOAD)),
        _row("HFVRPHTW", "HTW HF", _QK, (*_BASE, _A.CAPACITY_OVERLOAD, _A.HF_OVERLOAD, _A.TIME_WINDOW)),
        _row("MDVRPSTW", "MD STW", _Q, (*_BASE, _A.CAPACITY_OVERLOAD)),
        _row("PDPSTW", "PD STW", _Q, (*_PD, _A.CAPACITY_OVERLOAD)),
        _row("PDPTW", "PD HTW", _NO, (*_BASE, _A.PRECEDENCE, _A.TIME_WINDOW), beyond_paper=(_A.SPLIT_PD_PAIR,)),
        _row("OVRPHTW", "Open HTW", _Q, (*_BASE, _A.CAPACITY_OVERLOAD, _A.TIME_WINDOW), train=False),
        _row("MCVRPSTW", "MC STW", _Q, (*_BASE, _A.CAPACITY_OVERLOAD, _A.COMPARTMENT_OVERLOAD), train=False),
        _row(
            "DCVRPHTW",
            "HTW Dist",
            _Q,
            (*_BASE, _A.CAPACITY_OVERLOAD, _A.DISTANCE_OVERRUN, _A.TIME_WINDOW),
            train=False,
        ),
    )
}


def get_variant(name: str) -> Variant:
    """Look a variant up by name (case-insensitive); a clear error names the valid choices."""
    exact = VARIANTS.get(name)
    if exact is not None:
        return exact  # the common case: every ``Instance.spec`` asks, thousands of times per sample build
    for key, variant in VARIANTS.items():
        if key.lower() == name.lower():
            return variant
    raise ValueError(f"unknown variant {name!r}; choose one of: {', '.join(VARIANTS)}")


def train_variants() -> tuple[Variant, ...]:
    return tuple(v for v in VARIANTS.values() if v.train)


def held_out_variants() -> tuple[Variant, ...]:
    return tuple(v for v in VARIANTS.values() if not v.train)


def training_variant_names(names: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """``names`` in the registry's spelling, refusing any held-out variant.

    The one place the held-out rule is enforced (synthesis grids, the loop): a held-out variant
    that reached training data would make the generalisation benchmark (B2) measure recall."""
    canonical = tuple(get_variant(n).name for n in names)
    held_out = [n for n in canonical if not VARIANTS[n].train]
    if held_out:
        raise ValueError(f"held-out variants never enter training data: {', '.join(held_out)}")
    return canonical

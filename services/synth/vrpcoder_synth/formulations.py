"""The offline code regenerator's catalogue: correct formulations that are *not* the gold script.

Each template under ``templates/`` models one training variant in its own style (2- or 3-index
arcs, MTZ, single-commodity flows, lazy DFJ or rounded-capacity callbacks, indicator constraints,
the matrix API, ...), written from a problem statement and never from the gold script. A template
carries a data block (``# @data-begin`` .. ``# @data-end``) that is rewritten for every instance,
and ``# @omit <family>`` .. ``# @end <family>`` blocks: deleting one gives a *mutant* that lacks
exactly that rule, which is how Stage 4 is shown to record INJ-only rejections (the reserved set).

The templates are the project's independently written candidates of the 18 training variants, and
this folder is their only copy: the verifier's tests read them from here (through
``importlib.resources``) beside the held-out variants' scripts, which stay in
``tests/data/candidates/independent/`` so held-out variants cannot enter synthesis through the
regenerator either.

For an index-rewritten statement the data block keeps the statement's ids: a ``node_ids`` list in
the order the script lists its nodes, ``id2idx`` / ``idx2id`` built from it (the candidate
protocol), and every node-keyed number is placed at the position ``id2idx`` gives its id. The
listing may differ from the internal numbering (customers reversed), so a wrong table shows.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from vrpcoder.distances import DistanceKind
from vrpcoder.families import Family
from vrpcoder.instances import Instance, PickupDelivery
from vrpcoder.variants import CapacityKind, Module, get_variant

_DATA = re.compile(r"^# @data-begin\n.*?^# @data-end\n", re.S | re.M)
_BLOCK = re.compile(r"^[ \t]*# @omit ([\w,]+)\n(.*?)^[ \t]*# @end \1\n", re.S | re.M)
_OMIT_NAMES = re.compile(r"^[ \t]*# @omit ([\w,]+)$", re.M)


@dataclass(frozen=True, slots=True)
class Formulation:
    """One template: its file name, the variant it models, its style and its removable blocks."""

    name: str
    variant: str
    style: str
    """The template's own one-line description (first line of its docstring)."""
    omissions: tuple[str, ...]
    """Names of the ``# @omit`` blocks; a block named after a family removes that family."""

    @property
    def source(self) -> str:
        return _template_text(self.name)

    def omission_family(self, omit: str) -> Family | None:
        """The constraint family a mutant without ``omit`` lacks (None: an objective or linking part)."""
        try:
            return Family(omit)
        except ValueError:
            return None


@cache
def _template_text(name: str) -> str:
    return resources.files(__package__).joinpath("templates", f"{name}.py").read_text()


def _variant_of(file_stem: str) -> str | None:
    prefix = file_stem.split("_", 1)[0]
    try:
        return get_variant(prefix).name
    except ValueError:
        return None


@cache
def catalogue() -> tuple[Formulation, ...]:
    """Every shipped template, in name order (stable, so choices made from it are reproducible)."""
    folder = resources.files(__package__).joinpath("templates")
    found: list[Formulation] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".py"):
            continue
        stem = entry.name.removesuffix(".py")
        variant = _variant_of(stem)
        if variant is None or not get_variant(variant).train:
            continue
        text = entry.read_text()
        doc = text.split('"""', 2)[1].strip().splitlines()[0] if text.startswith('"""') else stem
        found.append(Formulation(stem, variant, doc, block_names(text)))
    return tuple(found)


def formulations_for(variant: str) -> tuple[Formulation, ...]:
    name = get_variant(variant).name
    return tuple(f for f in catalogue() if f.variant == name)


def covered_variants() -> frozenset[str]:
    return frozenset(f.variant for f in catalogue())


def pick(variant: str, key: str) -> Formulation:
    """A formulation of ``variant`` chosen deterministically from ``key`` (spreads styles over samples)."""
    options = formulations_for(variant)
    if not options:
        raise ValueError(f"no alternative formulation ships for {variant}")
    digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    return options[digest % len(options)]


# ---- data blocks ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Listing:
    """How a script lists its nodes: ``order[p]`` is the internal node at position p, and
    ``ids[p]`` the statement's id for it (None: the statement uses the internal numbers)."""

    order: tuple[int, ...]
    ids: tuple[str, ...] | None = None

    @classmethod
    def internal(cls, num_nodes: int) -> Listing:
        return cls(tuple(range(num_nodes)))


def statement_listing(instance: Instance, node_id_map: dict[str, str], *, reverse_customers: bool) -> Listing:
    """Positions for a script written against a renumbered statement (depots stay first)."""
    customers = list(instance.customer_nodes)
    if reverse_customers:
        customers.reverse()
    order = (*range(instance.num_depots), *customers)
    return Listing(order, tuple(node_id_map[str(node)] for node in order))


def reordered(instance: Instance, listing: Listing) -> Instance:
    """The same instance with its customers in ``listing`` order (what a script sees by position)."""
    depots = instance.num_depots
    if listing.order[:depots] != tuple(range(depots)):
        raise ValueError("depots must keep their positions at the front of a listing")
    position = {node: p for p, node in enumerate(listing.order)}
    customers = tuple(instance.customer(node) for node in listing.order[depots:])
    pairs = tuple(
        PickupDelivery(pickup=position[p.pickup], delivery=position[p.delivery], quantity=p.quantity)
        for p in instance.pairs
    )
    data = instance.model_dump()
    data.update(customers=[c.model_dump() for c in customers], pairs=[p.model_dump() for p in pairs])
    return Instance.model_validate(data)


def _lit(value: object) -> str:
    return repr(value)


def render_data(instance: Instance, listing: Listing | None = None) -> str:
    """The instance as plain literals by script position (depots 0..D-1, then customers).

    With statement ids in ``listing``, the block also defines ``node_ids`` / ``id2idx`` /
    ``idx2id`` so the verifier can translate the statement's ids into the script's positions.
    """
    if instance.distance.kind is not DistanceKind.EUCLIDEAN:
        raise ValueError("the shipped formulations compute plain Euclidean distances themselves")
    listing = listing or Listing.internal(instance.num_nodes)
    inst = reordered(instance, listing) if listing.order != tuple(range(instance.num_nodes)) else instance
    spec = inst.spec
    nodes = range(inst.num_nodes)
    customers = list(inst.customer_nodes)
    vehicles = inst.vehicles
    lines = ["# @data-begin", "# Nodes by position: depots first, then customers; travel time = Euclidean distance."]
    if listing.ids is not None:
        lines += [
            f"node_ids = {_lit(list(listing.ids))}",
            "id2idx = {bid: i for i, bid in enumerate(node_ids)}",
            "idx2id = {i: bid for bid, i in id2idx.items()}",
        ]
    lines += [
        f"N = {inst.num_nodes}",
        f"DEPOTS = {_lit(list(range(inst.num_depots)))}",
        f"CUSTOMERS = {_lit(customers)}",
        f"COORDS = {_lit([(float(a), float(b)) for a, b in inst.coords])}",
        f"K = {len(vehicles)}",
        f"VEHICLE_DEPOT = {_lit([v.depot for v in vehicles])}",
        f"FIXED_COST = {_lit([float(v.fixed_cost) for v in vehicles])}",
        f"UNIT_COST = {_lit([float(v.cost_per_distance) for v in vehicles])}",
    ]
    if spec.capacity is not CapacityKind.NONE:
        lines.append(f"CAPACITY = {_lit([float(v.capacity or 0.0) for v in vehicles])}")
        if spec.capacity is CapacityKind.HOMOGENEOUS:
            lines.append(f"Q = {_lit(float(vehicles[0].capacity or 0.0))}")
    if not spec.is_tsp and not spec.has(Module.PD):
        lines.append(f"DEMAND = {_lit({c: float(inst.customer(c).demand) for c in customers})}")
    if spec.has(Module.MC):
        comp = {c: tuple(map(float, inst.customer(c).compartment_demand or ())) for c in customers}
        rooms = [tuple(map(float, v.compartment_capacity or ())) for v in vehicles]
        lines.append(f"COMP_DEMAND = {_lit(comp)}")
        lines.append(f"COMP_CAP = {_lit(rooms)}")
    if spec.has(Module.BH):
        lines.append(f"LINEHAUL = {_lit([c for c in customers if not inst.customer(c).backhaul])}")
        lines.append(f"BACKHAUL = {_lit([c for c in customers if inst.customer(c).backhaul])}")
    if spec.has(Module.PD):
        lines.append(f"PAIRS = {_lit([(p.pickup, p.delivery, float(p.quantity)) for p in inst.pairs])}")
    if spec.has(Module.HTW) or spec.has(Module.STW):
        windows = [d.window for d in inst.depots] + [c.window for c in inst.customers]
        bounds = {i: (float(w.start), float(w.end)) for i, w in zip(nodes, windows, strict=True) if w}
        lines.append(f"WINDOW = {_lit(bounds)}")
        service = [0.0] * inst.num_depots + [float(c.service_time) for c in inst.customers]
        lines.append(f"SERVICE = {_lit(dict(zip(nodes, service, strict=True)))}")
    if spec.has(Module.STW):
        penalty = {c: float(inst.customer(c).late_penalty or 0.0) for c in customers}
        lines.append(f"LATE_PENALTY = {_lit(penalty)}")
    if spec.has(Module.DIST):
        lines.append(f"MAX_DIST = {_lit(float(inst.max_route_distance or 0.0))}")
    lines.append("# @data-end")
    return "\n".join(lines) + "\n"


def render(formulation: Formulation, instance: Instance, *, listing: Listing | None = None, omit: str | None = None) -> str:
    """The script of ``formulation`` for ``instance``; with ``omit``, the mutant lacking that block."""
    if formulation.variant != instance.spec.name:
        raise ValueError(f"{formulation.name} models {formulation.variant}, not {instance.spec.name}")
    return render_source(formulation.source, instance, listing=listing, omit=omit, name=formulation.name)


def render_source(
    template: str, instance: Instance, *, listing: Listing | None = None, omit: str | None = None, name: str = "template"
) -> str:
    """A marked-up script (a data block, ``# @omit`` blocks) filled in for ``instance``.

    The one renderer of the template convention: the shipped formulations go through it, and so do
    the verifier's held-out independent candidates in the tests. The markers are removed, so a
    rendered script reads like ordinary code.
    """
    if not _DATA.search(template):
        raise ValueError(f"{name} has no data block")
    code = _DATA.sub(lambda _: render_data(instance, listing), template, count=1)
    return re.sub(r"^# @data-(begin|end)\n", "", apply_omissions(code, omit, name=name), flags=re.M)


def block_names(template: str) -> tuple[str, ...]:
    """The names of a marked-up script's ``# @omit`` blocks, sorted."""
    return tuple(sorted({n for group in _OMIT_NAMES.findall(template) for n in group.split(",")}))


def apply_omissions(template: str, omit: str | None, *, name: str = "template") -> str:
    """``template`` without its ``# @omit`` markers, and without the blocks named ``omit`` (a mutant)."""
    if omit is not None and omit not in block_names(template):
        raise ValueError(f"{name} has no '# @omit {omit}' block (it has: {', '.join(block_names(template))})")
    code = _BLOCK.sub(lambda m: "" if omit in m.group(1).split(",") else m.group(2), template)
    if "# @omit" in code or "# @end" in code:
        raise ValueError(f"{name}: unbalanced omit markers")
    return code

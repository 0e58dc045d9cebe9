"""The offline teacher's statement writer: a complete, faithful problem statement from an instance.

``write_statement(sample_or_instance, path, seed)`` is the one entry point (the eval service
builds benchmarks 1-3 with it). Every path describes the same optimization problem, with every
number of the instance bound to its entity:

- ``scenario``: the full statement in the scene's words (``scenes.choose_hint``), including the
  modelling hygiene a gold script spells out (no self-visits, no depot in mid-route, the free
  return leg of an open route as a modelling device);
- ``condensed``: the permissive condensation: same facts, compact data, hygiene wording dropped;
- ``strict``: the strict condensation: as condensed, and route termination said in business
  words only ("vehicles do not need to return" / "every vehicle returns");
- ``index:one_based`` / ``index:from_two`` / ``index:letters``: the scenario or the condensed
  statement (fixed per sample) with every node renamed (1..N, 2..N+1 or A, B, ..., Z, AA, ...); ``Statement.node_id_map`` maps each
  internal node number (as a string) to its new id, a bijection the verifier composes with the
  candidate's own ``id2idx`` (SPEC section 2).

Nodes keep the internal order in every listing (depots first, then customers), vehicles are
numbered 0..K-1 and compartments 0..C-1 in every path. Numbers are written so that Python reads
back the exact value (``repr`` of the float, integers without a decimal point), because DIFF
compares optima to 1e-3 and a rounded demand would move the optimum.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from enum import StrEnum

from vrpcoder.distances import DistanceKind
from vrpcoder.instances import Instance
from vrpcoder.samples import Sample
from vrpcoder.variants import CapacityKind, Module

from vrpcoder_synth.scenes import Hint, Style, article, choose_hint, plural


class IdScheme(StrEnum):
    """Node naming of an index-rewritten statement."""

    ONE_BASED = "one_based"
    FROM_TWO = "from_two"
    LETTERS = "letters"


class StatementPath(StrEnum):
    SCENARIO = "scenario"
    CONDENSED = "condensed"
    STRICT = "strict"
    INDEX_ONE_BASED = "index:one_based"
    INDEX_FROM_TWO = "index:from_two"
    INDEX_LETTERS = "index:letters"

    @property
    def scheme(self) -> IdScheme | None:
        return IdScheme(self.value.split(":", 1)[1]) if self.value.startswith("index:") else None

    @property
    def is_index(self) -> bool:
        return self.scheme is not None


INDEX_PATHS = (StatementPath.INDEX_ONE_BASED, StatementPath.INDEX_FROM_TWO, StatementPath.INDEX_LETTERS)


def index_path_for(variant: str, seed: int | None, profile: int | None) -> StatementPath:
    """The one index scheme a sample gets (deterministic in the sample triple, like the scene)."""
    digest = hashlib.sha256(f"index|{variant.upper()}|{seed}|{profile}".encode()).digest()
    return INDEX_PATHS[digest[0] % len(INDEX_PATHS)]


def _index_of_condensed(variant: str, seed: int | None, profile: int | None) -> bool:
    """Whether an index rewrite renames the condensed statement (else the scenario one): the paper
    rewrites either, so half the samples get each, again fixed by the sample triple."""
    return hashlib.sha256(f"index-base|{variant.upper()}|{seed}|{profile}".encode()).digest()[0] % 2 == 1


def letter_id(position: int) -> str:
    """A, B, ..., Z, AA, AB, ... (spreadsheet columns): letters never run out."""
    out = ""
    position += 1
    while position:
        position, rest = divmod(position - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


def node_labels(num_nodes: int, scheme: IdScheme | None) -> tuple[str, ...]:
    """The id of every internal node 0..N-1 under ``scheme`` (None: the internal numbers)."""
    if scheme is None:
        return tuple(str(p) for p in range(num_nodes))
    if scheme is IdScheme.ONE_BASED:
        return tuple(str(p + 1) for p in range(num_nodes))
    if scheme is IdScheme.FROM_TWO:
        return tuple(str(p + 2) for p in range(num_nodes))
    return tuple(letter_id(p) for p in range(num_nodes))


def count(n: int, noun: str) -> str:
    """'one van' / '3 vans' / '2 school buses'."""
    return f"one {noun}" if n == 1 else f"{n} {plural(noun)}"


def cap(text: str) -> str:
    """Upper-case the first letter only (``str.capitalize`` would lower-case a letter id)."""
    return text[:1].upper() + text[1:]


def fmt(value: float) -> str:
    """A number as the statement writes it: exact (``repr``), integral values without '.0'."""
    number = float(value)
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else repr(number)


@dataclass(frozen=True, slots=True)
class Statement:
    """A problem statement q and what a verifier needs to read its ids."""

    text: str
    path: StatementPath
    hint: Hint
    labels: tuple[str, ...]
    """The statement's id of every internal node."""
    node_id_map: dict[str, str] | None
    """Internal node (as a string) -> statement id; set exactly for index-rewritten paths."""

    @property
    def node_terms(self) -> tuple[str, ...]:
        """Words the statement puts before a node id (the fidelity checker looks for them)."""
        return (self.hint.scene.depot, self.hint.scene.customer)


def _source(source: Sample | Instance) -> tuple[Instance, int | None, int | None]:
    if isinstance(source, Sample):
        return source.instance, source.seed, source.profile
    return source, source.provenance.seed, source.provenance.profile


def write_statement(
    source: Sample | Instance,
    path: StatementPath | str = StatementPath.SCENARIO,
    seed: int | None = None,
    profile: int | None = None,
) -> Statement:
    """Write the statement of ``source`` for ``path``.

    The scene, style and unit come from (variant, seed, profile); ``seed`` / ``profile`` default
    to the sample's (or the instance's provenance), so callers normally pass neither.
    """
    path = StatementPath(path)
    instance, own_seed, own_profile = _source(source)
    hint = choose_hint(instance.spec.name, own_seed if seed is None else seed, own_profile if profile is None else profile)
    labels = node_labels(instance.num_nodes, path.scheme)
    triple = (instance.spec.name, own_seed if seed is None else seed, own_profile if profile is None else profile)
    text = _Writer(instance, hint, labels, path, condensed_base=path.is_index and _index_of_condensed(*triple)).text()
    id_map = {str(p): label for p, label in enumerate(labels)} if path.is_index else None
    return Statement(text=text, path=path, hint=hint, labels=labels, node_id_map=id_map)


class _Writer:
    """Sentences of one statement; each method returns lines (a line holds one entity's facts)."""

    def __init__(
        self, instance: Instance, hint: Hint, labels: tuple[str, ...], path: StatementPath, *, condensed_base: bool = False
    ) -> None:
        self.inst = instance
        self.spec = instance.spec
        self.hint = hint
        self.labels = labels
        self.path = path
        self.compact = condensed_base or path in (StatementPath.CONDENSED, StatementPath.STRICT)
        self.style = hint.style
        self.scene = hint.scene
        self.unit = hint.unit

    # ---- names ----
    def depot(self, node: int) -> str:
        return f"{self.scene.depot} {self.labels[node]}"

    def customer(self, node: int) -> str:
        return f"{self.scene.customer} {self.labels[node]}"

    def node(self, node: int) -> str:
        return self.depot(node) if node < self.inst.num_depots else self.customer(node)

    def vehicle(self, k: int) -> str:
        return f"{self.scene.vehicle} {k}"

    def qty(self, value: float) -> str:
        return self.unit.of(fmt(value))

    @property
    def timed(self) -> bool:
        return self.spec.has(Module.HTW) or self.spec.has(Module.STW)

    @property
    def capacitated(self) -> bool:
        return self.spec.capacity is not CapacityKind.NONE

    # ---- assembly ----
    def text(self) -> str:
        sections = [self.background(), self.locations(), self.fleet(), self.rules(), self.objective()]
        if self.style is Style.FORMAL and not self.compact:
            titles = ("Background.", "Locations and demand.", "Fleet.", "Operating rules.", "Objective.")
            sections = [[title, *lines] for title, lines in zip(titles, sections, strict=True)]
        return "\n\n".join("\n".join(lines) for lines in sections if lines) + "\n"

    def background(self) -> list[str]:
        inst, scene = self.inst, self.scene
        n_cust, n_dep, k = len(inst.customers), inst.num_depots, len(inst.vehicles)
        ids = f"{self.labels[0]} to {self.labels[-1]}"
        depots = count(n_dep, scene.depot)
        customers = count(n_cust, scene.customer)
        if self.compact:
            return [
                f"{scene.name}: {depots}, {customers} and {count(k, scene.vehicle)}; locations are identified {ids}.",
                self.distance_rule(),
            ]
        name = scene.name.lower()
        lead = {
            Style.ACADEMIC: f"We study {article(name)} {name} problem.",
            Style.FORMAL: f"{cap(article(name))} {name} operation is to be planned.",
            Style.CONSERVATIVE: f"This is {article(name)} {name} planning problem.",
        }[self.style]
        return [
            f"{lead} It involves {depots}, {customers} and a fleet of {count(k, scene.vehicle)}.",
            f"Every location has an identifier; the identifiers run from {ids}, {scene.depots} first.",
            self.distance_rule(),
        ]

    def distance_rule(self) -> str:
        kind = self.inst.distance.kind
        what = {
            DistanceKind.EUCLIDEAN: "the straight-line (Euclidean) distance between their coordinates, not rounded",
            DistanceKind.EUCLIDEAN_TRUNC1: "the Euclidean distance between their coordinates, rounded down to one decimal",
            DistanceKind.EUC_2D: "the Euclidean distance between their coordinates, rounded to the nearest integer",
            DistanceKind.CEIL_2D: "the Euclidean distance between their coordinates, rounded up to an integer",
            DistanceKind.ATT: (
                "the pseudo-Euclidean distance: r = sqrt((dx^2 + dy^2) / 10), rounded to the nearest integer t, "
                "plus one when t is below r"
            ),
            DistanceKind.GEO: (
                "the great-circle distance of the TSPLIB GEO convention: coordinates are latitude and longitude "
                "written as degrees.minutes, the earth radius is 6378.388, and the result is truncated to an integer"
            ),
            DistanceKind.EXPLICIT: "given in the distance table below",
        }[kind]
        return f"The travel distance between two locations is {what}; travel time equals travel distance."

    def locations(self) -> list[str]:
        lines = [self.depot_line(d) for d in range(self.inst.num_depots)]
        lines += [self.customer_line(node) for node in self.inst.customer_nodes]
        if self.spec.has(Module.PD):
            lines += [self.pair_line(r) for r in range(len(self.inst.pairs))]
        if self.inst.distance.kind is DistanceKind.EXPLICIT:
            lines += self.matrix_lines()
        return lines

    def where(self, node: int) -> str:
        x, y = self.inst.coords[node]
        return f"({fmt(x)}, {fmt(y)})"

    def depot_line(self, d: int) -> str:
        depot = self.inst.depots[d]
        name = self.depot(d)
        window = depot.window
        if self.compact or self.style is Style.ACADEMIC:
            parts = [f"{cap(name)}: location {self.where(d)}"]
            if window is not None:
                parts += [f"opens at time {fmt(window.start)}", f"closes at time {fmt(window.end)}"]
            return "; ".join(parts) + "."
        text = f"{cap(name)} is located at {self.where(d)}."
        if window is not None:
            text += f" {cap(name)} opens at time {fmt(window.start)}. {cap(name)} closes at time {fmt(window.end)}."
        return text

    def customer_facts(self, node: int) -> list[str]:
        c = self.inst.customer(node)
        facts: list[str] = []
        if self.spec.has(Module.BH):
            role = "backhaul pickup of" if c.backhaul else "linehaul delivery of"
            facts.append(f"{role} {self.qty(c.demand)}")
        elif self.spec.has(Module.MC):
            parts = ", ".join(f"{fmt(q)} in compartment {i}" for i, q in enumerate(c.compartment_demand or ()))
            facts.append(f"demand {self.qty(c.demand)} in total ({parts})")
        elif not self.spec.is_tsp and not self.spec.has(Module.PD):
            facts.append(f"demand {self.qty(c.demand)}")
        if c.window is not None:
            facts.append(f"time window from {fmt(c.window.start)} to {fmt(c.window.end)}")
        if self.timed:
            facts.append(f"service time {fmt(c.service_time)}")
        if c.late_penalty is not None:
            facts.append(f"late penalty {fmt(c.late_penalty)} per time unit")
        return facts

    def customer_line(self, node: int) -> str:
        name = self.customer(node)
        facts = self.customer_facts(node)
        if self.compact or self.style is Style.ACADEMIC:
            return "; ".join([f"{cap(name)}: location {self.where(node)}", *facts]) + "."
        sentences = [f"{cap(name)} is located at {self.where(node)}."]
        sentences += [f"{cap(name)} has {fact}." for fact in facts]
        return " ".join(sentences)

    def pair_line(self, r: int) -> str:
        pair = self.inst.pairs[r]
        return (
            f"Request {r}: {self.qty(pair.quantity)} are picked up at {self.customer(pair.pickup)} "
            f"and delivered to {self.customer(pair.delivery)}."
        )

    def matrix_lines(self) -> list[str]:
        dist = self.inst.distances
        lines = ["Distance table (row: from, column: to):"]
        for i in range(self.inst.num_nodes):
            row = ", ".join(f"to {self.labels[j]}: {fmt(dist[i][j])}" for j in range(self.inst.num_nodes) if j != i)
            lines.append(f"From {self.node(i)}: {row}.")
        return lines

    # ---- fleet ----
    def fleet(self) -> list[str]:
        inst, veh = self.inst, self.scene.vehicle
        vehicles = inst.vehicles
        k = len(vehicles)
        if self.spec.heterogeneous or inst.num_depots > 1:
            numbered = f"The only {veh} is numbered 0." if k == 1 else f"The {k} {plural(veh)} are numbered 0 to {k - 1}."
            return [numbered, *(self.vehicle_line(i) for i in range(k))]
        first = vehicles[0]
        if k == 1:
            parts = [f"There is one {veh}, numbered 0, based at {self.depot(0)}"]
        else:
            parts = [f"There are {k} identical {plural(veh)}, numbered 0 to {k - 1}, all based at {self.depot(0)}"]
        if first.capacity is not None:
            parts.append(f"{'with' if k == 1 else 'each with'} a capacity of {self.qty(first.capacity)}")
        if first.compartment_capacity is not None:
            rooms = ", ".join(f"{fmt(q)} for compartment {i}" for i, q in enumerate(first.compartment_capacity))
            parts.append(f"split into compartments with capacities {rooms}")
        if first.fixed_cost:
            parts.append(f"a fixed cost of {fmt(first.fixed_cost)} for each {veh} that is used")
        if first.cost_per_distance != 1.0:
            parts.append(f"a cost of {fmt(first.cost_per_distance)} per unit of distance driven")
        return ["; ".join(parts) + "."]

    def vehicle_line(self, k: int) -> str:
        v = self.inst.vehicles[k]
        kind = f" ({v.type_name} type)" if v.type_name else ""
        parts = [f"{cap(self.vehicle(k))}{kind} is based at {self.depot(v.depot)}"]
        if v.capacity is not None:
            parts.append(f"capacity {self.qty(v.capacity)}")
        if v.compartment_capacity is not None:
            rooms = ", ".join(f"{fmt(q)} for compartment {i}" for i, q in enumerate(v.compartment_capacity))
            parts.append(f"compartment capacities {rooms}")
        if self.spec.heterogeneous or v.fixed_cost:
            parts.append(f"fixed cost {fmt(v.fixed_cost)} if used")
        if self.spec.heterogeneous or v.cost_per_distance != 1.0:
            parts.append(f"cost {fmt(v.cost_per_distance)} per unit distance")
        return "; ".join(parts) + "."

    # ---- rules ----
    def rules(self) -> list[str]:
        spec, scene = self.spec, self.scene
        veh, cust, dep = scene.vehicle, scene.customer, scene.depot
        out: list[str] = []
        open_routes = spec.has(Module.OPEN)
        if spec.is_tsp and self.path is StatementPath.STRICT:
            out.append(f"The single {veh} leaves {self.depot(0)}, visits every {cust} exactly once and must return to {self.depot(0)} at the end.")
        elif spec.is_tsp:
            out.append(f"The single {veh} starts at {self.depot(0)}, visits every {cust} exactly once and returns to {self.depot(0)}.")
        else:
            home = f"its own {dep}" if self.inst.num_depots > 1 else self.depot(0)
            out.append(
                f"Each {veh} is either unused or drives exactly one route that starts at {home}"
                + (f" and visits a sequence of {plural(cust)}." if open_routes else f", visits a sequence of {plural(cust)} and returns to that same {dep}.")
            )
            if spec.has(Module.SPLIT):
                out.append(
                    f"{cap(article(cust))} {cust}'s demand may be split among several {plural(veh)}: every {cust} is visited at least once, "
                    f"{article(veh)} {veh} visits {article(cust)} {cust} at most once, delivers to {article(cust)} {cust} only if it visits it, "
                    f"and the amounts delivered to {article(cust)} {cust} add up exactly to its demand."
                )
            else:
                out.append(f"Every {cust} is visited exactly once, by exactly one {veh}.")
        if open_routes:
            if self.path is StatementPath.STRICT:
                out.append(f"{cap(plural(veh))} do not need to return to the {dep} after their last {cust}.")
            else:
                out.append(
                    f"Routes are open: a route ends at its last {cust}, and the trip back to the {dep} is neither driven nor paid"
                    + ("." if self.compact else f" (a model may treat it as a free return arc to the {veh}'s {dep}).")
                )
        elif self.path is StatementPath.STRICT and not spec.is_tsp:
            out.append(f"All {plural(veh)} return to their {dep} after completing their {plural(cust)}.")
        if not self.compact:
            out.append(f"No route visits a location twice in a row or passes through {article(dep)} {dep} between its start and its end.")
        if self.capacitated:
            out += self.capacity_rules()
        if spec.has(Module.DIST):
            leg = " (the trip back to the depot is not counted)" if open_routes else ""
            out.append(f"The length of each route may not exceed {fmt(self.inst.max_route_distance or 0.0)}{leg}.")
        if spec.has(Module.PD):
            out.append(f"For every request, the pickup and the delivery are made by the same {veh}, and the pickup comes first on its route.")
        if spec.has(Module.BH):
            out.append(f"On every route, all linehaul deliveries are made before any backhaul pickup.")
        if self.timed:
            out += self.time_rules()
        return out

    def capacity_rules(self) -> list[str]:
        spec, veh = self.spec, self.scene.vehicle
        if spec.has(Module.PD):
            return [f"The goods on board {article(veh)} {veh} (nothing at the start; a pickup adds its quantity, the matching delivery removes it) never exceed its capacity."]
        if spec.has(Module.BH):
            return [f"On every route, the linehaul deliveries together fit the {veh}'s capacity, and the backhaul pickups together fit it as well."]
        if spec.has(Module.SPLIT):
            return [f"The amounts {article(veh)} {veh} delivers add up to at most its capacity."]
        lines = [f"The total demand of the {self.scene.customers} on a route fits the capacity of its {veh}."]
        if spec.has(Module.MC):
            lines.append(f"Products of different compartments never mix: on every route, each compartment's demand fits that compartment's capacity.")
        return lines

    def time_rules(self) -> list[str]:
        veh, dep = self.scene.vehicle, self.scene.depot
        lines = [
            f"Every {veh} leaves its {dep} when the {dep} opens; arriving at a location takes the travel time from the previous one, "
            f"and service starts at the arrival time or at the start of the time window, whichever is later (waiting is allowed)."
        ]
        if self.spec.has(Module.HTW):
            lines.append("Service must start no later than the end of the time window.")
            if not self.spec.has(Module.OPEN):
                lines.append(f"Every {veh} must be back at its {dep} no later than the {dep} closes.")
        else:
            lines.append(
                "Service may start after the end of the time window, but each time unit of lateness costs the location's late penalty; "
                f"service never starts before the window opens, and there is no deadline for returning ({article(veh)} {veh} may come back "
                f"after its {dep} closes)."
            )
        return lines

    # ---- objective ----
    def objective(self) -> list[str]:
        vehicles = self.inst.vehicles
        fixed = any(v.fixed_cost for v in vehicles)
        rates = any(v.cost_per_distance != 1.0 for v in vehicles)
        terms = []
        if fixed:
            terms.append(f"the fixed cost of every {self.scene.vehicle} used")
        terms.append("the distance each route drives times its vehicle's cost per unit distance" if rates or self.spec.heterogeneous else "the total distance driven")
        if self.spec.has(Module.STW):
            terms.append("the late penalties")
        if self.spec.has(Module.OPEN):
            terms[-1 if not self.spec.has(Module.STW) else -2] += " (return trips excluded)"
        return [f"The goal is to minimize {', plus '.join(terms)}."]

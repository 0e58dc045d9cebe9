"""Static fidelity checks of a statement against its instance, in code (not only by a critic).

A statement is faithful when every number of the instance appears in it *next to its entity*
(the line or sentence that names the customer, vehicle or request also carries the value), no
number appears that the instance does not explain, every node id of the statement is the one
its ``node_id_map`` says, and every rule of the variant is stated. The checks read text only,
so they judge an LLM's statement the same way as the offline writer's:

- a *segment* is a line, or a sentence within a line;
- a node is *named* in a segment by one of the node words (the scene's depot and customer
  words, plus generic ones such as "node" or "location") followed by its id;
- a value is *bound* to an entity when one segment names the entity and contains the value.

Every problem has a kind, so the pipeline can count discard reasons.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from vrpcoder.distances import DistanceKind
from vrpcoder.instances import Instance
from vrpcoder.variants import CapacityKind, Module, Variant

from vrpcoder_synth.scenes import plural
from vrpcoder_synth.statements import Statement

GENERIC_NODE_WORDS = ("node", "location", "customer", "depot", "site", "stop", "point", "station", "address")


class ProblemKind(StrEnum):
    MISSING_NUMBER = "missing_number"
    """A number of the instance does not appear at all."""
    UNBOUND_NUMBER = "unbound_number"
    """The number appears, but never beside the entity it belongs to."""
    EXTRA_NUMBER = "extra_number"
    """A number the instance does not explain (fabricated or altered)."""
    MISSING_ENTITY = "missing_entity"
    """A node is never named."""
    ID_MAP = "id_map"
    """The node-id map is not a bijection onto the nodes, or the text uses ids it does not list."""
    MISSING_RULE = "missing_rule"
    """A rule of the variant (or the objective's direction, or the instance's distance convention) is not stated."""
    MISSING_FLEET = "missing_fleet"
    """The fleet is not stated: its size, a vehicle of a listed fleet, or the depot a vehicle is based at."""


@dataclass(frozen=True, slots=True)
class Problem:
    kind: ProblemKind
    detail: str


@dataclass(frozen=True, slots=True)
class FidelityReport:
    problems: tuple[Problem, ...] = ()

    @property
    def ok(self) -> bool:
        return not self.problems

    def kinds(self) -> Counter[str]:
        return Counter(p.kind.value for p in self.problems)

    def summary(self) -> str:
        return "; ".join(f"{p.kind.value}: {p.detail}" for p in self.problems[:6])


@dataclass(frozen=True, slots=True)
class Fact:
    """A value of the instance and the entities it belongs to (all named in one segment)."""

    value: float
    what: str
    nodes: tuple[int, ...] = ()
    vehicle: int | None = None


_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])")
_SENTENCE = re.compile(r"(?<=[.;:])\s+(?=[A-Z(])")


def numbers_in(text: str) -> list[float]:
    return [float(m.group()) for m in _NUMBER.finditer(text)]


def segments(text: str) -> list[str]:
    out: list[str] = []
    for line in text.splitlines():
        if line.strip():
            out.append(line)
            out.extend(part for part in _SENTENCE.split(line) if part.strip() and part != line)
    return out


def instance_facts(instance: Instance) -> list[Fact]:
    """Every number the statement must carry, with its owner."""
    spec = instance.spec
    facts: list[Fact] = []
    for node, (x, y) in enumerate(instance.coords):
        facts += [Fact(x, "x coordinate", (node,)), Fact(y, "y coordinate", (node,))]
    for d, depot in enumerate(instance.depots):
        if depot.window is not None:
            facts += [Fact(depot.window.start, "opening time", (d,)), Fact(depot.window.end, "closing time", (d,))]
    timed = spec.has(Module.HTW) or spec.has(Module.STW)
    for node in instance.customer_nodes:
        c = instance.customer(node)
        if not spec.is_tsp and not spec.has(Module.PD):
            facts.append(Fact(c.demand, "demand", (node,)))
        for i, q in enumerate(c.compartment_demand or ()):
            facts.append(Fact(q, f"compartment {i} demand", (node,)))
        if c.window is not None:
            facts += [Fact(c.window.start, "window start", (node,)), Fact(c.window.end, "window end", (node,))]
        if timed:
            facts.append(Fact(c.service_time, "service time", (node,)))
        if c.late_penalty is not None:
            facts.append(Fact(c.late_penalty, "late penalty", (node,)))
    for pair in instance.pairs:
        facts.append(Fact(pair.quantity, "request quantity", (pair.pickup, pair.delivery)))
    per_vehicle = spec.heterogeneous or instance.num_depots > 1
    for k, v in enumerate(instance.vehicles):
        if not per_vehicle and k > 0:
            break
        owner = k if per_vehicle else None
        if v.capacity is not None:
            facts.append(Fact(v.capacity, "capacity", vehicle=owner))
        for i, q in enumerate(v.compartment_capacity or ()):
            facts.append(Fact(q, f"compartment {i} capacity", vehicle=owner))
        if spec.heterogeneous or v.fixed_cost:
            facts.append(Fact(v.fixed_cost, "fixed cost", vehicle=owner))
        if spec.heterogeneous or v.cost_per_distance != 1.0:
            facts.append(Fact(v.cost_per_distance, "cost per distance", vehicle=owner))
    if instance.max_route_distance is not None:
        facts.append(Fact(instance.max_route_distance, "maximum route length"))
    if instance.distance.kind is DistanceKind.EXPLICIT:
        dist = instance.distances
        n = instance.num_nodes
        facts += [Fact(dist[i][j], "distance") for i in range(n) for j in range(n) if i != j]
    return facts


_CONSTANTS: dict[DistanceKind, tuple[float, ...]] = {
    DistanceKind.ATT: (10.0, 2.0),
    DistanceKind.GEO: (6378.388,),
}


def _allowed_numbers(instance: Instance, labels: Sequence[str]) -> set[float]:
    """Numbers a faithful statement may use besides the facts: ids, counts, indices."""
    allowed: set[float] = {0.0, 1.0}
    for label in labels:
        try:
            allowed.add(float(label))
        except ValueError:
            pass
    counts = (instance.num_nodes, instance.num_depots, len(instance.customers), len(instance.vehicles), len(instance.pairs))
    allowed.update(float(c) for c in counts)
    allowed.update(float(k) for k in range(len(instance.vehicles) + 1))
    allowed.update(float(r) for r in range(len(instance.pairs) + 1))
    width = max((len(c.compartment_demand or ()) for c in instance.customers), default=0)
    allowed.update(float(i) for i in range(width + 1))
    allowed.update(_CONSTANTS.get(instance.distance.kind, ()))
    return allowed


@dataclass(frozen=True)
class Vocabulary:
    """How the statement names nodes and vehicles."""

    node_words: tuple[str, ...]
    vehicle_word: str = "vehicle"
    extra_vehicle_words: tuple[str, ...] = ("vehicle", "truck", "van")

    def fleet_pattern(self, size: int) -> re.Pattern[str]:
        """A segment that counts the fleet: the vehicle word (singular or plural) and its size in
        digits, or in words for a single vehicle ("one van", "a single van", "the only van")."""
        words = sorted({w.lower() for base in (self.vehicle_word, *self.extra_vehicle_words) for w in (base, plural(base))},
                       key=len, reverse=True)
        noun = "|".join(re.escape(w) for w in words)
        amount = rf"(?<![\w.]){size}(?![\w]|\.\d)" + (r"|\b(?:one|single|only)\b" if size == 1 else "")
        return re.compile(rf"(?is)(?:{amount})[^.;\n]*?\b(?:{noun})|\b(?:{noun})\b[^.;\n]*?(?:{amount})")

    def node_pattern(self, label: str) -> re.Pattern[str]:
        words = sorted({w.lower() for w in (*self.node_words, *GENERIC_NODE_WORDS)}, key=len, reverse=True)
        alternatives = "|".join(re.escape(w) for w in words)
        return re.compile(rf"(?i:(?:{alternatives})s?)\s+{re.escape(label)}(?![\w]|\.\d)")

    def vehicle_pattern(self, k: int) -> re.Pattern[str]:
        words = sorted({w.lower() for w in (self.vehicle_word, *self.extra_vehicle_words)}, key=len, reverse=True)
        alternatives = "|".join(re.escape(w) for w in words)
        return re.compile(rf"(?i:(?:{alternatives}))\s+{k}(?![\w]|\.\d)")


def vocabulary_of(statement: Statement) -> Vocabulary:
    scene = statement.hint.scene
    return Vocabulary(node_words=(scene.depot, scene.customer), vehicle_word=scene.vehicle)


def _has(module: Module) -> Callable[[Variant], bool]:
    return lambda spec: spec.has(module)


_RULES: tuple[tuple[str, Callable[[Variant], bool], str], ...] = (
    ("objective direction (minimize)", lambda spec: True, r"minimi[sz]"),
    ("each customer served exactly once", lambda spec: not spec.has(Module.SPLIT), r"exactly once|exactly one"),
    ("capacity", lambda spec: spec.capacity is not CapacityKind.NONE, r"capacit"),
    ("compartments", _has(Module.MC), r"compartment"),
    (
        "hard time windows",
        _has(Module.HTW),
        r"(?:no later than|not later than|at the latest)[^.\n]*window|window[^.\n]*(?:no later than|not later than|at the latest)",
    ),
    ("soft windows and their penalty", _has(Module.STW), r"late"),
    ("open routes", _has(Module.OPEN), r"open|not need to return|do not return|no return|not driven"),
    ("route length limit", _has(Module.DIST), r"length|distance"),
    ("pickup and delivery on the same vehicle", _has(Module.PD), r"same"),
    ("linehaul before backhaul", _has(Module.BH), r"before"),
    ("split deliveries", _has(Module.SPLIT), r"split"),
)
"""(rule, whether the variant has it, a pattern some wording of it must match). Deliberately loose:
the numbers carry most of the checking, these only catch a rule left out altogether."""

_CLOSED_ROUTES = r"return|back to|come back|comes back"
"""Closed routes (TSP included) must say that a route ends where it started."""
_TIME_IS_DISTANCE = r"travel time[^.\n]*(?:equal|same as|=)[^.\n]*distance"
"""Timed variants must say how travel time is measured (the gold scripts: equal to the distance)."""

_DISTANCE_WORDING: dict[DistanceKind, str] = {
    DistanceKind.EUCLIDEAN: r"(?:euclidean|straight-line)[^.\n]*(?:not rounded|unrounded|without rounding|exact)",
    DistanceKind.EUCLIDEAN_TRUNC1: r"euclidean[^.\n]*(?:rounded down|truncated)[^.\n]*one decimal",
    DistanceKind.EUC_2D: r"euclidean[^.\n]*rounded to the nearest integer",
    DistanceKind.CEIL_2D: r"euclidean[^.\n]*rounded up",
    DistanceKind.ATT: r"pseudo-euclidean",
    DistanceKind.GEO: r"great-circle|\bGEO\b",
    DistanceKind.EXPLICIT: r"distance table|distance matrix|distances are given",
}
"""How each distance convention must be named: DIFF compares optima exactly, so a statement that
leaves the rounding out lets a model guess another one and fail on something it was never told."""


def _rule_problems(instance: Instance, text: str) -> list[Problem]:
    spec = instance.spec
    problems = [
        Problem(ProblemKind.MISSING_RULE, name)
        for name, applies, pattern in _RULES
        if applies(spec) and not re.search(pattern, text, re.I)
    ]
    if not spec.has(Module.OPEN) and not re.search(_CLOSED_ROUTES, text, re.I):
        problems.append(Problem(ProblemKind.MISSING_RULE, "closed routes (every route returns to its depot)"))
    if (spec.has(Module.HTW) or spec.has(Module.STW)) and not re.search(_TIME_IS_DISTANCE, text, re.I):
        problems.append(Problem(ProblemKind.MISSING_RULE, "how travel time is measured"))
    kind = instance.distance.kind
    if not re.search(_DISTANCE_WORDING[kind], text, re.I):
        problems.append(Problem(ProblemKind.MISSING_RULE, f"distance convention ({kind.value}) and its rounding"))
    return problems


def _fleet_problems(instance: Instance, labels: Sequence[str], parts: Sequence[str], vocabulary: Vocabulary) -> list[Problem]:
    """The fleet as the gold script reads it: a listed fleet names every vehicle (and, with several
    depots, the depot each one is based at beside it); a uniform fleet states its size."""
    vehicles = instance.vehicles
    if instance.spec.heterogeneous or instance.num_depots > 1:
        problems = []
        for k, vehicle in enumerate(vehicles):
            named = [seg for seg in parts if vocabulary.vehicle_pattern(k).search(seg)]
            if not named:
                problems.append(Problem(ProblemKind.MISSING_FLEET, f"vehicle {k} is never named"))
            elif instance.num_depots > 1 and not any(vocabulary.node_pattern(labels[vehicle.depot]).search(seg) for seg in named):
                problems.append(Problem(ProblemKind.MISSING_FLEET, f"vehicle {k}'s depot (id {labels[vehicle.depot]}) is not stated with it"))
        return problems
    if not any(vocabulary.fleet_pattern(len(vehicles)).search(seg) for seg in parts):
        return [Problem(ProblemKind.MISSING_FLEET, f"the fleet size ({len(vehicles)}) is not stated with the vehicles")]
    return []


def _map_problems(instance: Instance, node_id_map: dict[str, str] | None) -> tuple[list[str] | None, list[Problem]]:
    """The statement's label of every node per the map, or the map's problems."""
    n = instance.num_nodes
    if node_id_map is None:
        return [str(p) for p in range(n)], []
    problems: list[Problem] = []
    keys = set(node_id_map)
    expected = {str(p) for p in range(n)}
    if keys != expected:
        problems.append(Problem(ProblemKind.ID_MAP, f"map keys {sorted(keys ^ expected)[:6]} do not match the nodes 0..{n - 1}"))
    targets = list(node_id_map.values())
    if len(set(targets)) != len(targets):
        dup = [t for t, c in Counter(targets).items() if c > 1]
        problems.append(Problem(ProblemKind.ID_MAP, f"the map gives several nodes the ids {dup[:6]}"))
    if problems:
        return None, problems
    return [node_id_map[str(p)] for p in range(n)], []


def check_text(
    text: str, instance: Instance, node_id_map: dict[str, str] | None, vocabulary: Vocabulary
) -> FidelityReport:
    """Every static check of one statement text."""
    labels, problems = _map_problems(instance, node_id_map)
    problems += _rule_problems(instance, text)
    if labels is None:
        return FidelityReport(tuple(problems))
    parts = segments(text)
    node_patterns = [vocabulary.node_pattern(label) for label in labels]
    named = [[bool(p.search(seg)) for p in node_patterns] for seg in parts]
    for node, label in enumerate(labels):
        if not any(row[node] for row in named):
            problems.append(Problem(ProblemKind.MISSING_ENTITY, f"node {node} (id {label}) is never named"))
    problems += _fleet_problems(instance, labels, parts, vocabulary)
    seg_numbers = [numbers_in(seg) for seg in parts]
    found = set(numbers_in(text))
    facts = instance_facts(instance)
    for fact in facts:
        value = float(fact.value)
        where = _owner(fact, labels)
        if value not in found:
            problems.append(Problem(ProblemKind.MISSING_NUMBER, f"{fact.what} {value!r} of {where} does not appear"))
            continue
        if not fact.nodes and fact.vehicle is None:
            continue
        vehicle = vocabulary.vehicle_pattern(fact.vehicle) if fact.vehicle is not None else None
        bound = any(
            value in seg_numbers[s]
            and all(named[s][n] for n in fact.nodes)
            and (vehicle is None or vehicle.search(parts[s]))
            for s in range(len(parts))
        )
        if not bound:
            problems.append(Problem(ProblemKind.UNBOUND_NUMBER, f"{fact.what} {value!r} is not stated with {where}"))
    explained = {float(f.value) for f in facts} | _allowed_numbers(instance, labels)
    extra = sorted({v for v in found if v not in explained})
    if extra:
        problems.append(Problem(ProblemKind.EXTRA_NUMBER, f"numbers the instance does not have: {extra[:8]}"))
    if node_id_map is not None:
        problems += _foreign_ids(text, labels, vocabulary)
    return FidelityReport(tuple(problems))


def _owner(fact: Fact, labels: Sequence[str]) -> str:
    if fact.nodes:
        return " and ".join(f"node id {labels[n]}" for n in fact.nodes)
    if fact.vehicle is not None:
        return f"vehicle {fact.vehicle}"
    return "the instance"


def _foreign_ids(text: str, labels: Sequence[str], vocabulary: Vocabulary) -> list[Problem]:
    """Ids the text gives nodes that the map does not list (a leaked old id or a typo)."""
    words = sorted({w.lower() for w in (*vocabulary.node_words, *GENERIC_NODE_WORDS)}, key=len, reverse=True)
    alternatives = "|".join(re.escape(w) for w in words)
    used = {m.group(1) for m in re.finditer(rf"(?i:(?:{alternatives})s?)\s+([A-Z]{{1,3}}|\d+)(?![\w]|\.\d)", text)}
    unknown = sorted(used - set(labels))
    return [Problem(ProblemKind.ID_MAP, f"the text names nodes {unknown[:6]} that the node_id_map does not list")] if unknown else []


def check_statement(statement: Statement, instance: Instance) -> FidelityReport:
    """The static checks of a statement the offline writer (or a teacher wrapped in one) produced."""
    return check_text(statement.text, instance, statement.node_id_map, vocabulary_of(statement))

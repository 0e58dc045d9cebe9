"""The INJ operator: write a probe's routes into a candidate's own model and ask if it is feasible.

A probe is a route plan with a known verdict (``s+`` must be accepted, every ``s-`` rejected).
INJ turns the candidate's model into a feasibility query (constant objective), pins the probe's
customer-to-customer arcs on the candidate's routing variable ``x`` (equality rows, or equal
bounds where a rule concerns single variables), solves, and maps the solver status to a
verdict. Depot arcs are left free (depot-structure errors are DIFF's job), except where a
probe would otherwise be repaired through a depot: intentionally unvisited customers, and split
delivery, where a customer's demand could be moved onto another vehicle entering it from the
depot.

The operator works *in place* on the model the candidate built: candidates that add subtour cuts
from a callback close over their own model object, so a copy would be judged without those cuts.
Everything INJ adds or changes is undone before it returns.

Cost injection (``price=True``) asks the same model a second question about a feasible probe: with
``x`` pinned to the *whole* plan (its depot arcs too), what does the model's own objective come to
once the rest of the model (schedules, loads, penalties) is optimised? A query that finds the plan
feasible answers INJ as well (it pins more than the feasibility query does), so a feasible probe
costs one solve either way.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from typing import Any, Protocol, TypeVar

import gurobipy as gp
from gurobipy import GRB
from pydantic import BaseModel, ConfigDict
from vrpcoder_client.verdicts import InjVerdict, ObjectivePart

from vrpcoder.candidate import (
    SIZE_LIMIT_ERRNO,
    BuiltCandidate,
    Callback,
    NodeTable,
    apply_caps,
    label,
    primary_objective,
    routing_name_pattern,
    status_name,
)
from vrpcoder.errors import ErrorKind, VerificationError, VerificationFailure
from vrpcoder.instances import Instance
from vrpcoder.probes import Encoding, Probe, choose_encoding
from vrpcoder.solutions import Solution
from vrpcoder.variants import Module

_T = TypeVar("_T")


class Isolate(Protocol):
    """Runs ``func(*args)``, which may execute the candidate's code (its callbacks), and returns
    its result.

    In-process that is simply the call (``run_here``). The sandbox runs it on a thread of its own,
    so that the candidate's code finds none of the verifier's frames above its own. The function
    and its arguments are passed apart, never as a closure: a closure's cells are shared with the
    frame that made it, and code that reached them could rebind what that frame reads next."""

    def __call__(self, func: Callable[..., _T], /, *args: Any) -> _T: ...


def run_here(func: Callable[..., _T], /, *args: Any) -> _T:
    return func(*args)


INJ_PREFIX = "__inj_"
"""Name prefix of every constraint INJ adds, so that they can be found and removed again."""

Arc = tuple[int, int]

# ---- the candidate's routing variable ------------------------------------------------------


@dataclass(frozen=True)
class RoutingVariable:
    """The candidate's arc variable ``x``, keyed by the candidate's own integer indices.

    ``x`` may be sparse (built over a pre-filtered arc list): an arc without a variable is
    treated as fixed at 0, so a probe that needs it is infeasible under the candidate's model,
    which is the right verdict because that model forbids the arc.
    """

    name: str
    dims: int
    """2 for ``x[i,j]``, 3 for ``x[i,j,k]``."""
    arcs: Mapping[tuple[int, ...], gp.Var]
    vehicles: tuple[int, ...]
    """The third index set (empty for a 2-index variable)."""

    @cached_property
    def _by_arc(self) -> dict[Arc, list[gp.Var]]:
        grouped: dict[Arc, list[gp.Var]] = {}
        for key, var in self.arcs.items():
            grouped.setdefault((key[0], key[1]), []).append(var)
        return grouped

    def arc_vars(self, i: int, j: int) -> list[gp.Var]:
        """Every variable of arc (i, j), one per vehicle for a 3-index ``x``."""
        return self._by_arc.get((i, j), [])

    def var(self, i: int, j: int, k: int) -> gp.Var | None:
        """The variable of arc (i, j) on vehicle k (3-index only); None when it does not exist."""
        return self.arcs.get((i, j, k))


def _describe(values: Iterable[int]) -> str:
    ordered = sorted(set(values))
    if not ordered:
        return "nothing"
    if ordered == list(range(ordered[0], ordered[-1] + 1)):
        return f"{ordered[0]}..{ordered[-1]}"
    shown = ", ".join(map(str, ordered[:12]))
    return "{" + shown + (", ..." if len(ordered) > 12 else "") + "}"


def _parse_index(inner: str) -> tuple[str, ...]:
    """Index tokens of a Gurobi name body; ``(0, 1),2`` (tuple keys) flattens to three tokens."""
    return tuple(token.strip() for token in re.sub(r"[()]", "", inner).split(","))


def find_routing_variable(model: gp.Model, num_nodes: int, *, name: str = "x") -> RoutingVariable:
    """Locate ``name[...]`` among the model's variables and check it is arc-first over 0..N-1.

    The checks name the typical mistakes of generated code (vehicle-first indices, business ids
    or one-based ids used as indices, a node set of the wrong size), because a routing variable
    that cannot be matched reliably makes any INJ verdict meaningless.
    """
    if num_nodes < 1:
        raise ValueError(f"num_nodes must be positive, got {num_nodes}")
    model.update()
    all_vars = model.getVars()
    names: list[str] = model.getAttr("VarName", all_vars) if all_vars else []
    pattern = routing_name_pattern(name)
    raw: list[tuple[tuple[str, ...], gp.Var]] = []
    for var_name, var in zip(names, all_vars, strict=True):
        match = pattern.match(var_name)
        if match:
            raw.append((_parse_index(match.group(1)), var))
    if not raw:
        others = sorted({re.split(r"[\[_(]", n, maxsplit=1)[0] for n in names})[:8]
        raise VerificationFailure(
            ErrorKind.NO_ROUTING_VARIABLE,
            f"no variable named {name}[...] in the model "
            f"(variable groups found: {', '.join(others) or 'none'})",
        )
    return _routing_variable(raw, name, num_nodes)


def _routing_variable(raw: Sequence[tuple[tuple[str, ...], gp.Var]], name: str, num_nodes: int) -> RoutingVariable:
    """The checks shared by both ways of finding ``x``: index arity, integer keys, node sets."""
    arities = {len(key) for key, _ in raw}
    if len(arities) != 1 or not arities <= {2, 3}:
        raise VerificationFailure(
            ErrorKind.INDEX_MISMATCH,
            f"{name} must be indexed x[i,j] or x[i,j,k]; found index lengths {sorted(arities)}",
        )
    arcs = _integer_keys(raw, name)
    dims = arities.pop()
    _check_node_sets(arcs, dims, num_nodes, name)
    vehicles = tuple(sorted({key[2] for key in arcs})) if dims == 3 else ()
    return RoutingVariable(name=name, dims=dims, arcs=arcs, vehicles=vehicles)


PYTHON_VARIABLE_NOTE = "x matched through the script's Python variable x (its Gurobi names are not x[...])"


def match_routing_variable(
    model: gp.Model, python_x: Sequence[tuple[tuple[str, ...], gp.Var]], num_nodes: int, *, name: str = "x"
) -> tuple[RoutingVariable, str | None]:
    """``x`` by its Gurobi names, or else by the script's own Python variable of that name (read
    during the build into ``python_x``, see ``candidate.read_python_variable``), with a note
    saying so (None when the names matched).

    Generated code often leaves variables unnamed (``addVars(arcs, vtype=GRB.BINARY)``) or names
    them otherwise, while its ``x`` is still a dict of arc variables; the spec asks for such
    candidates to be accepted where they can be matched reliably. The same arity and node-set
    checks as for named variables apply.
    """
    try:
        return find_routing_variable(model, num_nodes, name=name), None
    except VerificationFailure as failure:
        if failure.error.kind is not ErrorKind.NO_ROUTING_VARIABLE or not python_x:
            raise
    return _routing_variable(python_x, name, num_nodes), PYTHON_VARIABLE_NOTE


def _integer_keys(raw: Sequence[tuple[tuple[str, ...], gp.Var]], name: str) -> dict[tuple[int, ...], gp.Var]:
    arcs: dict[tuple[int, ...], gp.Var] = {}
    for tokens, var in raw:
        try:
            arcs[tuple(int(t) for t in tokens)] = var
        except ValueError:
            raise VerificationFailure(
                ErrorKind.INDEX_MISMATCH,
                f"{name} is indexed by non-integer keys such as {name}[{','.join(tokens)}]; "
                "routing variables must use internal integer positions 0..N-1 (map ids with id2idx)",
            ) from None
    return arcs


def _check_node_sets(arcs: Mapping[tuple[int, ...], gp.Var], dims: int, num_nodes: int, name: str) -> None:
    """Origins and destinations must lie in 0..N-1 and together cover it all.

    Neither side need be complete: an open-route model has no arc into the depot, and arcs pruned
    ahead of the solve (no schedule lets anyone follow a late customer) can leave a customer with
    no arc out. One-based ids (index N), a missing depot or a too small node set still fail.
    """
    nodes = set(range(num_nodes))
    firsts = {key[0] for key in arcs}
    seconds = {key[1] for key in arcs}
    if dims == 3:
        thirds = {key[2] for key in arcs}
        if seconds == nodes and thirds == nodes and firsts != nodes:
            raise VerificationFailure(
                ErrorKind.INDEX_MISMATCH,
                f"{name} looks vehicle-first ({name}[k,i,j]): its second and third indices span the "
                f"nodes 0..{num_nodes - 1} but its first spans {_describe(firsts)}; "
                f"index arc-first as {name}[i,j,k]",
            )
    if firsts <= nodes and seconds <= nodes and firsts | seconds == nodes:
        return
    raise VerificationFailure(
        ErrorKind.INDEX_MISMATCH,
        f"{name}'s arcs leave nodes {_describe(firsts)} and enter nodes {_describe(seconds)} but the "
        f"instance has nodes 0..{num_nodes - 1} (depots first, then customers)",
    )


# ---- node numbering ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeMap:
    """Translates the probe's internal node numbers into the candidate's ``x`` positions."""

    index: tuple[int, ...]
    """``index[p]`` is the candidate's position of internal node ``p``."""

    def __post_init__(self) -> None:
        if sorted(self.index) != list(range(len(self.index))):
            raise ValueError(
                f"a node map must be a permutation of 0..{len(self.index) - 1}, got {self.index}"
            )

    @classmethod
    def identity(cls, num_nodes: int) -> NodeMap:
        return cls(tuple(range(num_nodes)))

    def __call__(self, node: int) -> int:
        return self.index[node]

    @classmethod
    def from_candidate(
        cls, node_table: NodeTable, node_id_map: Mapping[str, str] | None, num_nodes: int
    ) -> NodeMap:
        """Compose the statement's renumbering with the candidate's own id-to-position table.

        ``node_id_map`` maps internal node numbers (as strings) to the ids the rewritten
        statement used; the candidate turns those ids into positions with ``id2idx`` (or
        ``idx2id`` / ``node_ids``). Without a renumbering the statement's ids are the internal
        numbers themselves. Anything that does not give a one-to-one map onto 0..N-1 is an
        ``index_mismatch``: a verdict on wrongly translated arcs would be noise.
        """
        labels = _statement_labels(node_id_map, num_nodes)
        if node_table.error is not None:
            raise VerificationFailure(node_table.error.kind, node_table.error.detail)
        table = node_table.table
        if table is None:
            if all(label == str(p) for p, label in enumerate(labels)):
                return cls.identity(num_nodes)
            direct = _as_positions(labels, num_nodes)
            if direct is not None:
                return cls(direct)
            raise VerificationFailure(
                ErrorKind.INDEX_MISMATCH,
                "the statement renumbered its nodes but the script defines no node_ids / id2idx "
                "to translate them into positions",
            )
        missing = [label for label in labels if label not in table]
        if node_id_map is None and not _is_node_table(table, num_nodes):
            # The statement used the internal numbers, and a table that does not cover every node
            # one-to-one is some other variable of the script that happens to share the name.
            return cls.identity(num_nodes)
        if missing:
            # Even when none of the statement's ids is in the table (display names such as
            # "Depot"), identity is not assumed: a script written for a renamed statement looks
            # just like that, and reading its positions as ours gave passes on wrong arcs.
            raise VerificationFailure(
                ErrorKind.INDEX_MISMATCH,
                f"node ids {missing[:8]} of the statement are not in the script's id2idx / node_ids "
                "(these names are reserved for the statement's own ids)",
            )
        index = tuple(table[label] for label in labels)
        if sorted(index) != list(range(num_nodes)):
            raise VerificationFailure(
                ErrorKind.INDEX_MISMATCH,
                f"the script's id2idx does not map the {num_nodes} nodes one-to-one onto 0..{num_nodes - 1}",
            )
        return cls(index)


def _is_node_table(table: Mapping[str, int], num_nodes: int) -> bool:
    return len(table) == num_nodes and sorted(table.values()) == list(range(num_nodes))


def _statement_labels(node_id_map: Mapping[str, str] | None, num_nodes: int) -> list[str]:
    if node_id_map is None:
        return [str(p) for p in range(num_nodes)]
    by_source = {label(k): label(v) for k, v in node_id_map.items()}
    missing = [p for p in range(num_nodes) if str(p) not in by_source]
    if missing:
        raise VerificationFailure(
            ErrorKind.INDEX_MISMATCH, f"node_id_map has no entry for internal nodes {missing}"
        )
    labels = [by_source[str(p)] for p in range(num_nodes)]
    if len(set(labels)) != num_nodes:
        raise VerificationFailure(ErrorKind.INDEX_MISMATCH, "node_id_map gives two nodes the same id")
    return labels


def _as_positions(labels: Sequence[str], num_nodes: int) -> tuple[int, ...] | None:
    """The statement's ids used directly as positions, when they happen to be 0..N-1."""
    try:
        positions = tuple(int(label) for label in labels)
    except ValueError:
        return None
    return positions if sorted(positions) == list(range(num_nodes)) else None


# ---- the probe's arc pattern (internal node numbers) -----------------------------------------


def _check_probe_nodes(instance: Instance, solution: Solution) -> None:
    customers = instance.customer_nodes
    for node in solution.visited:
        if node not in customers:
            raise ValueError(f"probe visits node {node}, which is not a customer of {instance.name!r}")
    for route in solution.routes:
        if not 0 <= route.depot < instance.num_depots:
            raise ValueError(f"probe route starts at node {route.depot}, which is not a depot")


def _customer_arcs(instance: Instance, arcs: Iterable[Arc]) -> list[Arc]:
    first = instance.num_depots
    return [(u, v) for u, v in arcs if u >= first and v >= first]


def used_arcs(instance: Instance, solution: Solution) -> Counter[Arc]:
    """E+(s): customer-customer arcs of the probe's routes and cycles, with multiplicity."""
    arcs = [a for r in solution.routes for a in _customer_arcs(instance, r.arcs)]
    arcs += [a for c in solution.cycles for a in _customer_arcs(instance, c.arcs)]
    return Counter(arcs)


def unused_arcs(instance: Instance, used: Mapping[Arc, int]) -> list[Arc]:
    """E-(s): every other ordered pair of distinct customers."""
    customers = instance.customer_nodes
    return [(u, v) for u in customers for v in customers if u != v and (u, v) not in used]


def vehicle_arcs(instance: Instance, solution: Solution) -> Counter[tuple[int, int, int | None]]:
    """E+(s) with the vehicle that drives each arc (None for a cycle attributed to no vehicle)."""
    arcs: list[tuple[int, int, int | None]] = [
        (u, v, r.vehicle) for r in solution.routes for u, v in _customer_arcs(instance, r.arcs)
    ]
    arcs += [(u, v, c.vehicle) for c in solution.cycles for u, v in _customer_arcs(instance, c.arcs)]
    return Counter(arcs)


def consecutive_arc_pairs(instance: Instance, solution: Solution) -> list[tuple[Arc, Arc]]:
    """Adjacent customer-customer arcs of one route or cycle (cycles wrap around)."""
    pairs: list[tuple[Arc, Arc]] = []
    for route in solution.routes:
        pairs += pairwise(_customer_arcs(instance, route.arcs))
    for cycle in solution.cycles:
        arcs = cycle.arcs
        pairs += [(arcs[i], arcs[(i + 1) % len(arcs)]) for i in range(len(arcs))]
    return list(dict.fromkeys(pairs))


def unvisited_customers(instance: Instance, solution: Solution) -> list[int]:
    visited = set(solution.visited)
    return [c for c in instance.customer_nodes if c not in visited]


def depot_entries(solution: Solution) -> Counter[Arc]:
    """How often the probe enters each customer straight from a depot (first visit of a route)."""
    return Counter((r.depot, r.visits[0]) for r in solution.routes if r.visits)


# ---- encoding ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArcFix:
    """One probe rule in internal numbering: the arc's x summed over ``vehicle`` equals ``rhs``.

    ``vehicle`` None sums over every vehicle (the 2D projection); an int pins a single vehicle.
    """

    tag: str
    u: int
    v: int
    rhs: int
    vehicle: int | None = None

    @property
    def name(self) -> str:
        where = f"{self.u},{self.v}" if self.vehicle is None else f"{self.u},{self.v},{self.vehicle}"
        return f"{INJ_PREFIX}{self.tag}[{where}]"


def probe_fixes(
    instance: Instance, solution: Solution, *, pin_vehicles: bool, whole_plan: bool = False
) -> list[ArcFix]:
    """The equality rules of an encoding, before they meet any model (paper eqs. 2D and 3D).

    Required arcs carry their multiplicity as right-hand side (1 except when split delivery
    lets two vehicles drive the same arc). Customer self-loops are always blocked, and an
    unvisited customer cannot be entered from a depot either (arcs from customers into it are
    already in E-(s)). Under split delivery the depot may enter a visited customer exactly as
    often as the probe does, so demand cannot be moved onto an extra vehicle. ``whole_plan``
    (cost injection) pins the depot arcs as well (``plan_depot_fixes``).
    """
    used = used_arcs(instance, solution)
    fixes: list[ArcFix] = []
    if pin_vehicles:
        fixes += [ArcFix("pos", u, v, n, k) for (u, v, k), n in vehicle_arcs(instance, solution).items()]
    else:
        fixes += [ArcFix("pos", u, v, n) for (u, v), n in used.items()]
    fixes += [ArcFix("neg", u, v, 0) for u, v in unused_arcs(instance, used)]
    fixes += [ArcFix("loop", c, c, 0) for c in instance.customer_nodes]
    depots = range(instance.num_depots)
    fixes += [ArcFix("unvisited", d, c, 0) for c in unvisited_customers(instance, solution) for d in depots]
    fixes += depot_arc_fixes(solution, pin_vehicles=pin_vehicles)
    if whole_plan:
        fixes += plan_depot_fixes(instance, solution, pin_vehicles=pin_vehicles)
    if instance.has(Module.SPLIT):
        entries = depot_entries(solution)
        visited = sorted(set(solution.visited))
        fixes += [ArcFix("split_entry", d, c, entries[(d, c)]) for c in visited for d in depots]
    return fixes


def depot_arc_fixes(solution: Solution, *, pin_vehicles: bool) -> list[ArcFix]:
    """A route that names its end depot has both of its depot arcs pinned (issue 19.4).

    Depot arcs are otherwise left free, so "this route returns to another depot" could not be
    asked at all: the model would simply close the chain at the vehicle's own depot. Pinning the
    first and the last arc makes the chain leave one depot and enter the other, which a correct
    multi-depot model rejects and a model that lets routes end at any depot accepts.
    """
    fixes: list[ArcFix] = []
    for route in solution.routes:
        if route.end_depot is None or not route.visits:
            continue
        vehicle = route.vehicle if pin_vehicles else None
        fixes.append(ArcFix("depot_out", route.depot, route.visits[0], 1, vehicle))
        fixes.append(ArcFix("depot_in", route.visits[-1], route.end_depot, 1, vehicle))
    return fixes


PLAN_TAGS = frozenset({"plan_out", "plan_in"})
"""The tags of the depot-arc rules that only cost injection adds."""


def plan_depot_fixes(instance: Instance, solution: Solution, *, pin_vehicles: bool) -> list[ArcFix]:
    """The depot arcs of the whole plan, for cost injection.

    INJ's feasibility query leaves depot arcs free, which is right for a yes/no question but not
    for a price: a model could then start a route at another depot, or close it through another
    one, and price that. So every route's first leg is pinned (on its vehicle where vehicles are
    pinned) and every other depot-to-customer arc is fixed at 0; on closed routes the legs back
    are pinned the same way. The legs back of an *open* route are left to the model: a model may
    keep them as free arcs into the depot or have no arcs into the depot at all, and either way
    the route is the same (a model that pays for them is what cost injection is there to catch).
    """
    routes = [r for r in solution.routes if r.visits]
    customers = instance.customer_nodes
    depots = range(instance.num_depots)
    legs = {"plan_out": ([(r.depot, r.visits[0], r.vehicle) for r in routes], [(d, c) for d in depots for c in customers])}
    if not instance.has(Module.OPEN):
        legs["plan_in"] = ([(r.visits[-1], r.end, r.vehicle) for r in routes], [(c, d) for c in customers for d in depots])
    fixes: list[ArcFix] = []
    for tag, (driven, every) in legs.items():
        counts = Counter((u, v, k if pin_vehicles else None) for u, v, k in driven)
        fixes += [ArcFix(tag, u, v, n, k) for (u, v, k), n in counts.items()]
        taken = {(u, v) for u, v, _ in driven}
        fixes += [ArcFix(tag, u, v, 0) for u, v in every if (u, v) not in taken]
    return fixes


def _fix_vars(xvar: RoutingVariable, fix: ArcFix, m: NodeMap) -> list[gp.Var]:
    """The candidate's variables whose sum the rule sets; a missing variable counts as fixed at 0."""
    if fix.vehicle is None:
        return xvar.arc_vars(m(fix.u), m(fix.v))
    if fix.vehicle not in xvar.vehicles:
        raise VerificationFailure(
            ErrorKind.INDEX_MISMATCH,
            f"probe vehicle {fix.vehicle} is not among x's vehicle indices {_describe(xvar.vehicles)}",
        )
    var = xvar.var(m(fix.u), m(fix.v), fix.vehicle)
    return [] if var is None else [var]


_BOUNDED_TYPES = frozenset({GRB.BINARY, GRB.INTEGER, GRB.CONTINUOUS})
"""Variable types whose value a pair of equal bounds fixes (a semi-continuous one may still be 0)."""


class BoundPlan:
    """Which rules can be written as bounds instead of rows, and the values they fix.

    A rule on one variable whose bounds admit the value, or a rule that a sum of variables bounded
    below by 0 is 0, says exactly what equal bounds say: the query is the same, and it adds no row.
    That matters because a size-limited licence counts rows: a probe's rules are one per arc, and
    as rows they pushed models that solve on their own past the licence. Any other rule, or one
    that would give a variable a second, different value, stays a row.
    """

    def __init__(self, model: gp.Model, groups: Iterable[Sequence[gp.Var]]) -> None:
        unique = {var.index: var for group in groups for var in group}
        self._vars = list(unique.values())
        attrs = (model.getAttr(name, self._vars) if self._vars else [] for name in ("LB", "UB", "VType"))
        self._lower, self._upper, vtypes = (dict(zip(unique, values, strict=True)) for values in attrs)
        self._bounded = {index for index, vtype in vtypes.items() if vtype in _BOUNDED_TYPES}
        self._value: dict[int, float] = {}

    def take(self, variables: Sequence[gp.Var], rhs: float) -> bool:
        """Fix the rule by bounds if that is exactly the same rule; whether it was."""
        indices = [var.index for var in variables]
        if not indices or any(index not in self._bounded for index in indices):
            return False
        if len(indices) == 1:
            (index,) = indices
            if not self._lower[index] <= rhs <= self._upper[index] or self._value.get(index, rhs) != rhs:
                return False
            self._value[index] = rhs
            return True
        if rhs != 0 or any(self._lower[i] != 0 or self._upper[i] < 0 or self._value.get(i, 0.0) != 0 for i in indices):
            return False
        self._value.update(dict.fromkeys(indices, 0.0))
        return True

    def apply(self, model: gp.Model) -> FixedBounds:
        """Set the planned bounds; returns what puts the old ones back."""
        fixed = [var for var in self._vars if var.index in self._value]
        saved = FixedBounds(
            variables=fixed,
            lower=[self._lower[var.index] for var in fixed],
            upper=[self._upper[var.index] for var in fixed],
        )
        if fixed:
            values = [self._value[var.index] for var in fixed]
            model.setAttr("LB", fixed, values)
            model.setAttr("UB", fixed, values)
        return saved


@dataclass(frozen=True)
class FixedBounds:
    """Variables INJ fixed through their bounds, with the bounds they had before."""

    variables: list[gp.Var]
    lower: list[float]
    upper: list[float]

    def restore(self, model: gp.Model) -> None:
        if self.variables:
            model.setAttr("LB", self.variables, self.lower)
            model.setAttr("UB", self.variables, self.upper)


@dataclass(frozen=True)
class Injection:
    """What ``encode_probe`` put into a model: rows (named with INJ's prefix) and bounds."""

    constrs: list[gp.Constr]
    bounds: FixedBounds


def encode_probe(
    model: gp.Model,
    xvar: RoutingVariable,
    instance: Instance,
    probe: Probe,
    encoding: Encoding,
    node_map: NodeMap,
    *,
    whole_plan: bool = False,
) -> Injection:
    """Add the probe's constraints to the model (paper, Method: constraint-injection encoding).

    A rule that fixes single variables is written as their bounds (see ``BoundPlan``), the others
    as rows; nothing is changed in the model before every rule has found its variables.

    With a 2-index ``x`` every encoding reduces to the 2D projection, since there is no vehicle
    to pin or bind. A cycle attributed to no vehicle is projected even under direct fixing.
    Under direct fixing, the routes of identical vehicles are pinned to *some* assignment of
    those vehicles rather than to the probe's own labels (see ``_assign_twins``).

    ``whole_plan`` (cost injection) also pins the depot arcs (``plan_depot_fixes``), except arcs
    the model's ``x`` does not have at all: a model that keeps its return legs in another
    variable says nothing about them through ``x``.
    """
    if len(node_map.index) != instance.num_nodes:
        raise ValueError(
            f"node map covers {len(node_map.index)} nodes, the instance has {instance.num_nodes}"
        )
    solution = probe.solution
    _check_probe_nodes(instance, solution)
    pin = xvar.dims == 3 and encoding is Encoding.DIRECT_3D
    fixes = probe_fixes(instance, solution, pin_vehicles=pin, whole_plan=whole_plan)
    if whole_plan:
        fixes = [f for f in fixes if f.tag not in PLAN_TAGS or xvar.arc_vars(node_map(f.u), node_map(f.v))]
    twins = interchangeable_vehicles(instance) if pin else {}
    pooled = [f for f in fixes if f.vehicle is not None and len(twins.get(f.vehicle, ())) > 1]
    single = [f for f in fixes if f.vehicle is None or len(twins.get(f.vehicle, ())) <= 1]
    model.update()
    rules = [(fix, _fix_vars(xvar, fix, node_map)) for fix in single]
    plan = BoundPlan(model, (variables for _, variables in rules))
    constrs = [
        model.addConstr(gp.quicksum(variables) == fix.rhs, name=fix.name)
        for fix, variables in rules
        if (variables or fix.rhs != 0) and not plan.take(variables, fix.rhs)
    ]
    if pooled:
        constrs += _assign_twins(model, xvar, pooled, twins, node_map)
    if xvar.dims == 3 and encoding is Encoding.BOUND_2D:
        constrs += _bind_vehicles(model, xvar, consecutive_arc_pairs(instance, solution), node_map)
    return Injection(constrs=constrs, bounds=plan.apply(model))


def interchangeable_vehicles(instance: Instance) -> dict[int, tuple[int, ...]]:
    """Vehicle index -> the indices of every vehicle identical to it (same depot, capacities and
    costs), itself included."""
    groups: dict[object, list[int]] = {}
    for index, vehicle in enumerate(instance.vehicles):
        groups.setdefault(vehicle, []).append(index)
    return {index: tuple(group) for group in groups.values() for index in group}


def _assign_twins(
    model: gp.Model, xvar: RoutingVariable, fixes: Sequence[ArcFix], twins: Mapping[int, tuple[int, ...]], m: NodeMap
) -> list[gp.Constr]:
    """Direct fixing up to a relabelling of identical vehicles.

    Which of two identical trucks drives a route is not part of the plan, and a correct model may
    say so: symmetry-breaking rules (twin k+1 used only if twin k is, loads ordered by index) admit
    only some labellings. Pinning each route to its probe label would then reject a feasible plan.
    Instead every probe vehicle ``a`` is matched to one of its twins by binaries ``z[a,k]`` (a
    one-to-one assignment), and each pinned arc is driven by whichever twin its vehicle got.
    The variables and rows carry INJ's prefix and go with the rest of the injection.
    """
    vehicle_of = {id(fix): fix.vehicle for fix in fixes if fix.vehicle is not None}
    labels = sorted(set(vehicle_of.values()))
    for label in labels:
        if label not in xvar.vehicles:
            raise VerificationFailure(
                ErrorKind.INDEX_MISMATCH,
                f"probe vehicle {label} is not among x's vehicle indices {_describe(xvar.vehicles)}",
            )
    slots = {label: [k for k in twins[label] if k in xvar.vehicles] for label in labels}
    z = {(a, k): model.addVar(vtype=GRB.BINARY, name=f"{INJ_PREFIX}twin[{a},{k}]") for a in labels for k in slots[a]}
    out = [
        model.addConstr(gp.quicksum(z[a, k] for k in slots[a]) == 1, name=f"{INJ_PREFIX}twin_one[{a}]")
        for a in labels
    ]
    for k in sorted({k for a in labels for k in slots[a]}):
        takers = [z[a, k] for a in labels if (a, k) in z]
        out.append(model.addConstr(gp.quicksum(takers) <= 1, name=f"{INJ_PREFIX}twin_slot[{k}]"))
    by_arc: dict[Arc, list[ArcFix]] = {}
    for fix in fixes:
        by_arc.setdefault((fix.u, fix.v), []).append(fix)
    for (u, v), on_arc in by_arc.items():
        for k in sorted({k for fix in on_arc for k in slots[vehicle_of[id(fix)]]}):
            var = xvar.var(m(u), m(v), k)
            driven = gp.quicksum(fix.rhs * z[vehicle_of[id(fix)], k] for fix in on_arc if (vehicle_of[id(fix)], k) in z)
            lhs = var if var is not None else gp.LinExpr()
            out.append(model.addConstr(lhs == driven, name=f"{INJ_PREFIX}twin_arc[{u},{v},{k}]"))
    return out


def _bind_vehicles(
    model: gp.Model, xvar: RoutingVariable, pairs: Sequence[tuple[Arc, Arc]], m: NodeMap
) -> list[gp.Constr]:
    """x[u,v,k] == x[v,w,k] for every k: one probe route may not be spread over vehicles."""
    out: list[gp.Constr] = []
    for (u, v), (v2, w) in pairs:
        for k in xvar.vehicles:
            a, b = xvar.var(m(u), m(v), k), xvar.var(m(v2), m(w), k)
            if a is None and b is None:
                continue
            lhs = gp.LinExpr() if a is None else gp.LinExpr(a)
            rhs = gp.LinExpr() if b is None else gp.LinExpr(b)
            out.append(model.addConstr(lhs == rhs, name=f"{INJ_PREFIX}bind[{u},{v},{w},{k}]"))
    return out


# ---- the operator ---------------------------------------------------------------------------


class InjResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    verdict: InjVerdict
    status: str
    """Gurobi status name of the (last) feasibility solve, ``not_solved`` if none ran."""
    seconds: float
    error: VerificationError | None = None
    objective: float | None = None
    """Cost injection only: the model's own objective at the pinned plan, when that solve ended
    optimal (``candidate.primary_objective``)."""
    objective_parts: tuple[ObjectivePart, ...] = ()
    """Cost injection only: that objective by variable group (see ``objective_parts``)."""


_NEUTRALISED = ("Cutoff", "BestObjStop", "BestBdStop")
"""Candidate settings that would stop or prune a feasibility query for objective reasons."""
_TOUCHED = ("TimeLimit", "SolutionLimit", "Threads", "DualReductions", "MIPGap", "MIPGapAbs", *_NEUTRALISED)


@dataclass
class _GuardedCallback:
    """Runs the candidate's callback; a crash stops the solve instead of being swallowed.

    gurobipy only prints exceptions raised inside callbacks and carries on, which would let a
    crashing lazy-cut callback accept every subtour.
    """

    inner: Callback
    failure: BaseException | None = None

    def __call__(self, model: gp.Model, where: int) -> None:
        if self.failure is not None:
            return
        try:
            self.inner(model, where)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - SystemExit and custom BaseExceptions too
            self.failure = exc
            model.terminate()


_OBJ_N_SCALARS = ("ObjNCon", "ObjNPriority", "ObjNWeight", "ObjNRelTol", "ObjNAbsTol", "ObjNName")


@dataclass(frozen=True)
class _ObjectiveN:
    """One objective of a multi-objective model: its coefficients and its settings."""

    coefficients: list[float]
    scalars: dict[str, float | int | str]

    @classmethod
    def capture(cls, model: gp.Model, number: int, variables: list[gp.Var]) -> _ObjectiveN:
        model.Params.ObjNumber = number
        coefficients = model.getAttr("ObjN", variables) if variables else []
        return cls(coefficients, {name: model.getAttr(name) for name in _OBJ_N_SCALARS})

    def restore(self, model: gp.Model, number: int, variables: list[gp.Var]) -> None:
        model.Params.ObjNumber = number
        if variables:
            model.setAttr("ObjN", variables, self.coefficients)
        for name, value in self.scalars.items():
            model.setAttr(name, value)


@dataclass(frozen=True)
class _SavedState:
    objective: gp.LinExpr | gp.QuadExpr
    sense: int
    params: dict[str, float | int]
    objectives: tuple[_ObjectiveN, ...] = ()
    """A multi-objective model's objectives (empty for a single one): INJ asks only whether the
    fixed routes are feasible, so they are set aside for the query and put back afterwards."""
    piecewise: tuple[tuple[gp.Var, tuple[tuple[float, float], ...]], ...] = ()
    """Piecewise-linear objective terms (``setPWLObj``; lateness priced on a start time, say):
    ``setObjective`` drops them all, so they are read here and set again after the query."""

    @classmethod
    def capture(cls, model: gp.Model) -> _SavedState:
        params = {name: model.getParamInfo(name)[2] for name in _TOUCHED}
        objectives: tuple[_ObjectiveN, ...] = ()
        if int(model.NumObj) > 1:
            variables = model.getVars()
            number = int(model.Params.ObjNumber)
            objectives = tuple(_ObjectiveN.capture(model, i, variables) for i in range(int(model.NumObj)))
            model.Params.ObjNumber = number
            return cls(objective=gp.LinExpr(), sense=int(model.ModelSense), params=params, objectives=objectives)
        model.update()
        piecewise: tuple[tuple[gp.Var, tuple[tuple[float, float], ...]], ...] = ()
        if int(model.NumPWLObjVars) > 0:
            piecewise = tuple(
                (var, tuple(points)) for var in model.getVars() if (points := model.getPWLObj(var))
            )
        return cls(objective=model.getObjective(), sense=int(model.ModelSense), params=params, piecewise=piecewise)

    def restore(self, model: gp.Model) -> None:
        if self.objectives:
            variables = model.getVars()
            model.NumObj = len(self.objectives)
            for number, objective in enumerate(self.objectives):
                objective.restore(model, number, variables)
            model.Params.ObjNumber = 0
            model.ModelSense = self.sense
        else:
            model.setObjective(self.objective, self.sense)
            for var, points in self.piecewise:
                model.setPWLObj(var, [x for x, _ in points], [y for _, y in points])
        for name, value in self.params.items():
            model.setParam(name, value)


def _remove_injected(model: gp.Model, num_vars: int) -> None:
    """Remove INJ's rows (by name) and its variables (appended after the model's ``num_vars``)."""
    model.update()
    constrs = model.getConstrs()
    if constrs:
        names = model.getAttr("ConstrName", constrs)
        ours = [c for c, n in zip(constrs, names, strict=True) if n.startswith(INJ_PREFIX)]
        if ours:
            model.remove(ours)
    if model.NumVars > num_vars:
        model.remove(model.getVars()[num_vars:])


def _error(kind: ErrorKind, detail: str, status: str, started: float) -> InjResult:
    return InjResult(
        verdict=InjVerdict.ERROR,
        status=status,
        seconds=time.perf_counter() - started,
        error=VerificationError(kind=kind, detail=detail),
    )


def inject(
    built: BuiltCandidate | gp.Model,
    instance: Instance,
    probe: Probe,
    *,
    xvar: RoutingVariable | None = None,
    node_map: NodeMap | None = None,
    callback: Callback | None = None,
    encoding: Encoding | None = None,
    time_limit: float = 60.0,
    threads: int | None = 1,
    isolate: Isolate = run_here,
    price: bool = False,
) -> InjResult:
    """INJ(C, I, s): is the probe feasible under the candidate's model?

    With ``price`` (cost injection, feasible probes) the whole plan is pinned, depot arcs
    included, the model keeps its own objective (all of them, for a multi-objective model) and is
    solved to a proven optimum (``MIPGap`` 0, no solution limit): the result carries that
    objective where the solve ended optimal. A feasible answer is INJ's answer too, since the
    query pins everything the feasibility query pins; any other answer is the caller's to redo as
    a plain feasibility query.

    ``encoding`` defaults to the paper's for the probe's label (``choose_encoding``); the
    verifier's control query asks the feasible probe under the violating probes' encoding.

    ``callback`` defaults to the one captured while the candidate built its model; pass the bare
    ``gp.Model`` to judge without any callback. The solve, where the callback runs, goes through
    ``isolate``. The model is restored (constraints, objective,
    parameters) and reset before returning, so read its own outcome before injecting.
    Unresolved statuses become ``ERROR``, never a pass.
    """
    model = built.model if isinstance(built, BuiltCandidate) else built
    if callback is None and isinstance(built, BuiltCandidate):
        callback = built.callback
    started = time.perf_counter()
    try:
        xvar = xvar or find_routing_variable(model, instance.num_nodes)
        node_map = node_map or NodeMap.identity(instance.num_nodes)
    except VerificationFailure as failure:
        return _error(failure.error.kind, failure.error.detail, "not_solved", started)
    if not _alive(model):
        return _error(ErrorKind.NOT_A_MODEL, _FREED, "not_solved", started)
    guarded = _GuardedCallback(callback) if callback is not None else None
    try:
        saved = _SavedState.capture(model)
    except (gp.GurobiError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        return _error(ErrorKind.NOT_A_MODEL, f"the model's settings cannot be read ({exc})", "not_solved", started)
    model.update()
    num_vars = int(model.NumVars)
    injection: Injection | None = None
    try:
        for name in _NEUTRALISED:
            model.setParam(name, model.getParamInfo(name)[5])
        model.Params.TimeLimit = time_limit
        if price:
            model.Params.SolutionLimit = model.getParamInfo("SolutionLimit")[5]
            model.Params.MIPGap = 0.0
            model.Params.MIPGapAbs = 0.0
        else:
            if saved.objectives:
                model.NumObj = 0
            model.setObjective(gp.LinExpr(0.0))
            model.Params.SolutionLimit = 1
        apply_caps(model, time_limit=None, threads=threads)
        injection = encode_probe(
            model, xvar, instance, probe, encoding or choose_encoding(instance.spec, probe.label), node_map,
            whole_plan=price,
        )
        return isolate(_solve_priced if price else _solve, model, guarded, started)
    except VerificationFailure as failure:
        return _error(failure.error.kind, failure.error.detail, "not_solved", started)
    except gp.GurobiError as exc:
        kind = ErrorKind.SIZE_LIMITED_LICENCE if exc.errno == SIZE_LIMIT_ERRNO else ErrorKind.SOLVER_STATUS
        return _error(kind, f"Gurobi error {exc.errno}: {exc}", "error", started)
    finally:
        if not _alive(model):  # freed by the candidate's callback mid-query: nothing left to restore
            return _error(ErrorKind.NOT_A_MODEL, _FREED, "error", started)  # noqa: B012
        _remove_injected(model, num_vars)
        if injection is not None:
            injection.bounds.restore(model)
        saved.restore(model)
        model.reset()
        model.update()


_FREED = "the candidate's model was freed (dispose()) before or during the feasibility query"


def _alive(model: gp.Model) -> bool:
    try:
        model.getAttr("NumVars")
    except gp.GurobiError:
        return False
    return True


def _solve(model: gp.Model, guarded: _GuardedCallback | None, started: float) -> InjResult:
    model.reset()
    model.optimize(guarded)
    if model.Status == GRB.INF_OR_UNBD and (guarded is None or guarded.failure is None):
        model.Params.DualReductions = 0
        model.reset()
        model.optimize(guarded)
    status = status_name(model.Status)
    if guarded is not None and guarded.failure is not None:
        exc, guarded.failure = guarded.failure, None
        # Only text leaves: the candidate's exception object ends here, with its finalizer (if
        # any) run in the isolated call, not wherever the verifier would drop it later.
        detail = f"the candidate's callback raised {type(exc).__name__}: {exc}"
        del exc
        return _error(ErrorKind.BUILD_ERROR, detail, status, started)
    verdict = _verdict(model)
    if verdict is None:
        kind = ErrorKind.TIMEOUT if model.Status == GRB.TIME_LIMIT else ErrorKind.SOLVER_STATUS
        return _error(
            kind, f"the feasibility query ended with status {status} and no solution", status, started
        )
    return InjResult(verdict=verdict, status=status, seconds=time.perf_counter() - started)


def _solve_priced(model: gp.Model, guarded: _GuardedCallback | None, started: float) -> InjResult:
    """The cost-injection query: INJ's answer, and the model's objective where it is proven optimal."""
    result = _solve(model, guarded, started)
    if result.verdict is not InjVerdict.FEASIBLE or model.Status != GRB.OPTIMAL:
        return result
    return result.model_copy(update={"objective": primary_objective(model), "objective_parts": objective_parts(model)})


def objective_parts(model: gp.Model) -> tuple[ObjectivePart, ...]:
    """A solved single-objective model's objective by variable group: each linear term's value
    summed by its variable's name (the letters before any index: ``x[1,2]``, ``x_1_2`` -> ``x``),
    the constant, and what the linear terms leave unexplained (quadratic or piecewise-linear
    parts) as ``other``. Empty for a multi-objective model."""
    if int(model.NumObj) > 1:
        return ()
    objective = model.getObjective()
    linear = objective.getLinExpr() if isinstance(objective, gp.QuadExpr) else objective
    variables = [linear.getVar(i) for i in range(linear.size())]
    if not variables:
        parts: dict[str, float] = {}
    else:
        values = model.getAttr("X", variables)
        names = model.getAttr("VarName", variables)
        parts = {}
        for i, (name, value) in enumerate(zip(names, values, strict=True)):
            group = re.match(r"[A-Za-z_]*[A-Za-z]", name)
            key = group.group(0) if group else "unnamed"
            parts[key] = parts.get(key, 0.0) + linear.getCoeff(i) * value
    constant = float(linear.getConstant())
    if constant:
        parts["constant"] = parts.get("constant", 0.0) + constant
    rest = float(model.ObjVal) - sum(parts.values())
    if abs(rest) > 1e-9:
        parts["other"] = rest
    return tuple(ObjectivePart(name=name, value=value) for name, value in parts.items())


def _verdict(model: gp.Model) -> InjVerdict | None:
    """Feasible when a solution exists (limits reached after finding one are fine); infeasible
    only when proven; anything else (no solution within the limits, numeric trouble) is None."""
    status = model.Status
    if status == GRB.INFEASIBLE:
        return InjVerdict.INFEASIBLE
    if model.SolCount > 0 and status not in (GRB.NUMERIC, GRB.UNBOUNDED, GRB.INF_OR_UNBD):
        return InjVerdict.FEASIBLE
    return None

"""Mutation harness: wrong-on-purpose versions of the gold script, and which verifier catches them.

Mutants are made from the gold script's labelled modules, so each one differs from the gold in one
constraint family: the family is *omitted*, *relaxed* the way LLM scripts typically get it wrong
(equality written as inequality, one global capacity instead of one per vehicle, a distance limit
that forgets the return leg, ...), or a *spurious* constraint is added. Each mutant is verified
against every sample of its instance (the base sample and each attacked copy); it is killed by DIFF
when some sample's optimum differs, and killed by the dual verifier when DIFF or any probe fails.
The gap between the two kill rates is the paper's blind spot of objective equivalence.

A rule means the same mistake whichever formulation the gold script has (vehicle-indexed
``x[i, j, k]``, or two-index ``x[i, j]`` for identical vehicles): where the two scripts' texts
differ, it carries a rewrite for each, and both mutants have the same optimum. Omissions delete the
module of each script; the two-index loads grow along every arc, so there a subtour omission is an
equivalent mutant (``loads_forbid_cycles``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from vrpcoder.attacks.boundary import depot_never_closes_first, no_waiting_possible
from vrpcoder.attacks.cycles import cycles_impossible
from vrpcoder.attacks.derived import (
    compartment_violation_impossible,
    fewest_vehicles_plan,
    rule_violation_impossible,
    service_lateness_impossible,
    violation_impossible,
    waiting_lateness_impossible,
)
from vrpcoder.candidate import build_candidate
from vrpcoder.errors import VerificationFailure
from vrpcoder.families import Family, Rule
from vrpcoder.gold import JOINT_MODULES, extract_solution, is_two_index, module_names, remove_module
from vrpcoder.gold.markers import close_marker, open_marker
from vrpcoder.gold.render import choose_features
from vrpcoder.instances import Instance, Vehicle
from vrpcoder.samples import Sample
from vrpcoder.solutions import Solution
from vrpcoder.variants import ATTACKERS, Module, get_variant
from vrpcoder.verification import Verdict, VerifyConfig, verify


class MutantKind(StrEnum):
    OMIT = "omit"
    RELAX = "relax"
    SPURIOUS = "spurious"
    COST = "cost"
    """The objective prices plans wrongly (no rule of the feasible set changes, except where
    earliness is priced instead of forbidden); only cost injection sees it where the optimum does
    not move."""


@dataclass(frozen=True, slots=True)
class Mutant:
    name: str
    family: Family | None
    kind: MutantKind
    description: str
    code: str


Transform = Callable[[str, Sample], str | None]
"""Script and sample -> mutated script, or None when the rule does not apply to this script."""


@dataclass(frozen=True, slots=True)
class MutationRule:
    name: str
    family: Family | None
    """None for a cost mutant: objective terms are not constraint families."""
    kind: MutantKind
    description: str
    apply: Transform
    requires: frozenset[Module] = frozenset()
    """Modules the variant must have for the rule to mean anything (ending at another depot needs
    several depots, a paid return an open route)."""


def _module_span(script: str, name: str) -> tuple[int, int] | None:
    start = script.find(open_marker(name))
    end = script.find(close_marker(name))
    return None if start < 0 or end < start else (start, end)


def _rewrite_in_module(name: str, *edits: tuple[str, str]) -> Transform:
    """Apply text edits inside module ``name`` only (None when the module or any text is missing)."""

    def apply(script: str, _sample: Sample) -> str | None:
        span = _module_span(script, name)
        if span is None:
            return None
        body = script[span[0] : span[1]]
        for old, new in edits:
            if old not in body:
                return None
            body = body.replace(old, new)
        return script[: span[0]] + body + script[span[1] :]

    return apply


def _replace_module(name: str, required: str, lines: Sequence[str]) -> Transform:
    """Replace the statements of module ``name`` by ``lines`` (markers kept, at the module's
    indentation), where the module holds the text ``required`` (None otherwise)."""

    def apply(script: str, _sample: Sample) -> str | None:
        span = _module_span(script, name)
        if span is None or required not in script[span[0] : span[1]]:
            return None
        line_start = script.rfind("\n", 0, span[0]) + 1
        indent = script[line_start : span[0]]
        body = "".join(f"{indent}{line}\n" for line in lines)
        return script[: span[0]] + open_marker(name) + "\n" + body + indent + script[span[1] :]

    return apply


def _either(*transforms: Transform) -> Transform:
    """The first of ``transforms`` that applies. A rule carries one rewrite per gold formulation
    (vehicle-indexed ``x[i, j, k]`` and two-index ``x[i, j]``) where their modules' texts differ,
    so that it means the same mistake in both; no text of one occurs in the other's script."""

    def apply(script: str, sample: Sample) -> str | None:
        for transform in transforms:
            mutated = transform(script, sample)
            if mutated is not None:
                return mutated
        return None

    return apply


def _two_index(transform: Transform) -> Transform:
    """``transform`` on two-index gold scripts only (None on vehicle-indexed ones)."""

    def apply(script: str, sample: Sample) -> str | None:
        return transform(script, sample) if is_two_index(script) else None

    return apply


def _insert_before_optimize(lines: Sequence[str]) -> Callable[[str], str]:
    def insert(script: str) -> str:
        found = re.search(r"^(?P<indent>[ \t]+)m\.optimize\(", script, flags=re.MULTILINE)
        if found is None:
            raise ValueError("the gold script has no m.optimize() call")
        indent = found["indent"]
        block = "".join(f"{indent}{line}\n" for line in lines)
        return script[: found.start()] + block + script[found.start() :]

    return insert


def _without_cuts(transform: Transform) -> Transform:
    """Also drop the gold's joint modules (cuts valid only while every rule holds together)."""

    def apply(script: str, sample: Sample) -> str | None:
        mutated = transform(script, sample)
        if mutated is None:
            return None
        for name in JOINT_MODULES:
            if name in module_names(mutated):
                mutated = remove_module(mutated, name)
        return mutated

    return apply


def _omit(family: Family) -> MutationRule:
    def apply(script: str, _sample: Sample) -> str | None:
        return remove_module(script, family.value) if family.value in module_names(script) else None

    return MutationRule(
        f"omit:{family.value}", family, MutantKind.OMIT, f"the {family.value} module is deleted", _without_cuts(apply)
    )


_BOTH_PARTS = '((LINEHAUL, delivered, "capacity_linehaul"), (BACKHAUL, collected, "capacity_backhaul"))'
"""The two-index backhaul capacity module's loop over the linehaul and the backhaul part of a route."""

RELAXATIONS: tuple[MutationRule, ...] = (
    MutationRule(
        "relax:coverage_leq",
        Family.COVERAGE,
        MutantKind.RELAX,
        "each customer visited at most once instead of exactly once",
        _without_cuts(_rewrite_in_module("coverage", ('== 1, name=f"cover[', '<= 1, name=f"cover['))),
    ),
    MutationRule(
        "relax:capacity_global",
        Family.CAPACITY,
        MutantKind.RELAX,
        "one capacity for the whole fleet instead of one per vehicle",
        _without_cuts(
            _either(
                _rewrite_in_module(
                    "capacity",
                    (
                        'm.addConstr(load <= CAPACITY[k], name=f"capacity[{k}]")',
                        'm.addConstr(gp.quicksum(DEMAND[i] * visit[i, h] for i in CUSTOMERS for h in range(K)) <= sum(CAPACITY), name=f"capacity[{k}]")',
                    ),
                ),
                # two-index: the loads along each route give way to one bound on all goods
                _two_index(
                    _replace_module(
                        "capacity",
                        "delivered[j].LB, delivered[j].UB = DEMAND[j], CAPACITY[0]",
                        [
                            "# All goods delivered fit the capacity of the whole fleet.",
                            'm.addConstr(gp.quicksum(DEMAND[i] * x.sum("*", i) for i in CUSTOMERS) <= sum(CAPACITY), name="capacity")',
                        ],
                    )
                ),
            )
        ),
    ),
    MutationRule(
        "relax:capacity_linehaul_only",
        Family.CAPACITY,
        MutantKind.RELAX,
        "backhaul loads not limited (only deliveries checked against capacity)",
        _without_cuts(
            _either(
                _rewrite_in_module("capacity", ('m.addConstr(collected <= CAPACITY[k], name=f"capacity_backhaul[{k}]")', "pass")),
                _two_index(_rewrite_in_module("capacity", (_BOTH_PARTS, '((LINEHAUL, delivered, "capacity_linehaul"),)'))),
            )
        ),
    ),
    MutationRule(
        "relax:distance_no_return_leg",
        Family.DISTANCE,
        MutantKind.RELAX,
        "route length counted without the return leg to the depot",
        _without_cuts(_rewrite_in_module("distance", ("if LEG[i][j] > 0)", "if LEG[i][j] > 0 and j not in DEPOTS)"))),
    ),
    MutationRule(
        "relax:time_window_no_close",
        Family.TIME_WINDOW,
        MutantKind.RELAX,
        "service may start after the window closes (only the opening time is kept)",
        _without_cuts(
            _rewrite_in_module(
                "time_window",
                ("start[j].LB, start[j].UB = WINDOW[j]", "start[j].LB = WINDOW[j][0]"),
                # the gold's big-Ms are derived from window closes and would still enforce them
                ("big_m = max(0.0, ", "big_m = 1e4 + 0.0 * max(0.0, "),
            )
        ),
    ),
    MutationRule(
        "relax:service_time_omitted",
        Family.TIME_WINDOW,
        MutantKind.RELAX,
        "service times left out of the time propagation (travel time only between starts)",
        _without_cuts(
            _rewrite_in_module(
                "time_window",
                ("start[i] + SERVICE[i] + DIST[i][j] - big_m", "start[i] + DIST[i][j] - big_m"),
            )
        ),
    ),
    MutationRule(
        "relax:capacity_backhaul_only",
        Family.CAPACITY,
        MutantKind.RELAX,
        "only the pickups (backhaul loads) limited; deliveries never checked against capacity",
        _without_cuts(
            _either(
                _rewrite_in_module("capacity", ('m.addConstr(delivered <= CAPACITY[k], name=f"capacity_linehaul[{k}]")', "pass")),
                _two_index(_rewrite_in_module("capacity", (_BOTH_PARTS, '((BACKHAUL, collected, "capacity_backhaul"),)'))),
            )
        ),
    ),
    MutationRule(
        "relax:route_end_any_depot",
        Family.ROUTE_STRUCTURE,
        MutantKind.RELAX,
        "a vehicle leaves its own depot but may end its route at any depot",
        _without_cuts(
            _either(
                _rewrite_in_module(
                    "route_structure",
                    (
                        "foreign = any(node in DEPOTS and node != VEHICLE_DEPOT[k] for node in (i, j))",
                        "foreign = i in DEPOTS and i != VEHICLE_DEPOT[k]",
                    ),
                    ('for i in [VEHICLE_DEPOT[k], *CUSTOMERS]:', "for i in CUSTOMERS:"),
                ),
                # two-index: depots need not balance their routes, and a customer's depot number is
                # tied to the depot its route leaves, not to the one it returns to
                _two_index(
                    _rewrite_in_module(
                        "route_structure",
                        ("for i in range(N):", "for i in CUSTOMERS:"),
                        ("for i, j in arcs:", "for i, j in [(i, j) for i, j in arcs if j not in DEPOTS]:"),
                    )
                ),
            )
        ),
        frozenset({Module.MD}),
    ),
    MutationRule(
        "relax:open_route_pays_return",
        Family.ROUTE_STRUCTURE,
        MutantKind.RELAX,
        "open routes still pay the return leg to the depot",
        _without_cuts(
            _either(
                _rewrite_in_module(
                    "objective",
                    ("COST_PER_DISTANCE[k] * LEG[i][j] * x[i, j, k]", "COST_PER_DISTANCE[k] * DIST[i][j] * x[i, j, k]"),
                    ("if LEG[i][j] > 0\n", "if DIST[i][j] > 0\n"),
                ),
                _two_index(
                    _rewrite_in_module(
                        "objective",
                        ("COST_PER_DISTANCE[0] * LEG[i][j] * x[i, j]", "COST_PER_DISTANCE[0] * DIST[i][j] * x[i, j]"),
                        ("if LEG[i][j] > 0)", "if DIST[i][j] > 0)"),
                    )
                ),
            )
        ),
        frozenset({Module.OPEN}),
    ),
    MutationRule(
        "relax:compartment_pooled",
        Family.COMPARTMENT,
        MutantKind.RELAX,
        "compartments pooled into one shared hold",
        _without_cuts(
            _rewrite_in_module(
                "compartment",
                (
                    'm.addConstr(load <= room, name=f"compartment[{k},{c}]")',
                    'm.addConstr(gp.quicksum(sum(COMPARTMENT_DEMAND[i]) * visit[i, k] for i in CUSTOMERS) <= sum(COMPARTMENT_CAPACITY[k]), name=f"compartment[{k},{c}]")',
                ),
            )
        ),
    ),
)


def _used_arcs(solution: Solution, customers: set[int]) -> set[tuple[int, int]]:
    arcs = {arc for route in solution.routes for arc in route.arcs}
    return {(i, j) for i, j in arcs if i in customers and j in customers}


def _spurious_arc_ban(script: str, sample: Sample) -> str | None:
    """Forbid a customer-to-customer arc s+ uses but the gold optimum does not."""
    try:
        built = build_candidate(sample.gold_code)
    except VerificationFailure:
        return None
    if built.model.SolCount == 0:
        return None
    optimum = extract_solution(built.model, sample.instance)
    customers = set(sample.instance.customer_nodes)
    candidates = sorted(_used_arcs(sample.probes[0].solution, customers) - _used_arcs(optimum, customers))
    if not candidates:
        return None
    i, j = candidates[0]
    if is_two_index(script):
        return _insert_before_optimize([f'm.addConstr(x[{i}, {j}] == 0, name="spurious_arc")'])(script)
    return _insert_before_optimize([f'm.addConstr(x.sum({i}, {j}, "*") == 0, name="spurious_arc")'])(script)


def _spurious_every_vehicle(script: str, _sample: Sample) -> str | None:
    if is_two_index(script):
        # two-index: every depot sends out as many routes as it has vehicles
        return _insert_before_optimize(
            ["for d in DEPOTS:", '    m.addConstr(x.sum(d, "*") == FLEET[d], name=f"spurious_use[{d}]")']
        )(script)
    return _insert_before_optimize(
        ['for k in range(K):', '    m.addConstr(used[k] == 1, name=f"spurious_use[{k}]")']
    )(script)


SPURIOUS: tuple[MutationRule, ...] = (
    MutationRule(
        "spurious:windows_tightened",
        Family.TIME_WINDOW,
        MutantKind.SPURIOUS,
        "service must end, not start, before the window closes",
        _without_cuts(
            _rewrite_in_module(
                "time_window",
                ("start[j].LB, start[j].UB = WINDOW[j]", "start[j].LB, start[j].UB = WINDOW[j][0], WINDOW[j][1] - SERVICE[j]"),
            )
        ),
        frozenset({Module.HTW}),
    ),
    MutationRule(
        "spurious:capacity_reduced",
        Family.CAPACITY,
        MutantKind.SPURIOUS,
        "every vehicle may carry only 90 % of its capacity",
        _without_cuts(
            _either(
                _rewrite_in_module("capacity", ("<= CAPACITY[k]", "<= 0.9 * CAPACITY[k]")),
                # two-index: the bound on the load carried along each route (linehaul and backhaul part)
                _two_index(_rewrite_in_module("capacity", ("DEMAND[j], CAPACITY[0]", "DEMAND[j], 0.9 * CAPACITY[0]"))),
                _two_index(_rewrite_in_module("capacity", ("gain, CAPACITY[0]", "gain, 0.9 * CAPACITY[0]"))),
            )
        ),
    ),
    MutationRule(
        "spurious:arc_ban",
        Family.ROUTE_STRUCTURE,
        MutantKind.SPURIOUS,
        "an arc that the feasible probe uses (and the optimum does not) is forbidden",
        _spurious_arc_ban,
    ),
    MutationRule(
        "spurious:every_vehicle_used",
        Family.ROUTE_STRUCTURE,
        MutantKind.SPURIOUS,
        "every vehicle must leave its depot",
        _spurious_every_vehicle,
    ),
)


# ---- one rule of a compound family (issue 28.2) ------------------------------------------------


def _vehicle_indexed(transform: Transform) -> Transform:
    """``transform`` on vehicle-indexed gold scripts only (None on two-index ones)."""

    def apply(script: str, sample: Sample) -> str | None:
        return None if is_two_index(script) else transform(script, sample)

    return apply


def _chain(*transforms: Transform) -> Transform:
    """Every one of ``transforms`` in turn (None when any does not apply)."""

    def apply(script: str, sample: Sample) -> str | None:
        for transform in transforms:
            mutated = transform(script, sample)
            if mutated is None:
                return None
            script = mutated
        return script

    return apply


def _drop_module(name: str) -> Transform:
    def apply(script: str, _sample: Sample) -> str | None:
        return remove_module(script, name) if name in module_names(script) else None

    return apply


_ORDER_BAN = (
    """    for i in BACKHAUL:
        for j in LINEHAUL:
            for k in range(K):
                x[i, j, k].UB = 0.0
""",
    """    for i in BACKHAUL:
        for j in LINEHAUL:
            x[i, j].UB = 0.0
""",
)
"""The backhaul module's ban of backhaul -> linehaul arcs (vehicle-indexed, two-index)."""
_START_BAN = (
    """    for d in DEPOTS:
        for j in BACKHAUL:
            for k in range(K):
                x[d, j, k].UB = 0.0
""",
    """    for d in DEPOTS:
        for j in BACKHAUL:
            x[d, j].UB = 0.0
""",
)
"""The backhaul module's ban of depot -> backhaul arcs."""


def _deleted(name: str, texts: Sequence[str]) -> Transform:
    """The first of ``texts`` found in module ``name``, deleted (one per gold formulation)."""
    return _either(*(_rewrite_in_module(name, (text, "")) for text in texts))


_FLEET_BOUND = 'm.addConstr(x.sum(d, "*") <= FLEET[d], name=f"fleet[{d}]")'
"""The two-index route structure's bound on a depot's routes."""
_ONE_DEPARTURE = 'm.addConstr(used[k] <= 1, name=f"one_route[{k}]")'
"""The vehicle-indexed route structure's bound on a vehicle's departures."""
_LOAD_START = 'm.addConstr(carried[j] >= change[j] - (change[j] - lowest) * (1 - from_depot), name=f"load_start[{j}]")'
_LOAD_STEP = 'm.addConstr(carried[j] >= carried[i] + change[j] - big_m * (1 - arc[i, j]), name=f"load[{i},{j}]")'
_LOAD_EXACT = _rewrite_in_module(
    "capacity",
    ("lowest = -sum(qty for _, _, qty in PAIRS)", "lowest = 0.0"),
    (
        _LOAD_START,
        _LOAD_START
        + '; m.addConstr(carried[j] <= change[j] + (top - change[j]) * (1 - from_depot), name=f"load_start_at_most[{j}]")',
    ),
    (
        _LOAD_STEP,
        _LOAD_STEP
        + "; m.addConstr(carried[j] <= carried[i] + change[j] + (2 * top + abs(change[j])) * (1 - arc[i, j]),"
        + ' name=f"load_at_most[{i},{j}]")',
    ),
)
"""The pickup-and-delivery load made exact and kept within [0, Q]: a model that tracks what is on
board at each customer (the gold bounds it from below only and lets it go negative, leaving the
order of a pair to the precedence module)."""


def _compartment_dropped(compartment: int) -> MutationRule:
    return MutationRule(
        f"omit:compartment_load[{compartment}]",
        Family.COMPARTMENT,
        MutantKind.OMIT,
        f"the limit of compartment {compartment} left out (the other compartments keep theirs)",
        _without_cuts(
            _rewrite_in_module(
                "compartment",
                (
                    'm.addConstr(load <= room, name=f"compartment[{k},{c}]")',
                    f'm.addConstr(load <= room, name=f"compartment[{{k}},{{c}}]") if c != {compartment} else None',
                ),
            )
        ),
        frozenset({Module.MC}),
    )


_MIDDLE = "min(CAPACITY) < CAPACITY[k] < max(CAPACITY)"
"""The gold script's test for a vehicle of a middle capacity (a fleet of three or more capacities)."""

SUBRULES: tuple[MutationRule, ...] = (
    MutationRule(
        "omit:linehaul_first",
        Family.BACKHAUL,
        MutantKind.OMIT,
        "a linehaul may follow a backhaul (routes still start with a linehaul)",
        _without_cuts(_deleted("backhaul", _ORDER_BAN)),
    ),
    MutationRule(
        "omit:linehaul_start",
        Family.BACKHAUL,
        MutantKind.OMIT,
        "a route may start with a backhaul, so routes of backhauls only are allowed (linehauls still come first)",
        _without_cuts(_deleted("backhaul", _START_BAN)),
    ),
    MutationRule(
        "omit:fleet_size",
        Family.ROUTE_STRUCTURE,
        MutantKind.OMIT,
        "a depot may send out more routes than it has vehicles",
        _without_cuts(_two_index(_rewrite_in_module("route_structure", (_FLEET_BOUND, "pass")))),
    ),
    MutationRule(
        "omit:one_route",
        Family.ROUTE_STRUCTURE,
        MutantKind.OMIT,
        "a vehicle may leave its depot more than once (TSP: several tours through the start city)",
        _without_cuts(_vehicle_indexed(_rewrite_in_module("route_structure", (_ONE_DEPARTURE, "pass")))),
    ),
    MutationRule(
        "relax:route_start_any_depot",
        Family.ROUTE_STRUCTURE,
        MutantKind.RELAX,
        "a vehicle may start its route at any depot (and return there): the depots' fleets are pooled",
        _without_cuts(
            _either(
                _chain(
                    _rewrite_in_module(
                        "route_structure",
                        ("foreign = any(node in DEPOTS and node != VEHICLE_DEPOT[k] for node in (i, j))", "foreign = False"),
                        (
                            _ONE_DEPARTURE,
                            'm.addConstr(gp.quicksum(x.sum(d, "*", k) for d in DEPOTS) <= 1, name=f"one_route[{k}]")',
                        ),
                        ("for i in [VEHICLE_DEPOT[k], *CUSTOMERS]:", "for i in [*DEPOTS, *CUSTOMERS]:"),
                    ),
                    # a vehicle pays its fixed cost whichever depot it leaves
                    _rewrite_in_module(
                        "variables",
                        (
                            'used = {k: x.sum(VEHICLE_DEPOT[k], "*", k) for k in range(K)}',
                            'used = {k: gp.quicksum(x.sum(d, "*", k) for d in DEPOTS) for k in range(K)}',
                        ),
                    ),
                ),
                _two_index(
                    _rewrite_in_module(
                        "route_structure",
                        (
                            _FLEET_BOUND,
                            'm.addConstr(gp.quicksum(x.sum(e, "*") for e in DEPOTS) <= K, name=f"fleet[{d}]")',
                        ),
                    )
                ),
            )
        ),
        frozenset({Module.MD}),
    ),
    MutationRule(
        "omit:depot_close",
        Family.TIME_WINDOW,
        MutantKind.OMIT,
        "routes may return after the depot closes (customers' windows kept)",
        _without_cuts(
            _rewrite_in_module(
                "time_window",
                # the return rows are never added (the rest of the loop body is left unreached)
                ("back = WINDOW[i][1] + SERVICE[i] + DIST[i][d]", "continue"),
            )
        ),
        frozenset({Module.HTW}),
    ),
    MutationRule(
        "omit:window_open",
        Family.TIME_WINDOW,
        MutantKind.OMIT,
        "service may start before the window opens (no waiting)",
        _without_cuts(
            _rewrite_in_module(
                "time_window",
                ("start[j].LB, start[j].UB = WINDOW[j]", "start[j].UB = WINDOW[j][1]"),
                (
                    "earliest = {j: max(WINDOW[j][0], min(WINDOW[d][0] + shortest[d][j] for d in DEPOTS)) for j in CUSTOMERS}",
                    "earliest = {j: min(WINDOW[d][0] + shortest[d][j] for d in DEPOTS) for j in CUSTOMERS}",
                ),
            )
        ),
        frozenset({Module.HTW}),
    ),
    _compartment_dropped(0),
    _compartment_dropped(1),
    MutationRule(
        "relax:capacity_largest_for_all",
        Family.CAPACITY,
        MutantKind.RELAX,
        "every vehicle gets the largest vehicle's capacity",
        _without_cuts(
            _rewrite_in_module(
                "capacity",
                (
                    'm.addConstr(load <= CAPACITY[k], name=f"capacity[{k}]")',
                    'm.addConstr(load <= max(CAPACITY), name=f"capacity[{k}]")',
                ),
            )
        ),
        frozenset({Module.HF}),
    ),
    MutationRule(
        "relax:compartment_largest_for_all",
        Family.COMPARTMENT,
        MutantKind.RELAX,
        "every vehicle's compartment gets the largest vehicle's capacity for it",
        _without_cuts(
            _rewrite_in_module(
                "compartment",
                (
                    'm.addConstr(load <= room, name=f"compartment[{k},{c}]")',
                    'm.addConstr(load <= max(rooms[c] for rooms in COMPARTMENT_CAPACITY), name=f"compartment[{k},{c}]")',
                ),
            )
        ),
        frozenset({Module.HF, Module.MC}),
    ),
    MutationRule(
        "relax:capacity_middle_as_largest",
        Family.CAPACITY,
        MutantKind.RELAX,
        "a vehicle of a middle capacity (neither the smallest nor the largest) gets the largest capacity",
        _without_cuts(
            _rewrite_in_module(
                "capacity",
                (
                    'm.addConstr(load <= CAPACITY[k], name=f"capacity[{k}]")',
                    f'm.addConstr(load <= ({_MIDDLE} and max(CAPACITY) or CAPACITY[k]), name=f"capacity[{{k}}]")',
                ),
            )
        ),
        frozenset({Module.HF}),
    ),
    MutationRule(
        "relax:compartment_middle_as_largest",
        Family.COMPARTMENT,
        MutantKind.RELAX,
        "a vehicle of a middle capacity gets, per compartment, the largest capacity any vehicle has there",
        _without_cuts(
            _rewrite_in_module(
                "compartment",
                (
                    'm.addConstr(load <= room, name=f"compartment[{k},{c}]")',
                    f'm.addConstr(load <= ({_MIDDLE} and max(rooms[c] for rooms in COMPARTMENT_CAPACITY) or room), name=f"compartment[{{k}},{{c}}]")',
                ),
            )
        ),
        frozenset({Module.HF, Module.MC}),
    ),
    MutationRule(
        "relax:distance_fleet_total",
        Family.DISTANCE,
        MutantKind.RELAX,
        "the fleet's total distance is limited (by the limit times the fleet size) instead of each route's",
        _without_cuts(
            _replace_module(
                "distance",
                'm.addConstr(length <= MAX_ROUTE_DISTANCE, name=f"max_distance[{k}]")',
                [
                    "# The fleet drives at most MAX_ROUTE_DISTANCE per vehicle, in total.",
                    "length = gp.quicksum(",
                    "    LEG[i][j] * x[i, j, k] for i in range(N) for j in range(N) for k in range(K) if LEG[i][j] > 0",
                    ")",
                    'm.addConstr(length <= K * MAX_ROUTE_DISTANCE, name="max_distance")',
                ],
            )
        ),
    ),
    MutationRule(
        "relax:precedence_by_load",
        Family.PRECEDENCE,
        MutantKind.RELAX,
        "no precedence rule; the on-board load is tracked exactly and kept within [0, Q] instead",
        _without_cuts(_chain(_drop_module(Family.PRECEDENCE.value), _LOAD_EXACT)),
    ),
    MutationRule(
        "relax:pairing_by_load",
        Family.PAIRING,
        MutantKind.RELAX,
        "no pairing rule; the on-board load is tracked exactly and kept within [0, Q] instead",
        _without_cuts(_chain(_drop_module(Family.PAIRING.value), _LOAD_EXACT)),
    ),
)
"""Rules that take out (or replace) one rule of a compound family and keep its others; each is
caught by the probe that breaks that rule alone (``AttackerInfo.rules``)."""

ONE_FORMULATION: dict[str, bool] = {"omit:fleet_size": True, "omit:one_route": False}
"""Rules of a part of route structure that only one gold formulation states (value: whether it is
the two-index one). The two-index model bounds each depot's routes by its fleet and has no vehicle
to give a second route; the vehicle-indexed one has no fleet bound but the vehicle index itself,
and bounds each vehicle's departures. Both mutants are caught by the ``extra_route`` probe."""


# ---- cost mutants: the objective prices plans wrongly ---------------------------------------------
#
# Each rewrites one pricing term of the gold script the way generated code gets it wrong. Where the
# optimum does not move (no plan the optimum would use is late, the optimum does not use the vehicle
# whose rate is off), DIFF and INJ cannot see it; cost injection prices every feasible probe.

_LATENESS_TERM = "LATE_PENALTY[i] * late[i]"
_LATE_ROW = 'm.addConstr(late[j] >= start[j] - WINDOW[j][1], name=f"late[{j}]")'
_EARLIEST = "earliest = {j: max(WINDOW[j][0], min(WINDOW[d][0] + shortest[d][j] for d in DEPOTS)) for j in CUSTOMERS}"
_RATE_TERM = "COST_PER_DISTANCE[k] * LEG[i][j] * x[i, j, k]"
_FIXED_TERM = "FIXED_COST[k] * used[k]"
_LAST_TYPE = "(1.5 if {table}[k] == {table}[-1] else 1.0) * "
"""A factor on the price of the vehicles that cost what the last vehicle costs (its type)."""

COSTS: tuple[MutationRule, ...] = (
    MutationRule(
        "cost:late_penalty_dropped",
        None,
        MutantKind.COST,
        "soft-window lateness paid at 1 per time unit instead of each customer's penalty",
        _rewrite_in_module("objective", (_LATENESS_TERM, "late[i]")),
        frozenset({Module.STW}),
    ),
    MutationRule(
        "cost:late_penalty_doubled",
        None,
        MutantKind.COST,
        "soft-window lateness paid twice",
        _rewrite_in_module("objective", (_LATENESS_TERM, f"2 * {_LATENESS_TERM}")),
        frozenset({Module.STW}),
    ),
    MutationRule(
        "cost:earliness_priced",
        None,
        MutantKind.COST,
        "service may start before the window opens, paying the late penalty per time unit early",
        _without_cuts(
            _rewrite_in_module(
                "soft_time_window",
                (_EARLIEST, "earliest = {j: min(WINDOW[d][0] + shortest[d][j] for d in DEPOTS) for j in CUSTOMERS}"),
                (_LATE_ROW, _LATE_ROW + '; m.addConstr(late[j] >= WINDOW[j][0] - start[j], name=f"early[{j}]")'),
            )
        ),
        frozenset({Module.STW}),
    ),
    MutationRule(
        "cost:lateness_at_departure",
        None,
        MutantKind.COST,
        "lateness measured when service ends (the vehicle departs) instead of when it starts",
        _rewrite_in_module(
            "soft_time_window",
            (_LATE_ROW, 'm.addConstr(late[j] >= start[j] + SERVICE[j] - WINDOW[j][1], name=f"late[{j}]")'),
        ),
        frozenset({Module.STW}),
    ),
    MutationRule(
        "cost:one_rate_for_all",
        None,
        MutantKind.COST,
        "every vehicle priced at the first vehicle's cost per unit distance",
        _rewrite_in_module("objective", (_RATE_TERM, "COST_PER_DISTANCE[0] * LEG[i][j] * x[i, j, k]")),
        frozenset({Module.HF}),
    ),
    MutationRule(
        "cost:type_rate_changed",
        None,
        MutantKind.COST,
        "the last vehicle type's cost per unit distance 50 % too high",
        _rewrite_in_module("objective", (_RATE_TERM, _LAST_TYPE.format(table="COST_PER_DISTANCE") + _RATE_TERM)),
        frozenset({Module.HF}),
    ),
    MutationRule(
        "cost:one_fixed_cost_for_all",
        None,
        MutantKind.COST,
        "every vehicle pays the first vehicle's fixed cost",
        _rewrite_in_module("objective", (_FIXED_TERM, "FIXED_COST[0] * used[k]")),
        frozenset({Module.HF}),
    ),
    MutationRule(
        "cost:type_fixed_cost_changed",
        None,
        MutantKind.COST,
        "the last vehicle type's fixed cost 50 % too high",
        _rewrite_in_module("objective", (_FIXED_TERM, _LAST_TYPE.format(table="FIXED_COST") + _FIXED_TERM)),
        frozenset({Module.HF}),
    ),
)
"""Open routes that pay their return leg are ``relax:open_route_pays_return`` (a cost mistake too,
kept under its first name)."""


def mutation_rules(variant: str, kinds: Sequence[MutantKind] = tuple(MutantKind)) -> list[MutationRule]:
    spec = get_variant(variant)
    rules: list[MutationRule] = []
    if MutantKind.OMIT in kinds:
        rules += [_omit(family) for family in spec.families]
    if MutantKind.RELAX in kinds:
        rules += [r for r in RELAXATIONS if r.family in spec.families and r.requires <= spec.modules]
    if MutantKind.SPURIOUS in kinds:
        rules += [r for r in SPURIOUS if r.requires <= spec.modules]
    rules += [r for r in SUBRULES if r.kind in kinds and r.family in spec.families and r.requires <= spec.modules]
    if MutantKind.COST in kinds:
        rules += [r for r in COSTS if r.requires <= spec.modules]
    return rules


IMPLIED_BY: dict[Family, frozenset[Module]] = {
    Family.SUBTOUR: frozenset({Module.HTW, Module.STW}),
}
"""Families that other rules of the variant already imply, making their omission an *equivalent*
mutant no verifier can kill: with time windows (hard or soft), start times grow strictly along
every arc (travel plus service time is positive), so a depot-free cycle is infeasible anyway."""


def is_equivalent_omission(variant: str, family: Family) -> bool:
    return bool(IMPLIED_BY.get(family, frozenset()) & get_variant(variant).modules)


_LOAD_TOLERANCE = 1e-9


def every_vehicle_needed(instance: Instance) -> bool:
    """Whether every feasible plan of ``instance`` uses every vehicle, shown by load alone.

    True for a single vehicle, and for a fleet whose largest K-1 capacities together cannot carry
    the total demand (deliveries and backhaul pickups counted separately, since each has the whole
    capacity to itself). A sufficient test, not a complete one: False says nothing either way.
    """
    vehicles = instance.vehicles
    if len(vehicles) == 1:
        return True
    capacities = [vehicle.capacity for vehicle in vehicles]
    if any(capacity is None for capacity in capacities):
        return False
    all_but_one = sum(sorted(c for c in capacities if c is not None)[1:])
    deliveries = sum(c.demand for c in instance.customers if not c.backhaul)
    pickups = sum(c.demand for c in instance.customers if c.backhaul)
    return max(deliveries, pickups) > all_but_one + _LOAD_TOLERANCE


def pickups_always_fit(instance: Instance) -> bool:
    """Whether all backhaul pickups together fit the smallest vehicle: then no plan can break the
    backhaul half of the capacity rule, and a model without it has the gold script's feasible set."""
    capacities = [vehicle.capacity for vehicle in instance.vehicles]
    if not capacities or any(capacity is None for capacity in capacities):
        return False
    pickups = sum(c.demand for c in instance.customers if c.backhaul)
    return pickups <= min(c for c in capacities if c is not None) + _LOAD_TOLERANCE


def no_overload_possible(instance: Instance) -> bool:
    """Whether no route of any plan can break the capacity rule: every vehicle carries the whole
    demand of each kind (and, with compartments, its total capacity covers its compartments, which
    already bound every load). On-board loads of pickup and delivery are not judged here."""
    if instance.has(Module.PD) or instance.has(Module.SPLIT):
        return False
    capacities = [vehicle.capacity for vehicle in instance.vehicles]
    if any(capacity is None for capacity in capacities):
        return False
    if instance.has(Module.MC):
        return all(
            (v.capacity or 0.0) + _LOAD_TOLERANCE >= sum(v.compartment_capacity or ()) for v in instance.vehicles
        )
    deliveries = sum(c.demand for c in instance.customers if not c.backhaul)
    pickups = sum(c.demand for c in instance.customers if c.backhaul)
    return max(deliveries, pickups) <= min(c for c in capacities if c is not None) + _LOAD_TOLERANCE


def deliveries_always_fit(instance: Instance) -> bool:
    """Whether all linehaul deliveries together fit the smallest vehicle (the mirror of
    ``pickups_always_fit``)."""
    capacities = [vehicle.capacity for vehicle in instance.vehicles]
    if not capacities or any(capacity is None for capacity in capacities):
        return False
    deliveries = sum(c.demand for c in instance.customers if not c.backhaul)
    return deliveries <= min(c for c in capacities if c is not None) + _LOAD_TOLERANCE


def no_service_times(instance: Instance) -> bool:
    """Whether no customer has a service time (leaving them out changes nothing)."""
    return all(c.service_time <= 0 for c in instance.customers)


def fleet_always_full(instance: Instance) -> bool:
    """Whether every feasible plan uses every vehicle: shown by load alone, or else proven by the
    gold model asked for the fewest vehicles (``fewest_vehicles_plan``)."""
    if every_vehicle_needed(instance):
        return True
    plan, proven = fewest_vehicles_plan(instance)
    return proven and plan is not None and sum(1 for r in plan.routes if r.visits) == len(instance.vehicles)


def _never_broken(family: Family) -> Callable[[Instance], bool]:
    def implied(instance: Instance) -> bool:
        return violation_impossible(instance, family)

    implied.__doc__ = (
        f"Whether the gold model without its {family.value} module, asked for a plan that breaks "
        f"{family.value} and keeps every other rule, proves there is none."
    )
    return implied


def capacity_never_broken(instance: Instance) -> bool:
    """Whether no plan can overload a vehicle while keeping every other rule: by load alone, or
    proven by the gold model without its capacity module asked for an overloaded route."""
    return no_overload_possible(instance) or violation_impossible(instance, Family.CAPACITY)


def service_never_late(instance: Instance) -> bool:
    """Whether no plan that is on time with service times left out is late with them: no service
    times at all, or proven by the gold model without them asked for such a late plan."""
    return no_service_times(instance) or service_lateness_impossible(instance)


def loads_forbid_cycles(instance: Instance) -> bool:
    """Whether the instance's gold script is the two-index model and every customer has a
    positive demand: its loads grow along every customer-to-customer arc (along each part of a
    route with backhauls, whose rule bans the arcs that would mix them), so a cycle that avoids
    every depot is infeasible without the subtour module too. (The vehicle-indexed model counts a
    cycle into the load of the vehicle that drives it: there the omission is equivalent only where
    every cycle overloads its vehicle, see ``no_cycle_possible``.)"""
    return choose_features(instance).two_index and all(c.demand > 0 for c in instance.customers)


def no_cycle_possible(instance: Instance) -> bool:
    """Whether no plan that keeps every other rule can hold a cycle that avoids every depot: the
    two-index model's loads grow along every customer-to-customer arc, or the gold model without its
    subtour module, asked for customers that no arc enters from outside, proves there are none (the
    vehicle-indexed model counts a cycle into its vehicle's load, which every cycle may overload:
    VRPB profile 4 seed 1, where no two backhauls fit one vehicle).

    ``vrpcoder.attacks.cycles`` holds the proof."""
    return loads_forbid_cycles(instance) or cycles_impossible(instance)


def _rule_never_broken(rule: Rule) -> Callable[[Instance], bool]:
    def implied(instance: Instance) -> bool:
        return rule_violation_impossible(instance, rule)

    implied.__doc__ = (
        f"Whether the gold model without its {rule.family.value} module, asked for a plan that breaks "
        f"its {rule.value} rule alone and keeps every other rule, proves there is none."
    )
    return implied


def _compartment_never_full(compartment: int) -> Callable[[Instance], bool]:
    def implied(instance: Instance) -> bool:
        total = sum((c.compartment_demand or ())[compartment] for c in instance.customers)
        if all((v.compartment_capacity or ())[compartment] + _LOAD_TOLERANCE >= total for v in instance.vehicles):
            return True
        return compartment_violation_impossible(instance, compartment)

    implied.__doc__ = (
        f"Whether every vehicle's compartment {compartment} holds the whole demand for it, or the gold "
        f"model proves that no plan keeping every other rule overloads compartment {compartment}."
    )
    return implied


def capacities_interchangeable(instance: Instance) -> bool:
    """Whether giving every vehicle the largest capacity changes nothing: the vehicles share one
    capacity, or the whole demand fits the smallest one, or (compartments) every vehicle's
    capacity covers its compartments, which already bound every load."""
    capacities = {v.capacity for v in instance.vehicles}
    if len(capacities) < 2 or no_overload_possible(instance):
        return True
    return instance.has(Module.MC) and all(
        (v.capacity or 0.0) + _LOAD_TOLERANCE >= sum(v.compartment_capacity or ()) for v in instance.vehicles
    )


def _middle_vehicles(instance: Instance) -> list[int]:
    capacities = [v.capacity or 0.0 for v in instance.vehicles]
    return [k for k, c in enumerate(capacities) if min(capacities) < c < max(capacities)]


def middle_capacity_never_binds(instance: Instance) -> bool:
    """Whether giving the middle-sized vehicles the largest capacity changes nothing: the fleet has
    fewer than three capacities, or each middle vehicle's total never binds, because the whole demand
    fits it or (with compartments) its compartments together hold no more than its total."""
    total = sum(c.demand for c in instance.customers)

    def never_binds(vehicle: Vehicle) -> bool:
        capacity = vehicle.capacity or 0.0
        rooms = vehicle.compartment_capacity
        compartments_bind_first = instance.has(Module.MC) and bool(rooms) and sum(rooms or ()) <= capacity + _LOAD_TOLERANCE
        return total <= capacity + _LOAD_TOLERANCE or compartments_bind_first

    return all(never_binds(instance.vehicles[k]) for k in _middle_vehicles(instance))


def middle_compartments_never_bind(instance: Instance) -> bool:
    """Whether giving the middle-sized vehicles the largest room of each compartment changes
    nothing: no middle vehicle, or the whole demand of every compartment fits each middle vehicle's."""
    width = len(instance.vehicles[0].compartment_capacity or ())
    totals = [sum((cust.compartment_demand or ())[c] for cust in instance.customers) for c in range(width)]
    return all(
        totals[c] <= (instance.vehicles[k].compartment_capacity or ())[c] + _LOAD_TOLERANCE
        for k in _middle_vehicles(instance)
        for c in range(width)
    )


def compartments_interchangeable(instance: Instance) -> bool:
    """Whether giving every vehicle the largest vehicle's compartment capacities changes nothing:
    they are the same for every vehicle, or the whole demand for each compartment fits the smallest."""
    width = len(instance.vehicles[0].compartment_capacity or ())
    for c in range(width):
        rooms = [(v.compartment_capacity or ())[c] for v in instance.vehicles]
        total = sum((cust.compartment_demand or ())[c] for cust in instance.customers)
        if len(set(rooms)) > 1 and total > min(rooms) + _LOAD_TOLERANCE:
            return False
    return True


def no_balanced_pair_split(instance: Instance) -> bool:
    """Whether no two disjoint sets of pairs carry the same total quantity: a route whose running
    on-board sum never goes below zero, with the pairs of every route adding up to zero in the end,
    cannot then hold half of a pair (its pickups without their deliveries would have to balance
    deliveries without their pickups), so a load model without pairing accepts no split pair."""
    quantities = [p.quantity for p in instance.pairs]
    if len(quantities) > _MAX_PAIRS_SEARCHED:
        return False
    for mask in range(1, 3 ** len(quantities)):
        difference, digits, sides = 0.0, mask, 0
        for q in quantities:
            digits, side = divmod(digits, 3)
            difference += q if side == 1 else -q if side == 2 else 0.0
            sides |= side
        if sides == 3 and abs(difference) <= _LOAD_TOLERANCE:
            return False
    return True


_MAX_PAIRS_SEARCHED = 8
"""Beyond this many pairs the split search (3^n assignments) is not tried (not shown equivalent)."""


def waiting_never_late(instance: Instance) -> bool:
    """Whether no plan that is on time with service starting on arrival is late once vehicles wait
    for windows to open: no window opens after a vehicle can first arrive, or the gold model with
    the openings left out, asked for such a late plan, proves there is none."""
    return no_waiting_possible(instance) or waiting_lateness_impossible(instance)


def distance_total_implied(instance: Instance) -> bool:
    """Whether the fleet has a single vehicle (its total is its one route), or the gold model
    proves that no plan keeping every other rule drives a route past the limit."""
    return len(instance.vehicles) == 1 or violation_impossible(instance, Family.DISTANCE)


def routes_never_outnumber_fleet(instance: Instance) -> bool:
    """Whether the customers cannot form more routes than the fleet has vehicles (one route needs
    a customer, or a pickup-delivery pair)."""
    units = len(instance.pairs) if instance.has(Module.PD) else len(instance.customers)
    return units <= len(instance.vehicles) and instance.num_depots == 1


IMPLIED_ON_INSTANCE: dict[str, Callable[[Instance], bool]] = {
    "omit:subtour": no_cycle_possible,
    "spurious:every_vehicle_used": fleet_always_full,
    "relax:capacity_linehaul_only": pickups_always_fit,
    "relax:capacity_backhaul_only": deliveries_always_fit,
    "omit:capacity": capacity_never_broken,
    "relax:service_time_omitted": service_never_late,
    "spurious:windows_tightened": no_service_times,
    "omit:time_window": _never_broken(Family.TIME_WINDOW),
    "relax:time_window_no_close": _never_broken(Family.TIME_WINDOW),
    "omit:precedence": _never_broken(Family.PRECEDENCE),
    "omit:pairing": _never_broken(Family.PAIRING),
    "omit:distance": _never_broken(Family.DISTANCE),
    "omit:compartment": _never_broken(Family.COMPARTMENT),
    "omit:backhaul": _never_broken(Family.BACKHAUL),
    "omit:linehaul_first": _rule_never_broken(Rule.LINEHAUL_FIRST),
    "omit:linehaul_start": _rule_never_broken(Rule.LINEHAUL_START),
    "omit:fleet_size": routes_never_outnumber_fleet,
    "omit:one_route": routes_never_outnumber_fleet,
    "omit:depot_close": depot_never_closes_first,
    "omit:window_open": waiting_never_late,
    "omit:compartment_load[0]": _compartment_never_full(0),
    "omit:compartment_load[1]": _compartment_never_full(1),
    "relax:capacity_largest_for_all": capacities_interchangeable,
    "relax:compartment_largest_for_all": compartments_interchangeable,
    "relax:capacity_middle_as_largest": middle_capacity_never_binds,
    "relax:compartment_middle_as_largest": middle_compartments_never_bind,
    "relax:distance_fleet_total": distance_total_implied,
    "relax:pairing_by_load": no_balanced_pair_split,
}
"""Spurious rules with a test that they cut off no feasible plan of a given instance, and relaxed
rules with a test that what they drop never binds on it. On such an instance the mutant has the
gold script's feasible set and optimum: no verifier can tell them apart, and only an instance with
a slacker fleet (or heavier pickups) can."""


def is_equivalent(rule: MutationRule, instances: Iterable[Instance]) -> bool:
    """Whether ``rule``'s mutant is indistinguishable from the gold script on every one of
    ``instances`` (a sample's base and attacked copies): an omission the variant's other rules imply,
    a spurious rule that each of the instances already implies, or a relaxation whose dropped part
    binds on none of them."""
    instances = list(instances)
    if not instances:
        raise ValueError("no instance to judge the mutant on")
    if rule.kind is MutantKind.OMIT and rule.family is not None and is_equivalent_omission(instances[0].variant, rule.family):
        return True
    implied = IMPLIED_ON_INSTANCE.get(rule.name)
    return implied is not None and all(implied(instance) for instance in instances)


def equivalence_reason(rule: MutationRule, instances: Iterable[Instance]) -> str | None:
    """Why ``rule``'s mutant is equivalent on these instances, in words (None when it is not)."""
    instances = list(instances)
    if not is_equivalent(rule, instances):
        return None
    if rule.kind is MutantKind.OMIT and rule.family is not None and is_equivalent_omission(instances[0].variant, rule.family):
        return "time propagation already rules out every depot-free cycle"
    implied = IMPLIED_ON_INSTANCE[rule.name]
    paragraph = " ".join((implied.__doc__ or implied.__name__).strip().split("\n\n")[0].split())
    # The predicates' docstrings ask a question ("Whether every plan ..."); the verdict states it.
    statement = paragraph.removeprefix("Whether ").replace("``", "")
    return f"on these instances, {statement}"


class MutantReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    family: Family | None
    kind: MutantKind
    description: str
    samples: int
    """Samples the mutant applied to and was verified on."""
    killed_by_diff: bool
    killed_by_dual: bool
    """DIFF, the optimum check or a probe failed on some sample (DIFF+INJ)."""
    caught_by: tuple[str, ...]
    """Probe names (or "diff" / "build" / "optimum" / "cost:<probe>") that failed on some sample."""
    has_attacker: bool
    """Some sample of this instance carries a probe that targets (or exposes) this family: an
    attacker was enabled *and* found a valid probe on this instance."""
    equivalent: bool = False
    """No verifier can kill it on this instance (see ``is_equivalent``)."""
    equivalence: str | None = None
    """Why it is equivalent (see ``equivalence_reason``)."""
    samples_caught: int = 0
    """Samples on which the dual verifier caught it (the share that matters for one reward)."""
    samples_caught_by_diff: int = 0
    killed_with_cost: bool = False
    """Caught on some sample by DIFF+INJ or by cost injection (the whole verifier)."""
    samples_caught_with_cost: int = 0


def failures(verdict: Verdict) -> list[str]:
    """What in a verdict tells a wrong candidate apart: a failed build, DIFF, the optimum check (the
    candidate's own plan breaks a rule), a judged probe that failed (an unjudgeable probe tells
    nothing), or a judged cost check that failed (``cost:<probe>``)."""
    if not verdict.build:
        return ["build"]
    found = [] if verdict.diff else ["diff"]
    found += [] if verdict.optimum_ok else ["optimum"]
    found += [p.name for p in verdict.probes if p.judged and not p.passed]
    return found + [f"{COST_PREFIX}{c.probe}" for c in verdict.costs if c.judged and not c.passed]


COST_PREFIX = "cost:"
"""How ``failures`` names a failed cost check (probe names start with ``s+`` or ``s-``)."""


def caught_without_cost(found: Sequence[str]) -> bool:
    """Whether DIFF+INJ (the build, DIFF, the optimum check or a probe) caught it, cost aside."""
    return any(not name.startswith(COST_PREFIX) for name in found)


def run_mutants(
    samples: Sequence[Sample],
    *,
    kinds: Sequence[MutantKind] = tuple(MutantKind),
    config: VerifyConfig | None = None,
) -> list[MutantReport]:
    """Every applicable mutant of the instance behind ``samples``, verified on each sample."""
    if not samples:
        raise ValueError("no samples to mutate")
    variant = get_variant(samples[0].variant)
    probed = {p.attacker for sample in samples for p in sample.probes if p.attacker is not None}
    revealed = {f for a in probed for f in ATTACKERS[a].reveals}
    reports: list[MutantReport] = []
    for rule in mutation_rules(variant.name, kinds):
        applied, diff_kill, dual_kill, caught = 0, False, False, []
        on_samples, on_samples_diff, on_samples_cost = 0, 0, 0
        for sample in samples:
            code = rule.apply(sample.gold_code, sample)
            if code is None:
                continue
            applied += 1
            verdict = verify(code, sample, config)
            found = failures(verdict)
            diff_kill |= "build" in found or "diff" in found
            dual_kill |= caught_without_cost(found)
            on_samples += caught_without_cost(found)
            on_samples_diff += "build" in found or "diff" in found
            on_samples_cost += bool(found)
            caught += [f"{sample.kind}:{name}" for name in found]
        if applied:
            reports.append(
                MutantReport(
                    name=rule.name,
                    family=rule.family,
                    kind=rule.kind,
                    description=rule.description,
                    samples=applied,
                    killed_by_diff=diff_kill,
                    killed_by_dual=dual_kill,
                    caught_by=tuple(dict.fromkeys(caught)),
                    has_attacker=rule.family in revealed,
                    equivalent=is_equivalent(rule, (s.instance for s in samples)),
                    equivalence=equivalence_reason(rule, (s.instance for s in samples)),
                    samples_caught=on_samples,
                    samples_caught_by_diff=on_samples_diff,
                    killed_with_cost=on_samples_cost > 0,
                    samples_caught_with_cost=on_samples_cost,
                )
            )
    return reports

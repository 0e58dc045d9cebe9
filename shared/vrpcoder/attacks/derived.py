"""Attackers derived from the gold model (issue 14, item 4): drop one family's module, require the
family to be broken, solve, and keep the plan only when the checker finds that family broken alone.

Hand-written attackers edit s+ and can miss: no plan near s+ may break a rule without breaking
another (a route that is overloaded is also late). The gold model minus one family still encodes
every other rule, so asking it for a plan that breaks the dropped family searches *all* plans that
keep the others. The requirement is written on the model's routing variable ``x[i, j, k]`` and the
instance's data only, never on the gold script's other variables, so it survives changes to how
the gold script models the rest; the objective becomes the size of the violation, which puts the
probe as close to the rule's boundary as the instance allows (the rule the edge attackers follow).

Pickup-and-delivery on-board load and split deliveries are not linear in the arcs; capacity keeps
its hand-written attackers there (the derived attack reports itself skipped). Precedence is asked
through positions of the derived attack's own that grow along the arcs.
"""

from __future__ import annotations

from collections.abc import Callable

import gurobipy as gp
from gurobipy import GRB

from vrpcoder.attacks.records import Attack, AttackSkipped
from vrpcoder.checker import check
from vrpcoder.errors import VerificationFailure
from vrpcoder.attacks.editing import label_problem
from vrpcoder.families import Family, Rule
from vrpcoder.gold import extract_solution, remove_family, render_gold, strip_joint_modules
from vrpcoder.gold.render import licence_needs_two_index
from vrpcoder.injection import RoutingVariable, find_routing_variable
from vrpcoder.instances import Instance
from vrpcoder.solutions import Solution
from vrpcoder.variants import ATTACKERS, DERIVED_ATTACKERS, DERIVED_RULE_ATTACKERS, Attacker, Module

DELTA = 0.01
"""How far past its limit the derived plan must go (one cent, the data's resolution)."""
OPTIMIZE_LINE = "    m.optimize()\n"
"""The gold script's solve call, taken out so the model is built but not solved twice."""

Requirement = Callable[[gp.Model, RoutingVariable, Instance], gp.Var | None]
"""Adds "the family is broken" to the model; returns the violation size to minimise (None: keep the
gold objective)."""


def _in(xvar: RoutingVariable, j: int, k: int, nodes: range) -> gp.LinExpr:
    return gp.quicksum(v for i in nodes if (v := xvar.var(i, j, k)) is not None)


def _one_of(model: gp.Model, amounts: list[tuple[gp.LinExpr, float, float]]) -> gp.Var:
    """At least one ``amount`` exceeds its ``limit`` by DELTA; returns the smallest such excess.

    ``big`` bounds how far an amount can lie below its limit, so the rows of the unchosen ones are
    void."""
    excess = model.addVar(lb=0.0, name="derived_excess")
    chosen = []
    for n, (amount, limit, big) in enumerate(amounts):
        z = model.addVar(vtype=GRB.BINARY, name=f"derived_pick[{n}]")
        chosen.append(z)
        model.addConstr(amount >= limit + DELTA - (limit + DELTA) * (1 - z), name=f"derived_over[{n}]")
        model.addConstr(excess >= amount - limit - big * (1 - z), name=f"derived_excess[{n}]")
    model.addConstr(gp.quicksum(chosen) >= 1, name="derived_some")
    return excess


def _capacity(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> gp.Var | None:
    nodes = range(instance.num_nodes)
    kinds = [[c for c in instance.customer_nodes if instance.customer(c).backhaul == b] for b in (False, True)]
    kinds = [kind for kind in kinds if kind] if instance.has(Module.BH) else [list(instance.customer_nodes)]
    total = sum(c.demand for c in instance.customers)
    amounts = []
    for k in xvar.vehicles:
        capacity = instance.vehicles[k].capacity or 0.0
        for kind in kinds:
            load = gp.quicksum(instance.customer(j).demand * _in(xvar, j, k, nodes) for j in kind)
            amounts.append((load, capacity, total + capacity))
    return _one_of(model, amounts)


def _compartment(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> gp.Var | None:
    return _compartments(model, xvar, instance, None)


def _compartment_alone(compartment: int) -> Requirement:
    """Compartment ``compartment`` overloaded on some vehicle, every other compartment within its
    limit (the module that states them all is dropped, so they are written back here)."""

    def requirement(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> gp.Var | None:
        return _compartments(model, xvar, instance, compartment)

    return requirement


def _compartments(model: gp.Model, xvar: RoutingVariable, instance: Instance, only: int | None) -> gp.Var:
    nodes = range(instance.num_nodes)
    width = len(instance.vehicles[0].compartment_capacity or ())
    total = sum(c.demand for c in instance.customers)
    amounts = []
    for k in xvar.vehicles:
        rooms = instance.vehicles[k].compartment_capacity or ()
        for c in range(width):
            load = gp.quicksum(
                (instance.customer(j).compartment_demand or ())[c] * _in(xvar, j, k, nodes)
                for j in instance.customer_nodes
            )
            if only is None or c == only:
                amounts.append((load, rooms[c], total + rooms[c]))
            else:
                model.addConstr(load <= rooms[c], name=f"derived_room[{k},{c}]")
    return _one_of(model, amounts)


def _distance(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> gp.Var | None:
    dist = instance.distances
    limit = instance.max_route_distance or 0.0
    counted = [
        (i, j) for i in range(instance.num_nodes) for j in range(instance.num_nodes)
        if i != j and not (instance.has(Module.OPEN) and j < instance.num_depots)
    ]
    longest = sum(max(row) for row in dist)
    amounts = []
    for k in xvar.vehicles:
        length = gp.quicksum(dist[i][j] * v for i, j in counted if (v := xvar.var(i, j, k)) is not None)
        amounts.append((length, limit, longest + limit))
    return _one_of(model, amounts)


def _backhaul_sides(instance: Instance) -> tuple[list[int], list[int]]:
    back = [c for c in instance.customer_nodes if instance.customer(c).backhaul]
    return back, [c for c in instance.customer_nodes if not instance.customer(c).backhaul]


def _depot_to_backhaul(xvar: RoutingVariable, instance: Instance, back: list[int]) -> list[gp.Var]:
    return [v for d in range(instance.num_depots) for b in back for v in xvar.arc_vars(d, b)]


def _backhaul(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> gp.Var | None:
    """A linehaul after a backhaul, on routes that each start with a linehaul (the other backhaul
    rule, dropped with the module, is written back on ``x``)."""
    back, line = _backhaul_sides(instance)
    wrong = gp.quicksum(v for b in back for j in line for v in xvar.arc_vars(b, j))
    model.addConstr(wrong >= 1, name="derived_backhaul_first")
    for var in _depot_to_backhaul(xvar, instance, back):
        var.UB = 0.0
    return None


def _backhaul_start(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> gp.Var | None:
    """A route that starts with a backhaul, and no linehaul after a backhaul anywhere: with linehauls
    first on every route, that route serves backhauls only."""
    back, line = _backhaul_sides(instance)
    model.addConstr(gp.quicksum(_depot_to_backhaul(xvar, instance, back)) >= 1, name="derived_backhaul_start")
    for var in (v for b in back for j in line for v in xvar.arc_vars(b, j)):
        var.UB = 0.0
    return None


def _pairing(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> gp.Var | None:
    nodes = range(instance.num_nodes)
    split = []
    for r, pair in enumerate(instance.pairs):
        for k in xvar.vehicles:
            z = model.addVar(vtype=GRB.BINARY, name=f"derived_split[{r},{k}]")
            model.addConstr(z <= _in(xvar, pair.pickup, k, nodes), name=f"derived_pickup[{r},{k}]")
            model.addConstr(z <= 1 - _in(xvar, pair.delivery, k, nodes), name=f"derived_delivery[{r},{k}]")
            split.append(z)
    model.addConstr(gp.quicksum(split) >= 1, name="derived_some_split")
    return None


def _time_window(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> gp.Var | None:
    """The earliest schedule, written exactly (start = max(window open, predecessor's start +
    service + travel), the max chosen by a binary), and some customer starting after its close."""
    start, big = _earliest_starts(model, xvar, instance)
    late = []
    for j, var in start.items():
        window = instance.customer(j).window
        closing = window.end if window else big
        late.append((gp.LinExpr(var), closing, big + closing))
    return _one_of(model, late)


def _earliest_starts(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> tuple[dict[int, gp.Var], float]:
    """Each customer's service start under the earliest schedule, written exactly (start = max(window
    open, predecessor's start + service + travel), the max chosen by a binary), and the big-M used."""
    dist = instance.distances
    depots = range(instance.num_depots)
    customers = list(instance.customer_nodes)
    opens = {d: (w.start if (w := instance.depots[d].window) else 0.0) for d in depots}
    window = {j: instance.customer(j).window for j in customers}
    service = {j: instance.customer(j).service_time for j in customers}
    big = 2.0 * (
        max(w.end for w in window.values() if w) + max(service.values()) + max(map(max, dist)) + max(opens.values())
    ) + 1.0
    start = model.addVars(customers, lb=0.0, ub=big, name="derived_start")
    for j in customers:
        opening = window[j].start if window[j] else 0.0
        w = model.addVar(vtype=GRB.BINARY, name=f"derived_after_pred[{j}]")
        model.addConstr(start[j] >= opening, name=f"derived_open[{j}]")
        model.addConstr(start[j] <= opening + big * w, name=f"derived_wait[{j}]")
        for i in [*depots, *customers]:
            if i == j:
                continue
            used = gp.quicksum(xvar.arc_vars(i, j))
            ready = (opens[i] if i in opens else start[i] + service[i]) + dist[i][j]
            model.addConstr(start[j] >= ready - big * (1 - used), name=f"derived_after[{i},{j}]")
            model.addConstr(start[j] <= ready + big * (1 - used) + big * (1 - w), name=f"derived_exact[{i},{j}]")
    return dict(start), big


def _precedence(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> gp.Var | None:
    """Positions that grow by at least one along every customer-to-customer arc, and some pair whose
    pickup sits after its delivery (the pairing rule, still in the model, keeps both on one route)."""
    customers = list(instance.customer_nodes)
    n = len(customers)
    position = model.addVars(customers, lb=1.0, ub=float(n), name="derived_position")
    for i in customers:
        for j in customers:
            if i != j:
                used = gp.quicksum(xvar.arc_vars(i, j))
                model.addConstr(position[j] >= position[i] + 1 - n * (1 - used), name=f"derived_order[{i},{j}]")
    late_pickup = []
    for r, pair in enumerate(instance.pairs):
        y = model.addVar(vtype=GRB.BINARY, name=f"derived_reversed[{r}]")
        model.addConstr(position[pair.pickup] >= position[pair.delivery] + 1 - n * (1 - y), name=f"derived_after[{r}]")
        late_pickup.append(y)
    model.addConstr(gp.quicksum(late_pickup) >= 1, name="derived_some_reversed")
    return None


RULE_REQUIREMENTS: dict[Rule, Requirement] = {Rule.LINEHAUL_START: _backhaul_start}
"""Requirements of one rule of a compound family (``DERIVED_RULE_ATTACKERS``): the family's module
is dropped and its other rules are written back with the requirement."""

REQUIREMENTS: dict[Family, Requirement] = {
    Family.CAPACITY: _capacity,
    Family.COMPARTMENT: _compartment,
    Family.DISTANCE: _distance,
    Family.TIME_WINDOW: _time_window,
    Family.BACKHAUL: _backhaul,
    Family.PAIRING: _pairing,
    Family.PRECEDENCE: _precedence,
}


SERVICE_IN_TRAVEL = ("start[i] + SERVICE[i] + DIST[i][j] - big_m", "start[i] + DIST[i][j] - big_m")
"""The gold's travel rows, with and without the service time of the node left (the text of the
mutation harness's ``relax:service_time_omitted``)."""
WITHOUT_WAITING = (
    ("start[j].LB, start[j].UB = WINDOW[j]", "start[j].UB = WINDOW[j][1]"),
    (
        "earliest = {j: max(WINDOW[j][0], min(WINDOW[d][0] + shortest[d][j] for d in DEPOTS)) for j in CUSTOMERS}",
        "earliest = {j: min(WINDOW[d][0] + shortest[d][j] for d in DEPOTS) for j in CUSTOMERS}",
    ),
)
"""The gold's hard-window rows with and without the windows' opening times (service may start on
arrival; the text of the mutation harness's ``omit:window_open``)."""


def _unsolved_gold(
    instance: Instance,
    family: Family | None,
    time_limit: float,
    *,
    without_service: bool = False,
    without_waiting: bool = False,
) -> gp.Model:
    # the requirements are written per vehicle: the vehicle-indexed model wherever it fits the licence
    script = render_gold(instance, time_limit=time_limit, two_index=licence_needs_two_index(instance))
    if family is not None:
        script = remove_family(script, family.value)
    rewrites = [*((SERVICE_IN_TRAVEL,) if without_service else ()), *(WITHOUT_WAITING if without_waiting else ())]
    if rewrites:
        script = strip_joint_modules(script)
    for old, new in rewrites:
        if old not in script:
            raise ValueError("the gold script's time-window rows are not in the expected form")
        script = script.replace(old, new)
    if OPTIMIZE_LINE not in script:
        raise ValueError("the gold script has no solve call to take out")
    namespace: dict[str, object] = {"__name__": "vrpcoder_derived_attack"}
    exec(compile(script.replace(OPTIMIZE_LINE, "", 1), "<gold without one family>", "exec"), namespace)
    build = namespace["build_model"]
    assert callable(build)
    model = build()
    if not isinstance(model, gp.Model):
        raise ValueError(f"build_model() returned {type(model).__name__}")
    return model


def derived_attack(
    instance: Instance, family: Family, *, time_limit: float = 10.0, compartment: int | None = None
) -> Attack | AttackSkipped:
    """A probe on ``instance`` that breaks ``family`` alone, found by the gold model without it
    (with ``compartment``: that compartment alone, the others within their limits)."""
    attacker = DERIVED_ATTACKERS.get(family)
    if attacker is None:
        raise ValueError(f"no derived attacker for {family.value}")
    if family is Family.CAPACITY and (instance.has(Module.PD) or instance.has(Module.SPLIT)):
        return AttackSkipped(attacker=attacker, reason="this variant's load is not linear in the arcs")
    if compartment is not None:
        if family is not Family.COMPARTMENT:
            raise ValueError("a compartment is named only for the compartment family")
        broken = f"compartment {compartment} alone"
        return _derived(instance, attacker, _compartment_alone(compartment), time_limit, broken)
    return _derived(instance, attacker, REQUIREMENTS[family], time_limit, family.value)


def derived_rule_attack(instance: Instance, rule: Rule, *, time_limit: float = 10.0) -> Attack | AttackSkipped:
    """A probe on ``instance`` that breaks ``rule`` alone, found by the gold model without the
    rule's family and with its other rules written back on ``x``."""
    attacker = DERIVED_RULE_ATTACKERS.get(rule)
    if attacker is None:
        raise ValueError(f"no derived attacker for the rule {rule.value}")
    broken = f"the {rule.value} rule of {rule.family.value}"
    return _derived(instance, attacker, RULE_REQUIREMENTS[rule], time_limit, broken)


def _derived(
    instance: Instance, attacker: Attacker, requirement: Requirement, time_limit: float, broken: str
) -> Attack | AttackSkipped:
    family = ATTACKERS[attacker].target
    try:
        model = _unsolved_gold(instance, family, time_limit)
    except (ValueError, gp.GurobiError) as exc:
        return AttackSkipped(attacker=attacker, reason=f"gold model without {family.value} not built: {exc}")
    try:
        xvar = find_routing_variable(model, instance.num_nodes)
        if xvar.dims != 3 and family not in (Family.BACKHAUL,):
            return AttackSkipped(attacker=attacker, reason="the gold x has no vehicle index")
        excess = requirement(model, xvar, instance)
        if excess is not None:
            model.setObjective(excess, GRB.MINIMIZE)
        model.Params.MIPGap = 1e-4
        model.optimize()
        if model.SolCount == 0:
            return AttackSkipped(
                attacker=attacker, reason=f"no plan keeps every other rule and breaks {broken} (status {model.Status})"
            )
        solution = extract_solution(model, instance)
    except (VerificationFailure, gp.GurobiError, ValueError) as exc:
        return AttackSkipped(attacker=attacker, reason=f"derived solve failed: {exc}")
    finally:
        model.dispose()
    problem = label_problem(check(instance, solution), attacker)
    if problem is not None:
        return AttackSkipped(attacker=attacker, reason=f"the derived plan {problem}")
    return Attack(attacker=attacker, family=family, solution=solution, instance=instance)


def derived_service_time(instance: Instance, *, time_limit: float = 10.0) -> Attack | AttackSkipped:
    """A plan late only because service takes time: the gold model with service times left out
    of its time propagation (it accepts only plans feasible without them), the exact earliest
    schedule with them, and some customer starting after its window closes under the latter."""
    from vrpcoder.attacks.boundary import without_service_times

    if all(c.service_time <= 0 for c in instance.customers):
        return AttackSkipped(attacker=Attacker.DERIVED_SERVICE_TIME, reason="no customer has a service time")
    return _derived_lateness(
        instance, Attacker.DERIVED_SERVICE_TIME, without_service_times(instance), "service times", time_limit
    )


def derived_waiting(instance: Instance, *, time_limit: float = 10.0) -> Attack | AttackSkipped:
    """A plan late only because a vehicle waits for a window to open: the gold model with the
    windows' opening times left out (service may start on arrival), the exact earliest schedule
    with them, and some customer starting after its window closes under the latter (issue 28.2:
    the fallback of ``waiting_edge``)."""
    from vrpcoder.attacks.boundary import no_waiting_possible, without_waiting

    if no_waiting_possible(instance):
        return AttackSkipped(attacker=Attacker.DERIVED_WAITING, reason="no window opens after a vehicle can first arrive")
    return _derived_lateness(instance, Attacker.DERIVED_WAITING, without_waiting(instance), "waiting", time_limit)


def _derived_lateness(
    instance: Instance, attacker: Attacker, relaxed: Instance, cause: str, time_limit: float
) -> Attack | AttackSkipped:
    """A plan the gold model accepts on ``relaxed`` (the rule of ``cause`` left out) and the exact
    earliest schedule on ``instance`` makes late."""
    service, waiting = attacker is Attacker.DERIVED_SERVICE_TIME, attacker is Attacker.DERIVED_WAITING
    try:
        model = _unsolved_gold(instance, None, time_limit, without_service=service, without_waiting=waiting)
    except (ValueError, gp.GurobiError) as exc:
        return AttackSkipped(attacker=attacker, reason=f"gold model without {cause} not built: {exc}")
    try:
        xvar = find_routing_variable(model, instance.num_nodes)
        model.setObjective(_time_window(model, xvar, instance), GRB.MINIMIZE)
        model.Params.MIPGap = 1e-4
        model.optimize()
        if model.SolCount == 0:
            return AttackSkipped(attacker=attacker, reason=f"no plan is late only through {cause} (status {model.Status})")
        solution = extract_solution(model, instance)
    except (VerificationFailure, gp.GurobiError, ValueError) as exc:
        return AttackSkipped(attacker=attacker, reason=f"derived solve failed: {exc}")
    finally:
        model.dispose()
    if check(instance, solution).families != (Family.TIME_WINDOW,) or not check(relaxed, solution).feasible:
        return AttackSkipped(attacker=attacker, reason=f"the derived plan is not late through {cause} alone")
    return Attack(attacker=attacker, family=Family.TIME_WINDOW, solution=solution, instance=instance)


def fewest_vehicles_plan(instance: Instance, *, time_limit: float = 5.0) -> tuple[Solution | None, bool]:
    """The plan that uses the fewest vehicles the gold model finds within ``time_limit``, and
    whether that number is proven the least (the feasible-side counterpart of the derived attacks).

    A model that forces every vehicle out of its depot is caught only by a feasible probe that
    leaves one at home; where the construction heuristic fills the whole fleet, the gold model is
    asked for the smallest fleet instead. A proof that every plan needs the whole fleet shows such
    a model equivalent on the instance.
    """
    try:
        model = _unsolved_gold(instance, None, time_limit)
    except (ValueError, gp.GurobiError):
        return None, False
    try:
        xvar = find_routing_variable(model, instance.num_nodes)
        leaving = gp.quicksum(
            v for d in range(instance.num_depots) for j in instance.customer_nodes for v in xvar.arc_vars(d, j)
        )
        model.setObjective(leaving, GRB.MINIMIZE)
        model.Params.MIPGap = 0.0
        model.optimize()
        if model.SolCount == 0:
            return None, False
        proven = model.Status == GRB.OPTIMAL
        solution = extract_solution(model, instance)
    except (VerificationFailure, gp.GurobiError, ValueError):
        return None, False
    finally:
        model.dispose()
    return (solution if check(instance, solution).feasible else None), proven


def violation_impossible(instance: Instance, family: Family, *, time_limit: float = 10.0) -> bool:
    """Whether the gold model proves that no plan keeping every other rule breaks ``family`` (each
    derived attack's model of the family, its rules' included, is infeasible): a model that omits
    the family has the gold script's feasible set on this instance, so no verifier can tell them
    apart here."""
    if family not in REQUIREMENTS or (family is Family.CAPACITY and (instance.has(Module.PD) or instance.has(Module.SPLIT))):
        return False
    parts = [REQUIREMENTS[family], *(r for rule, r in RULE_REQUIREMENTS.items() if rule.family is family)]
    return all(_requirement_infeasible(instance, family, part, time_limit) for part in parts)


def rule_violation_impossible(instance: Instance, rule: Rule, *, time_limit: float = 10.0) -> bool:
    """Whether the gold model proves that no plan keeping every other rule breaks ``rule`` (a model
    without that one rule has the gold script's feasible set on this instance)."""
    if rule in RULE_REQUIREMENTS:
        return _requirement_infeasible(instance, rule.family, RULE_REQUIREMENTS[rule], time_limit)
    derived = DERIVED_ATTACKERS.get(rule.family)
    if derived is None or rule not in ATTACKERS[derived].rules:
        return False
    return _requirement_infeasible(instance, rule.family, REQUIREMENTS[rule.family], time_limit)


def compartment_violation_impossible(instance: Instance, compartment: int, *, time_limit: float = 10.0) -> bool:
    """Whether the gold model proves that no plan keeping every other rule (the other compartments'
    limits included) overloads compartment ``compartment``."""
    return _requirement_infeasible(instance, Family.COMPARTMENT, _compartment_alone(compartment), time_limit)


def _requirement_infeasible(instance: Instance, family: Family, requirement: Requirement, time_limit: float) -> bool:
    try:
        model = _unsolved_gold(instance, family, time_limit)
    except (ValueError, gp.GurobiError):
        return False
    try:
        requirement(model, find_routing_variable(model, instance.num_nodes), instance)
        model.optimize()
        return model.Status == GRB.INFEASIBLE
    except (VerificationFailure, gp.GurobiError, ValueError):
        return False
    finally:
        model.dispose()


def service_lateness_impossible(instance: Instance, *, time_limit: float = 10.0) -> bool:
    """Whether no plan that keeps every rule with service times left out of the time propagation
    misses a window once they are counted (then leaving them out changes nothing here)."""
    if all(c.service_time <= 0 for c in instance.customers):
        return True
    return _lateness_impossible(instance, time_limit, without_service=True)


def waiting_lateness_impossible(instance: Instance, *, time_limit: float = 10.0) -> bool:
    """Whether no plan that keeps every rule with service starting on arrival misses a window once
    vehicles wait for windows to open (then leaving the openings out changes nothing here)."""
    return _lateness_impossible(instance, time_limit, without_waiting=True)


def _lateness_impossible(instance: Instance, time_limit: float, **left_out: bool) -> bool:
    try:
        model = _unsolved_gold(instance, None, time_limit, **left_out)
    except (ValueError, gp.GurobiError):
        return False
    try:
        _time_window(model, find_routing_variable(model, instance.num_nodes), instance)
        model.optimize()
        return model.Status == GRB.INFEASIBLE
    except (VerificationFailure, gp.GurobiError, ValueError):
        return False
    finally:
        model.dispose()


# ---- feasible plans that use a freedom the rules allow (issue 28, item 3) -----------------------


def _some_late(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> None:
    """Soft windows: the exact earliest schedule, and some customer starting after its window
    closes (the gold model keeps every rule; lateness is priced, not forbidden)."""
    _time_window(model, xvar, instance)


def _some_split(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> None:
    """Split delivery: some customer entered twice (by two vehicles: the rules let a vehicle visit a
    customer once)."""
    nodes = range(instance.num_nodes)
    twice = []
    for j in instance.customer_nodes:
        y = model.addVar(vtype=GRB.BINARY, name=f"derived_split_customer[{j}]")
        entries = gp.quicksum(v for i in nodes if i != j for v in xvar.arc_vars(i, j))
        model.addConstr(entries >= 2 * y, name=f"derived_entered_twice[{j}]")
        twice.append(y)
    model.addConstr(gp.quicksum(twice) >= 1, name="derived_some_split_customer")


def _costly_wait(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> None:
    """Soft windows: the exact earliest schedule and its exact lateness price, and a second
    schedule on the same routes that may start service before a window opens, paying each
    customer's late penalty per time unit early, priced lower by at least the freedom's margin
    (``vrpcoder.feasible.costly_wait``): some wait makes a later customer late."""
    from vrpcoder.feasible import FREEDOM_MARGIN  # feasible builds on the attack toolkit

    start, big = _earliest_starts(model, xvar, instance)
    dist = instance.distances
    depots = range(instance.num_depots)
    customers = list(start)
    opens = {d: (w.start if (w := instance.depots[d].window) else 0.0) for d in depots}
    true_price = gp.LinExpr()
    early_price = gp.LinExpr()
    shifted = model.addVars(customers, lb=0.0, ub=big, name="derived_early_start")
    for j in customers:
        customer = instance.customer(j)
        window, rate = customer.window, customer.late_penalty or 0.0
        if window is None:
            continue
        late = model.addVar(lb=0.0, name=f"derived_late[{j}]")
        is_late = model.addVar(vtype=GRB.BINARY, name=f"derived_is_late[{j}]")
        model.addConstr(late >= start[j] - window.end, name=f"derived_late_lb[{j}]")
        model.addConstr(late <= start[j] - window.end + big * (1 - is_late), name=f"derived_late_ub[{j}]")
        model.addConstr(late <= big * is_late, name=f"derived_late_zero[{j}]")
        true_price += rate * late
        cost = model.addVar(lb=0.0, name=f"derived_early_cost[{j}]")
        model.addConstr(cost >= rate * (shifted[j] - window.end), name=f"derived_early_late[{j}]")
        model.addConstr(cost >= rate * (window.start - shifted[j]), name=f"derived_early_early[{j}]")
        early_price += cost
        for i in [*depots, *customers]:
            if i == j:
                continue
            used = gp.quicksum(xvar.arc_vars(i, j))
            ready = (opens[i] if i in opens else shifted[i] + instance.customer(i).service_time) + dist[i][j]
            model.addConstr(shifted[j] >= ready - big * (1 - used), name=f"derived_early_after[{i},{j}]")
    model.addConstr(true_price - early_price >= FREEDOM_MARGIN, name="derived_costly_wait")


FREEDOM_REQUIREMENTS: dict[str, Callable[[gp.Model, RoutingVariable, Instance], None]] = {
    "late_service": _some_late,
    "split_delivery": _some_split,
    "costly_wait": _costly_wait,
}
"""The freedoms (``vrpcoder.feasible.FREEDOMS`` by name) the gold model is asked for where no plan
near s+ uses them: the ones whose absence from the feasible probes let a model that forbids them
(or prices them otherwise) keep its full reward (a no-split SDVRP, soft windows treated as hard,
earliness priced instead of forbidden)."""


def freedom_plan(instance: Instance, freedom: str, *, time_limit: float = 10.0) -> tuple[Solution | None, bool]:
    """A feasible plan that uses ``freedom`` from the gold model (every rule kept, the freedom
    required, any objective), and whether the gold model proves that no plan uses it.

    The feasible-side counterpart of the derived attacks: the heuristics search plans near s+ only,
    the gold model all of them, so "the instance admits no such plan" is a proof, not a miss."""
    requirement = FREEDOM_REQUIREMENTS.get(freedom)
    if requirement is None:
        raise ValueError(f"no gold requirement for the freedom {freedom!r}; have: {', '.join(FREEDOM_REQUIREMENTS)}")
    try:
        model = _unsolved_gold(instance, None, time_limit)
    except (ValueError, gp.GurobiError):
        return None, False
    try:
        requirement(model, find_routing_variable(model, instance.num_nodes), instance)
        model.setObjective(gp.LinExpr(), GRB.MINIMIZE)
        model.optimize()
        if model.SolCount == 0:
            return None, model.Status == GRB.INFEASIBLE
        solution = extract_solution(model, instance)
    except (VerificationFailure, gp.GurobiError, ValueError):
        return None, False
    finally:
        model.dispose()
    return (solution if check(instance, solution).feasible else None), False

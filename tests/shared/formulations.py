"""Independent candidate scripts for the verifier tests, rendered from an instance.

The dual verifier must accept any *correct* model, not only the gold script's shape, so these
renderers deliberately model the same problems differently from ``vrpcoder.gold`` (2-index arcs,
lazy DFJ cuts, single-commodity flows, visit-token flows, MTZ on loads, business node ids). Each
returns a standalone script that follows the candidate protocol: ``build_model()`` builds the
model with ``OutputFlag`` 0 and ``Threads`` 1, optimizes it and returns it, and the routing
variable is ``x`` over the internal node set, arc-first.

A :class:`Mutation` turns a renderer into a *buggy* candidate that drops exactly one constraint
family (or adds one spurious rule), which is how the tests check that INJ blames the right probe.
All numbers are taken from the instance (distances from ``instance.distances``), so a correct
script's optimum equals the gold optimum up to the solver's tolerances; the scripts ask for a
proven optimum (tiny gap, tight integrality) because DIFF compares objectives absolutely.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from string import ascii_uppercase
from textwrap import dedent, indent

from vrpcoder.families import Family
from vrpcoder.instances import Instance, TimeWindow
from vrpcoder.variants import CapacityKind, Module


class Mutation(StrEnum):
    """A deliberate modelling mistake; each maps to the probe that must expose it."""

    NO_SUBTOUR = "no_subtour"
    NO_CAPACITY = "no_capacity"
    COVERAGE_AT_MOST_ONCE = "coverage_at_most_once"
    """Coverage written as ``<= 1``: leaving a customer out becomes legal (and cheap)."""
    NO_TIME_WINDOWS = "no_time_windows"
    FORWARD_ARCS_ONLY = "forward_arcs_only"
    """Spurious rule: a customer-to-customer arc must go to a higher-numbered customer. It keeps
    the model feasible for CVRP and TSP (sort every route) but cuts off most legal plans."""


EXPOSED_BY: dict[Mutation, Family | None] = {
    Mutation.NO_SUBTOUR: Family.SUBTOUR,
    Mutation.NO_CAPACITY: Family.CAPACITY,
    Mutation.COVERAGE_AT_MOST_ONCE: Family.COVERAGE,
    Mutation.NO_TIME_WINDOWS: Family.TIME_WINDOW,
    Mutation.FORWARD_ARCS_ONLY: None,
}
"""The family of the probe a mutation must fail; None means the feasible probe s+."""


class NodeIdStyle(StrEnum):
    """How an index-rewritten statement names its nodes."""

    LETTERS = "letters"
    ONE_BASED = "one_based"


@dataclass(frozen=True)
class RelabelledScript:
    """A candidate written against a renumbered statement, with the map the sample must carry."""

    code: str
    node_id_map: dict[str, str]
    """Internal node number -> the statement's id, the direction ``NodeMap.from_candidate`` reads."""


# ---- shared rendering --------------------------------------------------------------------------

_SOLVER_SETTINGS = """\
m.setParam("OutputFlag", 0)
m.setParam("Threads", 1)
m.setParam("MIPGap", 1e-9)
m.setParam("IntFeasTol", 1e-9)
"""

_FORWARD_ONLY = """\
# Customers are served in increasing id order on every route.
for i in CUSTOMERS:
    for j in CUSTOMERS:
        if j < i:
            m.addConstr(ARC == 0, name=f"forward[{i},{j}]")
"""


def _matrix(rows: Sequence[Sequence[float]]) -> str:
    """A float matrix as a Python literal, one row per line; ``repr`` round-trips every float."""
    body = "".join(f"    {[float(v) for v in row]!r},\n" for row in rows)
    return f"[\n{body}]"


def _script(
    doc: str, data: str, body: Sequence[str], *, helpers: str = "", optimize: str = "m.optimize()"
) -> str:
    """Assemble a protocol script; ``body`` sections are dedented and placed inside build_model."""
    sections = [dedent(part).strip("\n") for part in body if part.strip()]
    inner = "\n\n".join(["m = gp.Model()", _SOLVER_SETTINGS.strip("\n"), *sections, optimize, "return m"])
    top = [f'"""{doc}"""', "import gurobipy as gp\nfrom gurobipy import GRB", data]
    if helpers.strip():
        top.append(dedent(helpers).strip("\n"))
    return "\n\n".join(top) + f"\n\n\ndef build_model():\n{indent(inner, '    ')}\n"


def _unless(mutation: Mutation | None, dropped_by: Mutation, section: str) -> str:
    return "" if mutation is dropped_by else section


def _forward_only(mutation: Mutation | None, arc: str) -> str:
    """The spurious section, with ``arc`` the expression of x on customer arc (i, j)."""
    return _FORWARD_ONLY.replace("ARC", arc) if mutation is Mutation.FORWARD_ARCS_ONLY else ""


def _require(instance: Instance, variant: str) -> None:
    if instance.spec.name != variant:
        raise ValueError(f"this renderer models {variant}, got a {instance.spec.name} instance")


def _allowed(mutation: Mutation | None, allowed: Sequence[Mutation], renderer: str) -> None:
    if mutation is not None and mutation not in allowed:
        names = ", ".join(m.value for m in allowed)
        raise ValueError(f"{renderer} has no {mutation.value} mutation (it offers: {names})")


def _require_simple_fleet(instance: Instance) -> None:
    """Single depot, identical vehicles, closed routes: what every renderer here relies on."""
    spec = instance.spec
    if instance.num_depots != 1 or spec.heterogeneous or spec.has(Module.OPEN):
        raise ValueError(
            f"these renderers need one depot, identical vehicles and closed routes, not {spec.name}"
        )


def _fleet_data(instance: Instance) -> str:
    """Data block of a single-depot instance in internal numbering (depot 0, customers 1..N-1)."""
    _require_simple_fleet(instance)
    vehicle = instance.vehicles[0]
    demand = [0.0] + [float(c.demand) for c in instance.customers]
    capacity = vehicle.capacity if instance.spec.capacity is not CapacityKind.NONE else None
    return "\n".join(
        [
            f"N = {instance.num_nodes}",
            f"K = {len(instance.vehicles)}",
            "CUSTOMERS = list(range(1, N))",
            f"DEMAND = {demand!r}",
            f"CAPACITY = {capacity!r}",
            f"FIXED_COST = {float(vehicle.fixed_cost)!r}",
            f"COST_PER_DISTANCE = {float(vehicle.cost_per_distance)!r}",
            f"DIST = {_matrix(instance.distances)}",
        ]
    )


# ---- TSP: 2-index, DFJ cut-set cuts added lazily -----------------------------------------------

_TSP_HELPERS = """\
def cycles_of(successor):
    cycles, seen = [], set()
    for start in successor:
        if start in seen:
            continue
        cycle, node = [], start
        while node not in seen:
            seen.add(node)
            cycle.append(node)
            node = successor[node]
        cycles.append(cycle)
    return cycles


def separate_subtours(model, where):
    # Each integer solution's cycles that miss the depot get a cut-set cut: leave the set once.
    if where != GRB.Callback.MIPSOL:
        return
    values = model.cbGetSolution(model._x)
    successor = {i: j for (i, j), v in values.items() if v > 0.5}
    for cycle in cycles_of(successor):
        if 0 not in cycle:
            inside = set(cycle)
            model.cbLazy(
                gp.quicksum(model._x[i, j] for i in inside for j in range(N) if j not in inside) >= 1
            )
"""

_TSP_DEGREES = """\
x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
for i in range(N):
    x[i, i].UB = 0
m.addConstrs((x.sum(i, "*") == 1 for i in range(N)), name="leave")
m.addConstrs((x.sum("*", j) == 1 for j in range(N)), name="enter")
"""

_TSP_OBJECTIVE = """\
tour = gp.quicksum(DIST[i][j] * x[i, j] for i in range(N) for j in range(N) if i != j)
m.setObjective(COST_PER_DISTANCE * tour + FIXED_COST, GRB.MINIMIZE)
"""


def tsp_dfj_lazy(instance: Instance, mutation: Mutation | None = None) -> str:
    """TSP with degree rows only; subtours are cut solely by a MIPSOL lazy-constraint callback.

    ``NO_SUBTOUR`` drops the callback (plain ``optimize()``), the classic incomplete DFJ model.
    """
    _require(instance, "TSP")
    _allowed(mutation, (Mutation.NO_SUBTOUR, Mutation.FORWARD_ARCS_ONLY), "tsp_dfj_lazy")
    body = [_TSP_DEGREES, _forward_only(mutation, "x[i, j]"), _TSP_OBJECTIVE]
    doc = "TSP, 2-index; DFJ cut-set cuts from a lazy callback."
    if mutation is Mutation.NO_SUBTOUR:
        return _script(doc, _fleet_data(instance), body)
    body.append("m._x = x\nm.Params.LazyConstraints = 1")
    optimize = "m.optimize(separate_subtours)"
    return _script(doc, _fleet_data(instance), body, helpers=_TSP_HELPERS, optimize=optimize)


# ---- CVRP: 2-index, single-commodity load flow -------------------------------------------------

_TWO_INDEX_ROUTING = """\
x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
for i in range(N):
    x[i, i].UB = 0
for j in CUSTOMERS:
    m.addConstr(x.sum("*", j) ENTER 1, name=f"enter[{j}]")
    m.addConstr(x.sum(j, "*") == x.sum("*", j), name=f"pass[{j}]")
m.addConstr(x.sum(0, "*") == x.sum("*", 0), name="depot_balance")
m.addConstr(x.sum(0, "*") <= K, name="fleet")
"""

_TWO_INDEX_OBJECTIVE = """\
driven = gp.quicksum(DIST[i][j] * x[i, j] for i in range(N) for j in range(N) if i != j)
m.setObjective(COST_PER_DISTANCE * driven + FIXED_COST * x.sum(0, "*"), GRB.MINIMIZE)
"""

_LOAD_FLOW = """\
# load[i, j]: goods on board while driving i -> j; each customer keeps its demand.
load = m.addVars(N, N, lb=0.0, name="load")
for i in range(N):
    load[i, i].UB = 0
    load[i, 0].UB = 0
for j in CUSTOMERS:
    m.addConstr(load.sum("*", j) - load.sum(j, "*") == DEMAND[j], name=f"unload[{j}]")
for i in range(N):
    for j in CUSTOMERS:
        if i != j:
            m.addConstr(load[i, j] <= (ROOM - DEMAND[i]) * x[i, j], name=f"room[{i},{j}]")
            m.addConstr(load[i, j] >= DEMAND[j] * x[i, j], name=f"enough[{i},{j}]")
"""


def _two_index_routing(mutation: Mutation | None) -> str:
    enter = "<=" if mutation is Mutation.COVERAGE_AT_MOST_ONCE else "=="
    return _TWO_INDEX_ROUTING.replace("ENTER", enter)


def cvrp_two_index_flow(instance: Instance, mutation: Mutation | None = None) -> str:
    """CVRP on arcs only: the load carried along each arc is a flow out of the depot.

    The flow gives connectivity (every customer's demand must arrive from the depot) and capacity
    (no arc carries more than Q) at once; ``NO_CAPACITY`` lifts the arc bound to the total demand,
    which keeps connectivity. Demands must be positive, or a zero-demand cycle would need no flow.
    """
    _require(instance, "CVRP")
    _allowed(mutation, (Mutation.NO_CAPACITY, Mutation.FORWARD_ARCS_ONLY), "cvrp_two_index_flow")
    if any(c.demand <= 0 for c in instance.customers):
        raise ValueError("cvrp_two_index_flow needs positive demands: connectivity rides on the load flow")
    room = "sum(DEMAND)" if mutation is Mutation.NO_CAPACITY else "CAPACITY"
    body = [
        _two_index_routing(mutation),
        _LOAD_FLOW.replace("ROOM", room),
        _forward_only(mutation, "x[i, j]"),
        _TWO_INDEX_OBJECTIVE,
    ]
    return _script("CVRP, 2-index; capacity and connectivity by a load flow.", _fleet_data(instance), body)


# ---- CVRP: 3-index, per-vehicle visit-token flow + knapsack capacity ---------------------------

_THREE_INDEX_ROUTING = """\
x = m.addVars(N, N, K, vtype=GRB.BINARY, name="x")
visits = {(j, k): x.sum("*", j, k) for j in CUSTOMERS for k in range(K)}
for i in range(N):
    for k in range(K):
        x[i, i, k].UB = 0
for k in range(K):
    m.addConstr(x.sum(0, "*", k) <= 1, name=f"one_trip[{k}]")
    for i in range(N):
        m.addConstr(x.sum(i, "*", k) == x.sum("*", i, k), name=f"balance[{i},{k}]")
for k in range(K - 1):
    m.addConstr(x.sum(0, "*", k) >= x.sum(0, "*", k + 1), name=f"use_in_order[{k}]")
for j in CUSTOMERS:
    m.addConstr(gp.quicksum(visits[j, k] for k in range(K)) ENTER 1, name=f"cover[{j}]")
"""

_VISIT_TOKENS = """\
# A vehicle leaves its depot with one token per customer it visits and drops one at each visit.
tokens = m.addVars(N, N, K, lb=0.0, name="tokens")
for i in range(N):
    for j in range(N):
        for k in range(K):
            m.addConstr(tokens[i, j, k] <= len(CUSTOMERS) * x[i, j, k], name=f"carry[{i},{j},{k}]")
for j in CUSTOMERS:
    for k in range(K):
        m.addConstr(tokens.sum("*", j, k) - tokens.sum(j, "*", k) == visits[j, k], name=f"drop[{j},{k}]")
"""

_KNAPSACK = """\
for k in range(K):
    loaded = gp.quicksum(DEMAND[j] * visits[j, k] for j in CUSTOMERS)
    m.addConstr(loaded <= CAPACITY, name=f"capacity[{k}]")
"""

_THREE_INDEX_OBJECTIVE = """\
driven = gp.quicksum(DIST[i][j] * x.sum(i, j, "*") for i in range(N) for j in range(N) if i != j)
m.setObjective(COST_PER_DISTANCE * driven + FIXED_COST * x.sum(0, "*", "*"), GRB.MINIMIZE)
"""


def cvrp_three_index_dfj_or_mtz_variant(instance: Instance, mutation: Mutation | None = None) -> str:
    """CVRP with x[i,j,k]; subtours die by a per-vehicle token flow, capacity is a knapsack row.

    A cycle away from the depot has no token source, so it cannot be driven. Keeping capacity in
    its own row (the gold couples nothing to it either, but orders customers by MTZ positions)
    lets every family be dropped on its own.
    """
    _require(instance, "CVRP")
    offered = (
        Mutation.NO_SUBTOUR,
        Mutation.NO_CAPACITY,
        Mutation.COVERAGE_AT_MOST_ONCE,
        Mutation.FORWARD_ARCS_ONLY,
    )
    _allowed(mutation, offered, "cvrp_three_index_dfj_or_mtz_variant")
    enter = "<=" if mutation is Mutation.COVERAGE_AT_MOST_ONCE else "=="
    body = [
        _THREE_INDEX_ROUTING.replace("ENTER", enter),
        _unless(mutation, Mutation.NO_SUBTOUR, _VISIT_TOKENS),
        _unless(mutation, Mutation.NO_CAPACITY, _KNAPSACK),
        _forward_only(mutation, "x.sum(i, j, '*')"),
        _THREE_INDEX_OBJECTIVE,
    ]
    doc = "CVRP, 3-index; visit-token flow per vehicle against subtours, knapsack capacity."
    return _script(doc, _fleet_data(instance), body)


# ---- VRPHTW: 2-index with load and time variables ----------------------------------------------

_MTZ_LOADS = """\
onboard = m.addVars(CUSTOMERS, lb=[DEMAND[j] for j in CUSTOMERS], ub=CAPACITY, name="onboard")
for i in CUSTOMERS:
    for j in CUSTOMERS:
        if i != j:
            grown = onboard[i] + DEMAND[j] - CAPACITY * (1 - x[i, j])
            m.addConstr(onboard[j] >= grown, name=f"mtz[{i},{j}]")
"""

_START_TIMES = """\
# Each big-M is the least that leaves the row slack whatever the variables' bounds allow.
start = m.addVars(CUSTOMERS, lb=[READY[j] for j in CUSTOMERS], ub=[DUE[j] for j in CUSTOMERS], name="start")
for j in CUSTOMERS:
    first = READY[0] + DIST[0][j]
    m.addConstr(start[j] >= first - max(0.0, first - READY[j]) * (1 - x[0, j]), name=f"depart[{j}]")
    latest = DUE[0] - SERVICE[j] - DIST[j][0]
    m.addConstr(start[j] <= latest + max(0.0, DUE[j] - latest) * (1 - x[j, 0]), name=f"return[{j}]")
    for i in CUSTOMERS:
        if i != j:
            reach = SERVICE[i] + DIST[i][j]
            slack = max(0.0, DUE[i] + reach - READY[j])
            m.addConstr(start[j] >= start[i] + reach - slack * (1 - x[i, j]), name=f"time[{i},{j}]")
"""


def _windows(instance: Instance) -> list[TimeWindow]:
    given = (instance.depots[0].window, *(c.window for c in instance.customers))
    windows = [w for w in given if w is not None]
    if len(windows) != instance.num_nodes:
        raise ValueError("vrphtw_two_index needs a window at the depot and at every customer")
    return windows


def vrphtw_two_index(instance: Instance, mutation: Mutation | None = None) -> str:
    """VRPHTW on arcs only: MTZ on loads for capacity (and subtours), big-M start times for windows.

    Routes leave at the depot's opening time and must be back by its closing time, waiting is
    free (docs/semantics.md). ``NO_TIME_WINDOWS`` drops the whole schedule, depot horizon included.
    """
    _require(instance, "VRPHTW")
    offered = (Mutation.NO_CAPACITY, Mutation.NO_TIME_WINDOWS, Mutation.COVERAGE_AT_MOST_ONCE)
    _allowed(mutation, offered, "vrphtw_two_index")
    windows = _windows(instance)
    service = [0.0] + [float(c.service_time) for c in instance.customers]
    data = "\n".join(
        [
            _fleet_data(instance),
            f"READY = {[float(w.start) for w in windows]!r}",
            f"DUE = {[float(w.end) for w in windows]!r}",
            f"SERVICE = {service!r}",
        ]
    )
    body = [
        _two_index_routing(mutation),
        _unless(mutation, Mutation.NO_CAPACITY, _MTZ_LOADS),
        _unless(mutation, Mutation.NO_TIME_WINDOWS, _START_TIMES),
        _TWO_INDEX_OBJECTIVE,
    ]
    return _script("VRPHTW, 2-index; MTZ loads and big-M service start times.", data, body)


# ---- CVRP behind a renumbered statement ----------------------------------------------------------

_RELABELLED_BODY = """\
depot = id2idx[DEPOT_ID]
customers = [i for i in range(N) if i != depot]
d = {i: DEMAND[idx2id[i]] for i in customers}
cost = {(i, j): TRAVEL[idx2id[i]][idx2id[j]] for i in range(N) for j in range(N)}
x = m.addVars(N, N, vtype=GRB.BINARY, name="x")
u = m.addVars(customers, lb=[d[i] for i in customers], ub=Q, name="u")
for i in range(N):
    x[i, i].UB = 0
for j in customers:
    m.addConstr(x.sum("*", j) == 1)
    m.addConstr(x.sum(j, "*") == 1)
m.addConstr(x.sum(depot, "*") == x.sum("*", depot))
m.addConstr(x.sum(depot, "*") <= K)
for i in customers:
    for j in customers:
        if i != j:
            m.addConstr(u[j] >= u[i] + d[j] - Q * (1 - x[i, j]))
m.setObjective(
    COST_PER_DISTANCE * gp.quicksum(cost[i, j] * x[i, j] for i in range(N) for j in range(N))
    + FIXED_COST * x.sum(depot, "*"),
    GRB.MINIMIZE,
)
"""


def _statement_ids(instance: Instance, style: NodeIdStyle) -> list[str]:
    """Ids in the statement's listing order."""
    count = instance.num_nodes
    if style is NodeIdStyle.LETTERS:
        if count > len(ascii_uppercase):
            raise ValueError(f"letter ids cover at most {len(ascii_uppercase)} nodes, got {count}")
        return list(ascii_uppercase[:count])
    return [str(p) for p in range(1, count + 1)]


def cvrp_relabelled(instance: Instance, style: NodeIdStyle) -> RelabelledScript:
    """CVRP as written for a statement that renames every node and lists customers in reverse.

    The script keeps the statement's ids in its data, turns them into positions with
    ``node_ids`` / ``id2idx`` (listing order, per the output protocol) and indexes ``x`` by
    those positions, so internal node ``p`` does not sit at position ``p``. Capacity and subtours
    are handled by MTZ on loads, u_j in [d_j, Q].
    """
    _require(instance, "CVRP")
    _require_simple_fleet(instance)
    listing = [0, *reversed(instance.customer_nodes)]
    id_of = dict(zip(listing, _statement_ids(instance, style), strict=True))

    def literal(node: int) -> str:
        return repr(id_of[node]) if style is NodeIdStyle.LETTERS else id_of[node]

    distances = instance.distances
    travel = [
        f"    {literal(a)}: {{" + ", ".join(f"{literal(b)}: {distances[a][b]!r}" for b in listing) + "},"
        for a in listing
    ]
    demand = ", ".join(f"{literal(c)}: {float(instance.customer(c).demand)!r}" for c in listing[1:])
    vehicle = instance.vehicles[0]
    data = "\n".join(
        [
            f"DEPOT_ID = {literal(0)}",
            f"DEMAND = {{{demand}}}",
            "TRAVEL = {",
            *travel,
            "}",
            f"Q = {vehicle.capacity!r}",
            f"K = {len(instance.vehicles)}",
            f"FIXED_COST = {float(vehicle.fixed_cost)!r}",
            f"COST_PER_DISTANCE = {float(vehicle.cost_per_distance)!r}",
            "",
            f"node_ids = [{', '.join(literal(node) for node in listing)}]",
            "id2idx = {bid: i for i, bid in enumerate(node_ids)}",
            "idx2id = {i: bid for bid, i in id2idx.items()}",
            "N = len(node_ids)",
        ]
    )
    doc = f"CVRP for a statement with {style.value} node ids; MTZ on loads."
    code = _script(doc, data, [_RELABELLED_BODY])
    return RelabelledScript(code=code, node_id_map={str(node): id_of[node] for node in listing})

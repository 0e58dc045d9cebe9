"""The independent checker: prices a route plan and names the constraint families it breaks.

It is the solver-free second opinion on everything downstream (gold optima, probes, regenerated
models), so it implements docs/semantics.md directly in plain Python and must never import
gurobipy. Each defect is attributed to exactly one atomic rule (``Rule``) and through it to one
family, following the "checker attribution" column of that page, so that a probe built to break
one rule is reported as breaking only it.

Decisions that the semantics page leaves to the checker:

* Malformed solutions never raise. A vehicle id, depot id or visited node that does not exist,
  or a depot listed among the visits, is a ``route_structure`` violation; such a route cannot be
  evaluated further, so it is not priced and nothing else is judged on it, but the customers it
  names still count as visited (otherwise one defect would also show up as ``coverage``).
* A route with no visits means the vehicle stays at home: it is ignored, pays no fixed cost and is
  never a second route of its vehicle.
* A ``Cycle`` is a ``subtour`` and nothing else: its customers count as visited, it is priced at
  its vehicle's per-distance cost (1 when it names no vehicle), and customers on cycles or on
  unevaluable routes are exempt from pairing, precedence and split-quantity accounting.
* A pickup-delivery pair that is not served completely and in order on one route is reported by
  ``pairing`` or ``precedence`` only; it does not also load the vehicle in the on-board profile.
* Split delivery: a visit quantity outside ``[0, demand]`` is ``delivery_coupling``; a customer
  whose quantities are all given and do not add up to its demand is ``coverage``; a route's given
  quantities above its capacity, or free visits (routes without ``deliveries``) whose demand no
  assignment can fit into the visiting vehicles' spare capacities, are ``capacity``.
* Route structure: a vehicle with several routes breaks ``fleet_size`` where its depot's vehicles
  drive more routes than the depot has vehicles (one route too many, whichever vehicle the plan
  names for it), else ``one_route`` (another vehicle of the depot stays home: with identical
  vehicles a relabelling repairs it, with distinct ones it does not).
* A VRPB route that starts with a backhaul breaks ``linehaul_start`` (a route of backhauls only
  breaks nothing else); a linehaul after a backhaul breaks ``linehaul_first``; a route may break
  both. A late customer breaks ``window_close`` and a late return ``depot_close`` (one violation of
  each per route).
* Every numeric comparison allows the absolute tolerance ``tol``.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from vrpcoder.families import Family, Rule
from vrpcoder.instances import Instance, Vehicle
from vrpcoder.solutions import Cycle, Route, Solution
from vrpcoder.variants import Module

_FAMILY_ORDER = {family: index for index, family in enumerate(Family)}
_RULE_ORDER = {rule: index for index, rule in enumerate(Rule)}


@dataclass(frozen=True, slots=True)
class Violation:
    """One defect, in words a person can act on (which route or customer, by how much), named by
    the atomic rule it breaks."""

    rule: Rule
    detail: str
    vehicle: int | None = None

    @property
    def family(self) -> Family:
        return self.rule.family


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Cost of the plan under the instance's objective, and its defects in family order."""

    cost: float
    violations: tuple[Violation, ...]

    @property
    def feasible(self) -> bool:
        return not self.violations

    @property
    def families(self) -> tuple[Family, ...]:
        """Distinct violated families, in the order ``Family`` declares them."""
        return tuple(sorted({v.family for v in self.violations}, key=_FAMILY_ORDER.__getitem__))

    @property
    def rules(self) -> tuple[Rule, ...]:
        """Distinct broken rules, in the order ``Rule`` declares them."""
        return tuple(sorted({v.rule for v in self.violations}, key=_RULE_ORDER.__getitem__))


# ---- building blocks (for a route whose vehicle and nodes exist) -----------------------------


def is_open(instance: Instance) -> bool:
    return instance.has(Module.OPEN)


def route_path(instance: Instance, route: Route) -> list[int]:
    """Nodes driven in order; open routes stop at the last customer."""
    _require_evaluable(instance, route)
    if not route.visits:
        return [route.depot]
    tail = [] if is_open(instance) else [route.end]
    return [route.depot, *route.visits, *tail]


def path_length(instance: Instance, nodes: Sequence[int]) -> float:
    dist = instance.distances
    return sum(dist[a][b] for a, b in pairwise(nodes))


def route_distance(instance: Instance, route: Route) -> float:
    """Travelled distance; the return leg of open routes is neither driven nor limited."""
    return path_length(instance, route_path(instance, route))


def cycle_distance(instance: Instance, cycle: Cycle) -> float:
    return path_length(instance, [*cycle.visits, cycle.visits[0]])


def route_load(instance: Instance, route: Route) -> float:
    """Scalar load: the given delivered quantities for split routes that carry them, else the
    customers' full demands (for VRPB this mixes linehaul and backhaul; see backhaul_loads)."""
    _require_evaluable(instance, route)
    if instance.has(Module.SPLIT) and route.deliveries is not None:
        return sum(route.deliveries)
    return sum(instance.customer(c).demand for c in route.visits)


def backhaul_loads(instance: Instance, route: Route) -> tuple[float, float]:
    """(linehaul, backhaul) totals: VRPB unloads every delivery before it picks anything up, so the
    two never share the vehicle and each is bounded by Q on its own."""
    _require_evaluable(instance, route)
    customers = [instance.customer(c) for c in route.visits]
    linehaul = sum(c.demand for c in customers if not c.backhaul)
    return linehaul, sum(c.demand for c in customers if c.backhaul)


def compartment_loads(instance: Instance, route: Route) -> tuple[float, ...]:
    _require_evaluable(instance, route)
    width = len(instance.customers[0].compartment_demand or ())
    totals = [0.0] * width
    for c in route.visits:
        for index, amount in enumerate(instance.customer(c).compartment_demand or ()):
            totals[index] += amount
    return tuple(totals)


def onboard_loads(instance: Instance, route: Route) -> list[float]:
    """Load on board after each visit (starting empty at the depot).

    Only pairs whose pickup precedes their delivery on this route move load: a pair served out of
    order or across routes is a precedence or pairing defect, and counting its quantity here would
    report the same defect a second time as capacity.
    """
    _require_evaluable(instance, route)
    first = {node: index for index, node in reversed(list(enumerate(route.visits)))}
    change = [0.0] * len(route.visits)
    for pair in instance.pairs:
        at_pickup, at_delivery = first.get(pair.pickup), first.get(pair.delivery)
        if at_pickup is not None and at_delivery is not None and at_pickup < at_delivery:
            change[at_pickup] += pair.quantity
            change[at_delivery] -= pair.quantity
    loads: list[float] = []
    load = 0.0
    for delta in change:
        load += delta
        loads.append(load)
    return loads


def schedule(instance: Instance, route: Route) -> list[float]:
    """Service start at each visit under the earliest schedule (leave the depot when it opens,
    wait whenever early). The earliest schedule is the only one needed: it makes every start as
    early as possible, so it is feasible if any schedule is and minimises every late penalty."""
    _require_evaluable(instance, route)
    dist = instance.distances
    window = instance.depots[route.depot].window
    node, time, service = route.depot, (0.0 if window is None else window.start), 0.0
    starts: list[float] = []
    for visit in route.visits:
        customer = instance.customer(visit)
        arrival = time + service + dist[node][visit]
        time = arrival if customer.window is None else max(arrival, customer.window.start)
        starts.append(time)
        node, service = visit, customer.service_time
    return starts


def return_time(instance: Instance, route: Route) -> float:
    """Arrival back at the depot under the earliest schedule (closed routes)."""
    starts = schedule(instance, route)
    if not route.visits:
        window = instance.depots[route.depot].window
        return 0.0 if window is None else window.start
    last = route.visits[-1]
    return starts[-1] + instance.customer(last).service_time + instance.distances[last][route.end]


def lateness_penalty(instance: Instance, route: Route) -> float:
    """Soft windows: the penalty for starting service after each window closes."""
    total = 0.0
    for visit, start in zip(route.visits, schedule(instance, route), strict=True):
        customer = instance.customer(visit)
        if customer.late_penalty is not None and customer.window is not None:
            total += customer.late_penalty * max(0.0, start - customer.window.end)
    return total


def travel_cost(instance: Instance, route: Route) -> float:
    """Per-distance cost of the route plus its soft-window penalties (no fixed cost: that is paid
    once per used vehicle, however many routes a malformed plan gives it)."""
    rate = instance.vehicles[route.vehicle].cost_per_distance
    return rate * route_distance(instance, route) + lateness_penalty(instance, route)


def route_cost(instance: Instance, route: Route) -> float:
    """Objective contribution of one non-empty route, its vehicle's fixed cost included."""
    return instance.vehicles[route.vehicle].fixed_cost + travel_cost(instance, route)


def _require_evaluable(instance: Instance, route: Route) -> None:
    problems = _node_problems(instance, route)
    if problems:
        raise ValueError(f"route of vehicle {route.vehicle} cannot be evaluated: {'; '.join(problems)}")


def _node_problems(instance: Instance, route: Route) -> list[str]:
    """Defects that leave a route without a meaning (nothing else can be judged on it)."""
    out: list[str] = []
    if route.vehicle >= len(instance.vehicles):
        out.append(f"vehicle {route.vehicle} does not exist (fleet of {len(instance.vehicles)})")
    if route.depot >= instance.num_depots:
        out.append(f"depot {route.depot} does not exist ({instance.num_depots} depot(s))")
    if route.end_depot is not None and route.end_depot >= instance.num_depots:
        out.append(f"end depot {route.end_depot} does not exist ({instance.num_depots} depot(s))")
    unknown = sorted({v for v in route.visits if v >= instance.num_nodes})
    if unknown:
        out.append(f"visits unknown node(s) {unknown} (nodes are 0..{instance.num_nodes - 1})")
    depots = sorted({v for v in route.visits if v < instance.num_depots})
    if depots:
        out.append(f"passes through depot(s) {depots} between customers")
    return out


# ---- the check -------------------------------------------------------------------------------


def check(instance: Instance, solution: Solution, *, tol: float = 1e-6) -> CheckReport:
    """Price ``solution`` on ``instance`` and list its violations (see the module docstring)."""
    violations: list[Violation] = []
    routes: list[Route] = []
    excused: set[int] = set()
    all_visits: list[int] = []
    for route in (r for r in solution.routes if r.visits):
        all_visits.extend(v for v in route.visits if v in instance.customer_nodes)
        problems = _node_problems(instance, route)
        if problems:
            violations.append(_structure(route, "; ".join(problems)))
            excused.update(v for v in route.visits if v in instance.customer_nodes)
        else:
            routes.append(route)
    cycle_cost, cycle_violations, cycle_customers = _cycles(instance, solution.cycles)
    violations.extend(cycle_violations)
    excused |= cycle_customers
    all_visits.extend(_cycle_visits(instance, solution.cycles))

    violations.extend(_fleet_structure(instance, routes))
    violations.extend(_coverage(instance, all_visits))
    for route in routes:
        violations.extend(_route_violations(instance, route, tol))
    if instance.has(Module.SPLIT):
        violations.extend(_split_quantities(instance, routes, excused, all_visits, tol))
    if instance.has(Module.PD):
        violations.extend(_pairs(instance, routes, excused, all_visits))

    used = {r.vehicle for r in routes}
    cost = sum(instance.vehicles[k].fixed_cost for k in used)
    cost += sum(travel_cost(instance, r) for r in routes)
    ordered = sorted(violations, key=lambda v: (_FAMILY_ORDER[v.family], _RULE_ORDER[v.rule]))
    return CheckReport(cost=cost + cycle_cost, violations=tuple(ordered))


def _cycle_visits(instance: Instance, cycles: Iterable[Cycle]) -> list[int]:
    """Customer visits made on cycles (with repetitions), ignoring nodes that are not customers."""
    return [v for cycle in cycles for v in cycle.visits if v in instance.customer_nodes]


def _structure(route: Route, detail: str, rule: Rule = Rule.WELL_FORMED) -> Violation:
    return Violation(rule, f"route of vehicle {route.vehicle}: {detail}", route.vehicle)


def _cycles(instance: Instance, cycles: Sequence[Cycle]) -> tuple[float, list[Violation], set[int]]:
    cost = 0.0
    out: list[Violation] = []
    customers: set[int] = set()
    for cycle in cycles:
        customers.update(v for v in cycle.visits if v in instance.customer_nodes)
        vehicle: Vehicle | None = None
        if cycle.vehicle is not None and cycle.vehicle >= len(instance.vehicles):
            out.append(
                Violation(
                    Rule.WELL_FORMED,
                    f"cycle {list(cycle.visits)} names vehicle {cycle.vehicle}, which does not exist",
                    cycle.vehicle,
                )
            )
        elif cycle.vehicle is not None:
            vehicle = instance.vehicles[cycle.vehicle]
        strays = sorted({v for v in cycle.visits if v not in instance.customer_nodes})
        if strays:
            out.append(
                Violation(
                    Rule.WELL_FORMED,
                    f"cycle {list(cycle.visits)} contains non-customer node(s) {strays}",
                    cycle.vehicle,
                )
            )
            continue
        rate = 1.0 if vehicle is None else vehicle.cost_per_distance
        cost += rate * cycle_distance(instance, cycle)
        out.append(
            Violation(
                Rule.NO_CYCLE,
                f"customers {list(cycle.visits)} form a cycle that never reaches a depot",
                cycle.vehicle,
            )
        )
    return cost, out, customers


def _fleet_structure(instance: Instance, routes: Sequence[Route]) -> list[Violation]:
    out: list[Violation] = []
    for route in routes:
        home = instance.vehicles[route.vehicle].depot
        if route.depot != home:
            detail = f"starts at depot {route.depot}, but the vehicle belongs to depot {home}"
            out.append(_structure(route, detail, Rule.OWN_DEPOT))
        if route.end_depot is not None and route.end_depot != route.depot:
            where = "an open route ends at its last customer" if is_open(instance) else f"it starts at depot {route.depot}"
            out.append(_structure(route, f"ends at depot {route.end_depot}, but {where}", Rule.RETURN_DEPOT))
        if instance.has(Module.SPLIT):
            repeated = sorted(c for c, n in Counter(route.visits).items() if n > 1)
            if repeated:
                out.append(_structure(route, f"visits customer(s) {repeated} more than once", Rule.SPLIT_VISIT_ONCE))
    counts = Counter(r.vehicle for r in routes)
    fleet = Counter(v.depot for v in instance.vehicles)
    driven: Counter[int] = Counter()
    for vehicle, n in counts.items():
        driven[instance.vehicles[vehicle].depot] += n
    for depot in sorted(d for d, n in driven.items() if n > fleet[d]):
        detail = f"the vehicles of depot {depot} drive {driven[depot]} routes, but the depot has {fleet[depot]} vehicle(s)"
        out.append(Violation(Rule.FLEET_SIZE, detail))
    for vehicle, n in sorted(counts.items()):
        if n > 1 and driven[instance.vehicles[vehicle].depot] <= fleet[instance.vehicles[vehicle].depot]:
            out.append(Violation(Rule.ONE_ROUTE, f"vehicle {vehicle} drives {n} routes (at most one)", vehicle))
    return out


def _coverage(instance: Instance, visits: Sequence[int]) -> list[Violation]:
    counts = Counter(visits)
    split = instance.has(Module.SPLIT)
    out: list[Violation] = []
    for customer in instance.customer_nodes:
        n = counts.get(customer, 0)
        if n == 0:
            out.append(Violation(Rule.VISITED, f"customer {customer} is never visited"))
        elif n > 1 and not split:
            out.append(Violation(Rule.VISITED_ONCE, f"customer {customer} is visited {n} times (exactly once)"))
    return out


def _route_violations(instance: Instance, route: Route, tol: float) -> list[Violation]:
    vehicle = instance.vehicles[route.vehicle]
    out: list[Violation] = []
    if vehicle.capacity is not None and not instance.has(Module.SPLIT):
        for rule, detail in _capacity_excess(instance, route, vehicle.capacity, tol):
            out.append(Violation(rule, f"route of vehicle {route.vehicle}: {detail}", route.vehicle))
    if instance.has(Module.MC):
        out.extend(_compartments(instance, route, vehicle, tol))
    limit = instance.max_route_distance
    if limit is not None:
        distance = route_distance(instance, route)
        if distance > limit + tol:
            detail = f"drives {distance:.6g}, above the limit {limit:.6g} by {distance - limit:.6g}"
            out.append(
                Violation(Rule.ROUTE_DISTANCE, f"route of vehicle {route.vehicle}: {detail}", route.vehicle)
            )
    if instance.has(Module.HTW):
        out.extend(_late_visits(instance, route, tol))
    if instance.has(Module.BH):
        out.extend(_backhaul_order(instance, route))
    return out


def _capacity_excess(instance: Instance, route: Route, capacity: float, tol: float) -> list[tuple[Rule, str]]:
    if instance.has(Module.BH):
        linehaul, backhaul = backhaul_loads(instance, route)
        return [
            (rule, f"{name} load {load:.6g} exceeds capacity {capacity:.6g}")
            for rule, name, load in ((Rule.LOAD, "linehaul", linehaul), (Rule.BACKHAUL_LOAD, "backhaul", backhaul))
            if load > capacity + tol
        ]
    if instance.has(Module.PD):
        loads = onboard_loads(instance, route)
        peak = max(loads, default=0.0)
        if peak > capacity + tol:
            where = route.visits[loads.index(peak)]
            return [(Rule.LOAD, f"on-board load reaches {peak:.6g} after node {where}, above capacity {capacity:.6g}")]
        return []
    load = route_load(instance, route)
    if load > capacity + tol:
        return [(Rule.LOAD, f"load {load:.6g} exceeds capacity {capacity:.6g} by {load - capacity:.6g}")]
    return []


def _compartments(instance: Instance, route: Route, vehicle: Vehicle, tol: float) -> list[Violation]:
    limits = vehicle.compartment_capacity or ()
    out: list[Violation] = []
    for index, (load, limit) in enumerate(zip(compartment_loads(instance, route), limits, strict=True)):
        if load > limit + tol:
            out.append(
                Violation(
                    Rule.COMPARTMENT_LOAD,
                    f"route of vehicle {route.vehicle}: compartment {index} carries {load:.6g}, "
                    f"above its capacity {limit:.6g}",
                    route.vehicle,
                )
            )
    return out


def _late_visits(instance: Instance, route: Route, tol: float) -> list[Violation]:
    """One ``window_close`` violation naming the route's late customers, and one ``depot_close``
    when it is back after its depot closes."""
    late: list[str] = []
    for visit, start in zip(route.visits, schedule(instance, route), strict=True):
        window = instance.customer(visit).window
        if window is not None and start > window.end + tol:
            late.append(f"customer {visit} starts at {start:.6g} after its window closes at {window.end:.6g}")
    prefix = f"route of vehicle {route.vehicle}: "
    out = [Violation(Rule.WINDOW_CLOSE, prefix + "; ".join(late), route.vehicle)] if late else []
    depot_window = instance.depots[route.end].window
    if depot_window is not None and not is_open(instance):
        back = return_time(instance, route)
        if back > depot_window.end + tol:
            detail = f"returns to depot {route.end} at {back:.6g}, after it closes at {depot_window.end:.6g}"
            out.append(Violation(Rule.DEPOT_CLOSE, prefix + detail, route.vehicle))
    return out


def _backhaul_order(instance: Instance, route: Route) -> list[Violation]:
    """Every route starts with a linehaul customer (so no route serves backhauls only), and no
    linehaul comes after a backhaul (docs/semantics.md): two rules, judged apart."""
    out: list[Violation] = []
    prefix = f"route of vehicle {route.vehicle}: "
    if route.visits and instance.customer(route.visits[0]).backhaul:
        only = all(instance.customer(v).backhaul for v in route.visits)
        what = "serves only backhaul customers" if only else "starts with a backhaul customer"
        detail = f"{what} ({route.visits[0]} first); every route starts with a linehaul customer"
        out.append(Violation(Rule.LINEHAUL_START, prefix + detail, route.vehicle))
    seen_backhaul: int | None = None
    for visit in route.visits:
        if instance.customer(visit).backhaul:
            seen_backhaul = visit if seen_backhaul is None else seen_backhaul
        elif seen_backhaul is not None:
            detail = f"linehaul customer {visit} is served after backhaul customer {seen_backhaul}"
            out.append(Violation(Rule.LINEHAUL_FIRST, prefix + detail, route.vehicle))
            break
    return out


def _pairs(
    instance: Instance, routes: Sequence[Route], excused: set[int], visits: Sequence[int]
) -> list[Violation]:
    """Pairing and precedence for pairs whose two nodes are each visited once on an evaluable
    route (anything else is already a coverage, subtour or route-structure defect)."""
    counts = Counter(visits)
    where: dict[int, tuple[int, int]] = {}
    for index, route in enumerate(routes):
        for position, node in enumerate(route.visits):
            where.setdefault(node, (index, position))
    out: list[Violation] = []
    for pair in instance.pairs:
        nodes = (pair.pickup, pair.delivery)
        if any(n in excused or counts.get(n, 0) != 1 or n not in where for n in nodes):
            continue
        (route_p, pos_p), (route_d, pos_d) = where[pair.pickup], where[pair.delivery]
        if route_p != route_d:
            vp, vd = routes[route_p].vehicle, routes[route_d].vehicle
            detail = (
                f"pickup {pair.pickup} rides with vehicle {vp} but delivery {pair.delivery} with vehicle {vd}"
            )
            out.append(Violation(Rule.SAME_VEHICLE, detail))
        elif pos_p > pos_d:
            vehicle = routes[route_p].vehicle
            detail = (
                f"route of vehicle {vehicle}: delivery {pair.delivery} comes before its pickup {pair.pickup}"
            )
            out.append(Violation(Rule.PICKUP_FIRST, detail, vehicle))
    return out


def _split_quantities(
    instance: Instance, routes: Sequence[Route], excused: set[int], visits: Sequence[int], tol: float
) -> list[Violation]:
    out: list[Violation] = []
    visited = set(visits)
    given: dict[int, float] = {}
    free_visitors: dict[int, set[int]] = {}
    bad: set[int] = set()
    spare: list[float] = []
    for index, route in enumerate(routes):
        capacity = instance.vehicles[route.vehicle].capacity
        if route.deliveries is None:
            spare.append(float("inf") if capacity is None else capacity)
            for customer in route.visits:
                free_visitors.setdefault(customer, set()).add(index)
            continue
        for customer, amount in zip(route.visits, route.deliveries, strict=True):
            demand = instance.customer(customer).demand
            if amount < -tol or amount > demand + tol:
                bad.add(customer)
                detail = f"route of vehicle {route.vehicle}: delivers {amount:.6g} to customer {customer}"
                out.append(
                    Violation(Rule.DELIVERY_COUPLING, f"{detail}, outside [0, {demand:.6g}]", route.vehicle)
                )
            given[customer] = given.get(customer, 0.0) + amount
        load = sum(route.deliveries)
        if capacity is not None and load > capacity + tol:
            detail = f"route of vehicle {route.vehicle}: delivers {load:.6g}, above capacity {capacity:.6g}"
            out.append(Violation(Rule.LOAD, detail, route.vehicle))
        spare.append(0.0)

    remaining: dict[int, float] = {}
    for customer in instance.customer_nodes:
        if customer in excused or customer in bad or customer not in visited:
            continue
        rest = instance.customer(customer).demand - given.get(customer, 0.0)
        if rest < -tol or (rest > tol and customer not in free_visitors):
            delivered = given.get(customer, 0.0)
            demand = instance.customer(customer).demand
            out.append(
                Violation(Rule.DEMAND_MET, f"customer {customer} receives {delivered:.6g} of {demand:.6g}")
            )
        elif rest > tol:
            remaining[customer] = rest

    assigned, saturated = _max_assignable(remaining, free_visitors, spare, tol)
    shortfall = sum(remaining.values()) - assigned
    if shortfall > tol:
        stuck = sorted({routes[i].vehicle for i in saturated})
        detail = (
            f"no split of the open demand fits the capacities of the visiting vehicles: vehicle(s) {stuck} "
            f"would need {shortfall:.6g} more"
        )
        out.append(Violation(Rule.LOAD, detail, stuck[0] if len(stuck) == 1 else None))
    return out


def _max_assignable(
    demand: dict[int, float], visitors: dict[int, set[int]], spare: Sequence[float], tol: float
) -> tuple[float, set[int]]:
    """Most demand that can be assigned to visiting routes within their spare capacity, and the
    routes on the source side of a minimum cut (the full ones that block the rest).

    A bipartite max-flow (source -> customer -> visiting route -> sink) solved by shortest
    augmenting paths; the instances are tiny, so clarity beats speed here.
    """
    customers = sorted(demand)
    source, sink = 0, 1 + len(customers) + len(spare)
    size = sink + 1
    capacity = [[0.0] * size for _ in range(size)]
    for i, customer in enumerate(customers, start=1):
        capacity[source][i] = demand[customer]
        for route in visitors[customer]:
            capacity[i][1 + len(customers) + route] = float("inf")
    for route, room in enumerate(spare):
        capacity[1 + len(customers) + route][sink] = max(0.0, room)

    total = 0.0
    while True:
        parent = [-1] * size
        parent[source] = source
        queue = deque([source])
        while queue and parent[sink] == -1:
            node = queue.popleft()
            for nxt in range(size):
                if parent[nxt] == -1 and capacity[node][nxt] > tol:
                    parent[nxt] = node
                    queue.append(nxt)
        if parent[sink] == -1:
            first_route = 1 + len(customers)
            return total, {node - first_route for node in range(first_route, sink) if parent[node] != -1}
        bottleneck = float("inf")
        node = sink
        while node != source:
            bottleneck = min(bottleneck, capacity[parent[node]][node])
            node = parent[node]
        node = sink
        while node != source:
            capacity[parent[node]][node] -= bottleneck
            capacity[node][parent[node]] += bottleneck
            node = parent[node]
        total += bottleneck

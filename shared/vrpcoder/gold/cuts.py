"""The joint ``valid_inequalities`` module: cuts implied by several rules together.

Three-index models with only per-vehicle knapsacks and MTZ have weak relaxations; the solver then
needs seconds to minutes at 12 customers. These cuts close most of the gap (many instances solve at
the root) and every legal plan satisfies them, so the feasible set is unchanged:

* an on-board load flow on the aggregated arcs (goods leave the depot and drop at each customer)
  bounded by the vehicle capacity (single-commodity flow with the tightened bounds), and a
  collected-load flow for backhauls;
* rounded capacity inequalities ``arcs entering S >= ceil(demand(S) / Q)`` on the script's
  ``GROUPS`` (each customer with its nearest neighbours, runs in angular order around the depots,
  all customers), raised to the size of a set of customers whose hard windows clash pairwise;
* per-vehicle links: a vehicle serves customers only if it leaves its depot, within its capacity;
  heterogeneous fleets also get capacity-weighted entering cuts and a fleet-room bound; hard
  windows a per-vehicle bound on driving plus service time;
* pickup and delivery: no route starts with a delivery or ends with a pickup, pickups have lower
  positions (and earlier service) than their deliveries, the load never drops below zero, requests
  that do not fit together never share the vehicle, and groups are crossed by enough loaded arcs.

Each cut mixes families (a capacity-bounded flow also rules out subtours), which is why they live
in one joint module that must be dropped whenever a family module is dropped or rewritten.
"""

from __future__ import annotations

from vrpcoder.gold.code import AuxModule, CodeModule, make_module
from vrpcoder.gold.features import ScriptFeatures

_NOTE = """
    # Cuts that hold because the rules hold together (capacity and connectivity). They exclude no
    # legal plan and make the solve much faster; a variant of this script that drops or changes
    # any rule must drop this module as well.
"""

_ON_BOARD_FLOW = """
    # Goods on board leave the depot and drop by each customer's demand; on every arc they are at
    # least the next customer's demand and at most the vehicle's room left after the last one.
    legs = [(i, j) for i, j in arcs if j in {served}]
    on_board = m.addVars(legs, name="on_board")
    for i, j in legs:
        dropped = DEMAND[i] if i in {served} else 0.0
        m.addConstr(on_board[i, j] >= DEMAND[j] * arc[i, j], name=f"on_board_min[{i},{j}]")
        room = {room}
        m.addConstr(on_board[i, j] <= room, name=f"on_board_max[{i},{j}]")
    for j in {served}:
        m.addConstr(on_board.sum("*", j) - on_board.sum(j, "*") == DEMAND[j], name=f"on_board_drop[{j}]")
"""

_COLLECTED_FLOW = """
    # Goods collected at backhaul customers grow by each one's demand until the depot; on every arc
    # they are at least the last customer's demand and at most the room left for the next one.
    legs = [(i, j) for i, j in arcs if i in BACKHAUL]
    collected = m.addVars(legs, name="collected")
    for i, j in legs:
        still = DEMAND[j] if j in BACKHAUL else 0.0
        m.addConstr(collected[i, j] >= DEMAND[i] * arc[i, j], name=f"collected_min[{i},{j}]")
        room = {room}
        m.addConstr(collected[i, j] <= room, name=f"collected_max[{i},{j}]")
    for i in BACKHAUL:
        m.addConstr(collected.sum(i, "*") - collected.sum("*", i) == DEMAND[i], name=f"collected_gain[{i}]")
"""

_GROUPS = """
    # Rounded capacity cuts: the vehicles entering a group of customers must carry its demand, so at
    # least ceil(demand / largest capacity) of them enter it.
    for number, group in enumerate(GROUPS):
        needed = {needed}
        if needed >= 2:
            entering = gp.quicksum({arc_use} for i in range(N) for j in group if i not in group)
            m.addConstr(entering >= needed, name=f"rounded_capacity[{number}]")
"""

_CLASHES = """
    # Customers whose windows keep them off a common route each need their own vehicle, so a group
    # holding such customers is entered at least once per customer of the largest clashing set found.
    shortest = [row[:] for row in DIST]
    for via in range(N):
        for i in range(N):
            for j in range(N):
                shortest[i][j] = min(shortest[i][j], shortest[i][via] + shortest[via][j])
    earliest = {i: max(WINDOW[i][0], min(WINDOW[d][0] + shortest[d][i] for d in DEPOTS)) for i in CUSTOMERS}
    def can_follow(i, j):
        begin = max(earliest[i] + SERVICE[i] + shortest[i][j], WINDOW[j][0])
        back = begin + SERVICE[j] + min(shortest[j][d] for d in DEPOTS)
        return begin <= WINDOW[j][1] and (OPEN_ROUTES or back <= max(WINDOW[d][1] for d in DEPOTS))
    def clashing(group):
        chosen = []
        for j in sorted(group, key=lambda j: (WINDOW[j][1], j)):
            if not any(can_follow(i, j) or can_follow(j, i) for i in chosen):
                chosen.append(j)
        return len(chosen)
"""

_DURATION = """
    # Driving and service along a route fit between the depot's opening and the latest moment any
    # route can finish (the last window's end, its service and, for closed routes, the way back).
    finish = max(WINDOW[j][1] + SERVICE[j] + (0.0 if OPEN_ROUTES else max(DIST[j][d] for d in DEPOTS)) for j in CUSTOMERS)
    if not OPEN_ROUTES:
        finish = min(finish, max(WINDOW[d][1] for d in DEPOTS))
    for k in range(K):
        busy = gp.quicksum(
            ((SERVICE[i] if i in CUSTOMERS else 0.0) + LEG[i][j]) * x[i, j, k] for i in range(N) for j in range(N) if i != j
        )
        m.addConstr(busy <= finish - WINDOW[VEHICLE_DEPOT[k]][0], name=f"duration[{k}]")
"""

_SCALAR_NEED = "math.ceil(sum(DEMAND[i] for i in group) / max(CAPACITY) - 1e-9)"
_COMPARTMENT_NEED = """max(
            [math.ceil(sum(DEMAND[i] for i in group) / max(CAPACITY) - 1e-9)]
            + [
                math.ceil(sum(COMPARTMENT_DEMAND[i][c] for i in group) / max(room[c] for room in COMPARTMENT_CAPACITY) - 1e-9)
                for c in range(len(COMPARTMENT_CAPACITY[0]))
            ]
        )"""
_BACKHAUL_NEED = """max(
            math.ceil(sum(DEMAND[i] for i in group if i in LINEHAUL) / max(CAPACITY) - 1e-9),
            math.ceil(sum(DEMAND[i] for i in group if i in BACKHAUL) / max(CAPACITY) - 1e-9),
        )"""

_HETEROGENEOUS_GROUPS = """
    # Each vehicle that enters a group carries at most its own capacity into it.
    for number, group in enumerate(GROUPS):
        room = gp.quicksum(
            CAPACITY[k] * x[i, j, k] for i in range(N) for j in group if i not in group for k in range(K)
        )
        m.addConstr(room >= sum(DEMAND[i] for i in group), name=f"vehicle_room[{number}]")
"""

_HETEROGENEOUS_FLEET = """
    # The vehicles that leave their depots have room for all demand.
    m.addConstr(gp.quicksum(CAPACITY[k] * used[k] for k in range(K)) >= sum(DEMAND.values()), name="fleet")
"""

_HETEROGENEOUS_COMPARTMENT_FLEET = """
    for c in range(len(COMPARTMENT_CAPACITY[0])):
        room = gp.quicksum(COMPARTMENT_CAPACITY[k][c] * used[k] for k in range(K))
        m.addConstr(room >= sum(COMPARTMENT_DEMAND[i][c] for i in CUSTOMERS), name=f"fleet_compartment[{c}]")
"""

_USED = """
    # A vehicle serves customers only if it leaves its depot, and then within its capacity.
    for k in range(K):
        for i in CUSTOMERS:
            m.addConstr(visit[i, k] <= used[k], name=f"visit_if_used[{i},{k}]")
        for side, part in enumerate({parts}):
            load = gp.quicksum(DEMAND[i] * visit[i, k] for i in part)
            m.addConstr(load <= CAPACITY[k] * used[k], name=f"load_if_used[{k},{side}]")
"""

_SPLIT_USE = """
    # A vehicle delivers only if it leaves its depot.
    for k in range(K):
        m.addConstr(q.sum("*", k) <= CAPACITY[k] * used[k], name=f"deliver_if_used[{k}]")
"""


_PICKUP_DELIVERY = """
    # A request's pickup comes before its delivery on one route, so a route never starts with a
    # delivery or ends with a pickup, the pickup's position is lower, and the load never drops below 0.
    for p, d, _ in PAIRS:
        for k in range(K):
            x[VEHICLE_DEPOT[k], d, k].UB = 0.0
            x[p, VEHICLE_DEPOT[k], k].UB = 0.0
        m.addConstr(position[p] + 1 <= position[d], name=f"pickup_first[{p},{d}]")
"""

_LOAD_FLOOR = """
    for j in CUSTOMERS:
        carried[j].LB = 0.0
    # Two requests whose goods do not fit together are never on board at the same moment.
    for p, d, qty in PAIRS:
        for p2, d2, qty2 in PAIRS:
            if p != p2 and qty + qty2 > max(CAPACITY) + 1e-9:
                for i, j in ((p, p2), (p, d2), (d, d2)):
                    for k in range(K):
                        x[i, j, k].UB = 0.0
"""

_PICKUP_DELIVERY_TIMES = """
    # Service at a delivery starts after its pickup's service and the shortest way between them.
    shortest = [row[:] for row in DIST]
    for via in range(N):
        for i in range(N):
            for j in range(N):
                shortest[i][j] = min(shortest[i][j], shortest[i][via] + shortest[via][j])
    for p, d, _ in PAIRS:
        m.addConstr(start[p] + SERVICE[p] + shortest[p][d] <= start[d], name=f"pickup_earlier[{p},{d}]")
"""


_PICKUP_DELIVERY_GROUPS = """
    # Goods picked up inside a group and delivered outside it leave the group on arcs that carry at
    # most a vehicle load each, and goods delivered inside from outside enter it likewise.
    for number, group in enumerate(GROUPS):
        inbound = sum(qty for p, d, qty in PAIRS if p not in group and d in group)
        outbound = sum(qty for p, d, qty in PAIRS if p in group and d not in group)
        entering = gp.quicksum(arc[i, j] for i in range(N) for j in group if i not in group and (i, j) in arc)
        leaving = gp.quicksum(arc[i, j] for i in group for j in range(N) if j not in group and (i, j) in arc)
        loads_in = math.ceil(inbound / max(CAPACITY) - 1e-9)
        loads_out = math.ceil(outbound / max(CAPACITY) - 1e-9)
        if loads_in >= 2:  # one entering arc is already required by subtour elimination
            m.addConstr(entering >= loads_in, name=f"enter_loaded[{number}]")
        if loads_out >= 2:
            m.addConstr(leaving >= loads_out, name=f"leave_loaded[{number}]")
"""


def pickup_delivery_cuts_module(f: ScriptFeatures) -> CodeModule:
    """Joint cuts of pickup-and-delivery variants (precedence and pairing with the route rules)."""
    if not f.pickup_delivery:
        raise ValueError("pickup-and-delivery cuts apply to pickup-and-delivery variants only")
    code = _NOTE + _PICKUP_DELIVERY
    if f.capacity:
        code += _LOAD_FLOOR + _PICKUP_DELIVERY_GROUPS
    if f.timed:
        code += _PICKUP_DELIVERY_TIMES
    return make_module(AuxModule.VALID_INEQUALITIES, code)


def _room(f: ScriptFeatures, less: str) -> str:
    """Capacity left on an arc after ``less``; per vehicle only when capacities differ."""
    if f.heterogeneous:
        return f"gp.quicksum((CAPACITY[k] - {less}) * x[i, j, k] for k in range(K))"
    return f"(max(CAPACITY) - {less}) * arc[i, j]"


def _need(f: ScriptFeatures) -> str:
    if f.compartments:
        return _COMPARTMENT_NEED
    if f.backhaul:
        return _BACKHAUL_NEED
    return _SCALAR_NEED


def valid_inequalities_module(f: ScriptFeatures) -> CodeModule:
    """Joint cuts for variants with a scalar capacity (pickup-and-delivery loads are profiles)."""
    if not f.capacity or f.pickup_delivery:
        raise ValueError("joint capacity cuts apply to scalar-capacity variants only")
    code = _NOTE
    if f.split:
        code += _SPLIT_USE
    elif f.backhaul:
        code += _ON_BOARD_FLOW.replace("{served}", "LINEHAUL").replace("{room}", _room(f, "dropped"))
        code += _COLLECTED_FLOW.replace("{room}", _room(f, "still"))
    else:
        code += _ON_BOARD_FLOW.replace("{served}", "CUSTOMERS").replace("{room}", _room(f, "dropped"))
    if not f.split:
        code += _USED.replace("{parts}", "(LINEHAUL, BACKHAUL)" if f.backhaul else "(CUSTOMERS,)")
    arc_use = 'x.sum(i, j, "*")' if f.split else "arc[i, j]"
    need = _need(f)
    if f.hard_windows:
        code += _DURATION + _CLASHES
        need = f"max({need}, clashing(group))"
    code += _GROUPS.replace("{needed}", need).replace("{arc_use}", arc_use)
    if f.heterogeneous:
        code += _HETEROGENEOUS_GROUPS + _HETEROGENEOUS_FLEET
        if f.compartments:
            code += _HETEROGENEOUS_COMPARTMENT_FLEET
    return make_module(AuxModule.VALID_INEQUALITIES, code)


def two_index_cuts_module(f: ScriptFeatures) -> CodeModule:
    """Joint cuts of the two-index model (one capacity for every vehicle, no vehicle index): the
    on-board load flows, and rounded capacity cuts raised by clashing windows."""
    if not f.capacity or f.heterogeneous or f.split or f.compartments or f.pickup_delivery:
        raise ValueError("two-index cuts apply to homogeneous scalar-capacity variants only")
    code = _NOTE
    if f.backhaul:
        code += _ON_BOARD_FLOW.replace("{served}", "LINEHAUL").replace("{room}", _room(f, "dropped"))
        code += _COLLECTED_FLOW.replace("{room}", _room(f, "still"))
    else:
        code += _ON_BOARD_FLOW.replace("{served}", "CUSTOMERS").replace("{room}", _room(f, "dropped"))
    need = _need(f)
    if f.hard_windows:
        code += _CLASHES
        need = f"max({need}, clashing(group))"
    code += _GROUPS.replace("{needed}", need).replace("{arc_use}", "arc[i, j]")
    return make_module(AuxModule.VALID_INEQUALITIES, code)

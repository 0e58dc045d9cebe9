"""The code modules of a gold script: a CVRP backbone plus one module per constraint family.

Mutants are derived by deleting or rewriting exactly one module, so each family's rule lives in its
own module and nowhere else. Variables and expressions that more than one module reads are declared
in the auxiliary ``variables`` module, so deleting any other module leaves a script that runs.
Every constraint is valid for every legal plan (probes are injected into these models, so cutting
off a legal plan would mislabel a probe); the only reduction of the search space is symmetry
breaking among identical vehicles, which any plan satisfies after relabelling them.

Cuts implied by several families together live in the joint ``valid_inequalities`` module
(:mod:`vrpcoder.gold.cuts`); the gold optimum does not depend on it, but a single-family mutant
must be derived from the script without it (``strip_joint_modules``), or it keeps part of the rule.

Couplings that no arc-based formulation avoids (each is the rule itself, not an extra cut): time
propagation (hard or soft windows) makes every customer-only cycle infeasible when travel or
service times are positive; the pickup-and-delivery load profile makes cycles with more load picked
up than delivered infeasible; the backhaul arc ban makes cycles mixing linehaul and backhaul
customers infeasible; capacity and distance limits count the customers and arcs of a vehicle's
cycles too. Deleting ``subtour`` from such a variant therefore admits only some cycles.
"""

from __future__ import annotations

from collections.abc import Callable

from vrpcoder.families import Family
from vrpcoder.gold.code import AuxModule, CodeModule, make_module
from vrpcoder.gold.cuts import pickup_delivery_cuts_module, two_index_cuts_module, valid_inequalities_module
from vrpcoder.gold.features import ScriptFeatures


def variables_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Routing variable: x[i, j, k] = 1 when vehicle k drives directly from node i to node j.
        x = m.addVars(N, N, K, vtype=GRB.BINARY, name="x")
        # visit[i, k]: vehicle k enters customer i.  used[k]: vehicle k leaves its depot.
        visit = {(i, k): x.sum("*", i, k) for i in CUSTOMERS for k in range(K)}
        used = {k: x.sum(VEHICLE_DEPOT[k], "*", k) for k in range(K)}
    """
    if f.split:
        code += """
        # Quantity of its demand that customer i receives from vehicle k.
        q = m.addVars(CUSTOMERS, range(K), lb=0.0, name="q")
        """
    else:
        code += """
        # arc[i, j]: how many vehicles drive i -> j (at most one, as each customer is visited once).
        # The solver branches on these aggregated arcs first, which is much faster than on x alone.
        # With a single vehicle the aggregate is x itself (no extra variables: larger tours fit the
        # size-limited licence).
        arcs = [(i, j) for i in range(N) for j in range(N) if i != j and not (i in DEPOTS and j in DEPOTS)]
        if K == 1:
            arc = {(i, j): x[i, j, 0] for i, j in arcs}
        else:
            arc = m.addVars(arcs, vtype=GRB.INTEGER, ub=K, name="arc")
            for i, j in arcs:
                m.addConstr(arc[i, j] == x.sum(i, j, "*"), name=f"arc[{i},{j}]")
                arc[i, j].BranchPriority = 1
        """
    if f.split:
        code += """
        # Position of customer i on the route of vehicle k (ordering for subtour elimination).
        position = m.addVars(CUSTOMERS, range(K), lb=1.0, ub=len(CUSTOMERS), name="position")
        """
    else:
        code += """
        # Position of each customer on its route (ordering for subtour elimination).
        position = m.addVars(CUSTOMERS, lb=1.0, ub=len(CUSTOMERS), name="position")
        """
    if f.timed:
        code += """
        # Time at which service starts at each customer.
        start = m.addVars(CUSTOMERS, name="start")
        """
    if f.soft_windows:
        code += """
        # Time units by which service at each customer starts after its window closes.
        late = m.addVars(CUSTOMERS, lb=0.0, name="late")
        """
    if f.pickup_delivery and f.capacity:
        code += """
        # Goods on board when a vehicle leaves each customer.
        carried = m.addVars(CUSTOMERS, lb=-GRB.INFINITY, name="carried")
        """
    return make_module(AuxModule.VARIABLES, code)


def route_structure_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Arcs no route may use: self loops, depot to depot, and arcs touching another vehicle's depot.
        for i in range(N):
            for j in range(N):
                for k in range(K):
                    foreign = any(node in DEPOTS and node != VEHICLE_DEPOT[k] for node in (i, j))
                    if i == j or (i in DEPOTS and j in DEPOTS) or foreign:
                        x[i, j, k].UB = 0.0
        # Each vehicle leaves its depot at most once and leaves every node it enters.
        for k in range(K):
            m.addConstr(used[k] <= 1, name=f"one_route[{k}]")
            for i in [VEHICLE_DEPOT[k], *CUSTOMERS]:
                m.addConstr(x.sum(i, "*", k) == x.sum("*", i, k), name=f"flow[{i},{k}]")
    """
    if f.split:
        code += """
        # A vehicle visits each customer at most once (several vehicles may share a customer).
        for i in CUSTOMERS:
            for k in range(K):
                m.addConstr(visit[i, k] <= 1, name=f"visit_once[{i},{k}]")
        """
    return make_module(Family.ROUTE_STRUCTURE, code)


def coverage_module(f: ScriptFeatures) -> CodeModule:
    if f.split:
        code = """
            # Every customer is visited and receives exactly its demand in total.
            for i in CUSTOMERS:
                m.addConstr(gp.quicksum(visit[i, k] for k in range(K)) >= 1, name=f"visited[{i}]")
                m.addConstr(q.sum(i, "*") == DEMAND[i], name=f"demand_met[{i}]")
        """
    else:
        code = """
            # Every customer is visited exactly once, by one vehicle.
            for i in CUSTOMERS:
                m.addConstr(gp.quicksum(visit[i, k] for k in range(K)) == 1, name=f"cover[{i}]")
        """
    return make_module(Family.COVERAGE, code)


def subtour_module(f: ScriptFeatures) -> CodeModule:
    if f.split:
        code = """
            # Each vehicle numbers the customers it visits; the number grows by one along each of its
            # customer-to-customer arcs, so no vehicle can drive a cycle that avoids its depot (MTZ,
            # lifted by Desrochers and Laporte; per vehicle because routes may share customers).
            n = len(CUSTOMERS)
            for k in range(K):
                for i in CUSTOMERS:
                    for j in CUSTOMERS:
                        if i != j:
                            m.addConstr(
                                position[i, k] - position[j, k] + n * x[i, j, k] + (n - 2) * x[j, i, k] <= n - 1,
                                name=f"subtour[{i},{j},{k}]",
                            )
        """
    else:
        code = """
            # Customers carry their position on the route; it grows by one along every customer-to-customer
            # arc, so a cycle that avoids every depot is impossible (MTZ, lifted by Desrochers and Laporte).
            n = len(CUSTOMERS)
            for i in CUSTOMERS:
                for j in CUSTOMERS:
                    if i != j:
                        m.addConstr(
                            position[i] - position[j] + n * arc[i, j] + (n - 2) * arc[j, i] <= n - 1,
                            name=f"subtour[{i},{j}]",
                        )
        """
    return make_module(Family.SUBTOUR, code)


def group_cuts_module(f: ScriptFeatures) -> CodeModule:
    """Every customer group is entered by some vehicle: strong subtour cuts, valid given coverage."""
    arc_use = 'x.sum(i, j, "*")' if f.split else "arc[i, j]"
    guard = "" if f.split else " and (i, j) in arc"
    code = f"""
        # Some vehicle enters every group of customers (they are all served, none by a detached cycle).
        for number, group in enumerate(GROUPS):
            entering = gp.quicksum({arc_use} for i in range(N) for j in group if i not in group{guard})
            m.addConstr(entering >= 1, name=f"enter_group[{{number}}]")
    """
    return make_module(AuxModule.GROUP_CUTS, code)


def capacity_module(f: ScriptFeatures) -> CodeModule:
    if f.split:
        code = """
            # A vehicle carries at most its capacity in total deliveries.
            for k in range(K):
                m.addConstr(q.sum("*", k) <= CAPACITY[k], name=f"capacity[{k}]")
        """
    elif f.pickup_delivery:
        code = """
            # Goods on board after serving each customer: a vehicle leaves its depot empty, loads at
            # pickups and unloads at deliveries; the load may never exceed the vehicle's capacity.
            change = {}
            for p, d, qty in PAIRS:
                change[p], change[d] = qty, -qty
            lowest = -sum(qty for _, _, qty in PAIRS)  # no running sum of changes falls below this
            top = max(CAPACITY)
            for j in CUSTOMERS:
                carried[j].LB, carried[j].UB = lowest, top
                from_depot = gp.quicksum(arc[d, j] for d in DEPOTS)
                m.addConstr(carried[j] >= change[j] - (change[j] - lowest) * (1 - from_depot), name=f"load_start[{j}]")
                for i in CUSTOMERS:
                    if i != j:
                        big_m = top + change[j] - lowest
                        m.addConstr(carried[j] >= carried[i] + change[j] - big_m * (1 - arc[i, j]), name=f"load[{i},{j}]")
                m.addConstr(
                    carried[j] <= gp.quicksum(CAPACITY[k] * visit[j, k] for k in range(K)), name=f"capacity[{j}]"
                )
        """
    elif f.backhaul:
        code = """
            # Goods delivered to linehaul customers and goods collected from backhaul customers each fit
            # the vehicle (they are never on board together).
            for k in range(K):
                delivered = gp.quicksum(DEMAND[i] * visit[i, k] for i in LINEHAUL)
                collected = gp.quicksum(DEMAND[i] * visit[i, k] for i in BACKHAUL)
                m.addConstr(delivered <= CAPACITY[k], name=f"capacity_linehaul[{k}]")
                m.addConstr(collected <= CAPACITY[k], name=f"capacity_backhaul[{k}]")
        """
    else:
        code = """
            # The demand of the customers on a route fits the vehicle.
            for k in range(K):
                load = gp.quicksum(DEMAND[i] * visit[i, k] for i in CUSTOMERS)
                m.addConstr(load <= CAPACITY[k], name=f"capacity[{k}]")
        """
    return make_module(Family.CAPACITY, code)


def compartment_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Goods of different compartments never mix: each compartment's load fits that compartment.
        for k in range(K):
            for c, room in enumerate(COMPARTMENT_CAPACITY[k]):
                load = gp.quicksum(COMPARTMENT_DEMAND[i][c] * visit[i, k] for i in CUSTOMERS)
                m.addConstr(load <= room, name=f"compartment[{k},{c}]")
    """
    return make_module(Family.COMPARTMENT, code)


def distance_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Every route is at most MAX_ROUTE_DISTANCE long (the return leg is not counted on open routes).
        for k in range(K):
            length = gp.quicksum(LEG[i][j] * x[i, j, k] for i in range(N) for j in range(N) if LEG[i][j] > 0)
            m.addConstr(length <= MAX_ROUTE_DISTANCE, name=f"max_distance[{k}]")
    """
    return make_module(Family.DISTANCE, code)


_DEPART_AND_TRAVEL = """
        # No service starts before a vehicle can get there from a depot (shortest paths, so this holds
        # whatever the distance convention).
        shortest = [row[:] for row in DIST]
        for via in range(N):
            for i in range(N):
                for j in range(N):
                    shortest[i][j] = min(shortest[i][j], shortest[i][via] + shortest[via][j])
        earliest = {j: max(WINDOW[j][0], min(WINDOW[d][0] + shortest[d][j] for d in DEPOTS)) for j in CUSTOMERS}
        for j in CUSTOMERS:
            start[j].LB = earliest[j]
            for d in DEPOTS:
                first_arrival = WINDOW[d][0] + DIST[d][j]
                m.addConstr(
                    start[j] >= earliest[j] + (first_arrival - earliest[j]) * arc[d, j], name=f"depart[{d},{j}]"
                )
            for i in CUSTOMERS:
                if i != j:
                    big_m = max(0.0, {latest_i} + SERVICE[i] + DIST[i][j] - earliest[j])
                    m.addConstr(
                        start[j] >= start[i] + SERVICE[i] + DIST[i][j] - big_m * (1 - arc[i, j]), name=f"travel[{i},{j}]"
                    )
"""


def time_window_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Service start times: a vehicle leaves its depot when the depot opens, may wait for a window
        # to open, and must start service before the window closes.
        for j in CUSTOMERS:
            start[j].LB, start[j].UB = WINDOW[j]
    """ + _DEPART_AND_TRAVEL.replace("{latest_i}", "WINDOW[i][1]")
    if not f.open_routes:
        code += """
        # Closed routes are back at the depot before it closes.
        for i in CUSTOMERS:
            for d in DEPOTS:
                back = WINDOW[i][1] + SERVICE[i] + DIST[i][d]
                big_m = max(0.0, back - WINDOW[d][1])
                m.addConstr(
                    start[i] + SERVICE[i] + DIST[i][d] <= WINDOW[d][1] + big_m * (1 - arc[i, d]), name=f"return[{i},{d}]"
                )
        """
    return make_module(Family.TIME_WINDOW, code)


def soft_time_window_module(f: ScriptFeatures) -> CodeModule:
    code = (
        """
        # Soft windows: service waits for the window to open but may start late; every time unit late
        # is paid in the objective. No schedule without needless waiting starts service after `latest`.
        latest = max(w[0] for w in WINDOW.values()) + sum(SERVICE.values()) + len(CUSTOMERS) * max(map(max, DIST))
        for j in CUSTOMERS:
            start[j].UB = latest
    """
        + _DEPART_AND_TRAVEL.replace("{latest_i}", "latest")
        + """
        for j in CUSTOMERS:
            m.addConstr(late[j] >= start[j] - WINDOW[j][1], name=f"late[{j}]")
    """
    )
    return make_module(AuxModule.SOFT_TIME_WINDOW, code)


def precedence_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # A pickup precedes its delivery exactly when the delivery can be reached from the pickup along
        # the route's customer-to-customer arcs. Whenever one vehicle serves both nodes of a request,
        # one unit of flow must travel from the pickup to the delivery over used arcs (pairs split over
        # two vehicles are the pairing rule's concern, not this one's).
        for r, (p, d, _) in enumerate(PAIRS):
            same = m.addVar(ub=1.0, name=f"same_vehicle[{r}]")
            for k in range(K):
                m.addConstr(same >= visit[p, k] + visit[d, k] - 1, name=f"same_vehicle[{r},{k}]")
            legs = [(i, j) for i in CUSTOMERS for j in CUSTOMERS if i != j and j != p and i != d]
            flow = m.addVars(legs, ub=1.0, name=f"order_flow[{r}]")
            for i, j in legs:
                m.addConstr(flow[i, j] <= arc[i, j], name=f"order_arc[{r},{i},{j}]")
            for i in CUSTOMERS:
                supply = same if i == p else -same if i == d else 0.0
                m.addConstr(flow.sum(i, "*") - flow.sum("*", i) == supply, name=f"order_balance[{r},{i}]")
    """
    return make_module(Family.PRECEDENCE, code)


def pairing_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # The pickup and the delivery of a request are served by the same vehicle.
        for p, d, _ in PAIRS:
            for k in range(K):
                m.addConstr(visit[p, k] == visit[d, k], name=f"pairing[{p},{d},{k}]")
    """
    return make_module(Family.PAIRING, code)


def backhaul_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Linehaul customers come first on every route: no vehicle drives from a backhaul customer to a
        # linehaul customer. Every route serves a linehaul customer (no route of backhauls only), so
        # no route starts with a backhaul customer either.
        for i in BACKHAUL:
            for j in LINEHAUL:
                for k in range(K):
                    x[i, j, k].UB = 0.0
        for d in DEPOTS:
            for j in BACKHAUL:
                for k in range(K):
                    x[d, j, k].UB = 0.0
    """
    return make_module(Family.BACKHAUL, code)


def delivery_coupling_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # A vehicle delivers only to customers it visits, and never more than the customer's demand.
        for i in CUSTOMERS:
            for k in range(K):
                m.addConstr(q[i, k] <= DEMAND[i] * visit[i, k], name=f"deliver_if_visited[{i},{k}]")
    """
    return make_module(Family.DELIVERY_COUPLING, code)


def symmetry_breaking_module(f: ScriptFeatures) -> CodeModule:
    if f.split:
        rule = """
        # Vehicles sharing a depot are identical, so any plan can be relabelled so that such vehicles
        # are used in order of the lowest-numbered customer they visit (split routes may share it).
        # Demanding that order removes copies of a plan, never a set of routes.
        """
        window = "CUSTOMERS[: pos + 1]"
    else:
        rule = """
        # Vehicles sharing a depot are identical, so any plan can be relabelled so that such vehicles
        # are used in increasing order of the lowest-numbered customer they visit. Demanding that
        # order removes copies of a plan, never a set of routes.
        """
        window = "CUSTOMERS[:pos]"
    code = (
        rule
        + f"""
        for k in range(K):
            twins = [h for h in range(k) if VEHICLE_DEPOT[h] == VEHICLE_DEPOT[k]]
            if not twins:
                continue
            for pos, j in enumerate(CUSTOMERS):
                earlier = gp.quicksum(visit[i, twins[-1]] for i in {window})
                m.addConstr(visit[j, k] <= earlier, name=f"symmetry[{{j}},{{k}}]")
    """
    )
    return make_module(AuxModule.SYMMETRY_BREAKING, code)


def objective_module(f: ScriptFeatures) -> CodeModule:
    terms = ["travel"]
    code = """
        # Travel cost of every vehicle (return legs are free on open routes)
        travel = gp.quicksum(
            COST_PER_DISTANCE[k] * LEG[i][j] * x[i, j, k]
            for i in range(N)
            for j in range(N)
            for k in range(K)
            if LEG[i][j] > 0
        )
    """
    if f.fixed_costs:
        terms.append("fixed")
        code += """
        # plus the fixed cost of each vehicle that leaves its depot
        fixed = gp.quicksum(FIXED_COST[k] * used[k] for k in range(K))
        """
    if f.soft_windows:
        terms.append("lateness")
        code += """
        # plus the penalty for late service
        lateness = gp.quicksum(LATE_PENALTY[i] * late[i] for i in CUSTOMERS)
        """
    code += f"""
        m.setObjective({" + ".join(terms)}, GRB.MINIMIZE)
    """
    return make_module(AuxModule.OBJECTIVE, code)


FAMILY_MODULES: dict[Family, Callable[[ScriptFeatures], CodeModule]] = {
    Family.COVERAGE: coverage_module,
    Family.ROUTE_STRUCTURE: route_structure_module,
    Family.SUBTOUR: subtour_module,
    Family.CAPACITY: capacity_module,
    Family.COMPARTMENT: compartment_module,
    Family.DISTANCE: distance_module,
    Family.TIME_WINDOW: time_window_module,
    Family.PRECEDENCE: precedence_module,
    Family.PAIRING: pairing_module,
    Family.BACKHAUL: backhaul_module,
    Family.DELIVERY_COUPLING: delivery_coupling_module,
}


def script_modules(f: ScriptFeatures) -> tuple[CodeModule, ...]:
    """The modules of a variant's gold script, in script order (families as the registry lists them)."""
    if f.two_index:
        return two_index_script_modules(f)
    modules = [variables_module(f)]
    modules += [FAMILY_MODULES[family](f) for family in f.families]
    modules.append(group_cuts_module(f))
    if f.soft_windows:
        modules.append(soft_time_window_module(f))
    if f.pickup_delivery:
        modules.append(pickup_delivery_cuts_module(f))
    elif f.capacity:
        modules.append(valid_inequalities_module(f))
    if f.interchangeable_vehicles:
        modules.append(symmetry_breaking_module(f))
    modules.append(objective_module(f))
    return tuple(modules)


# ---- the two-index model ----------------------------------------------------------------------
#
# Where every vehicle of a depot is the same truck, which of them drives a route is not part of the
# plan, and a vehicle index multiplies the model by the fleet size for nothing: a 12-customer Solomon
# sub-instance with its own fleet of 12 needs 2,352 variables indexed by vehicle, past the 2,000 of
# the size-limited licence, and Cordeau's p01 (4 depots x 4 vehicles) passes it from 8 customers.
# The two-index model keeps one binary per arc, the fleet as one bound per depot, capacity as a
# load that grows along the route, and (several depots) the number of the route's depot carried by
# every customer so that a route ends where it started. The time-window, subtour and group-cut
# modules read only the aggregated ``arc[i, j]`` and are shared with the vehicle-indexed model.


TWO_INDEX_ROUTING = 'x = m.addVars(N, N, vtype=GRB.BINARY, name="x")'
"""The statement that declares the two-index routing variable: script text tells the two models
apart by it (``vrpcoder.gold.render.is_two_index``), e.g. for the mutation harness's rewrites."""


def two_index_variables_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Routing variable: x[i, j] = 1 when a vehicle drives directly from node i to node j. The
        # vehicles of a depot are identical, so which of them drives a route is left open and the
        # fleet enters as one bound per depot. The arcs a route may use (no self loop, no depot to
        # depot leg; the route structure rule bans the others):
        arcs = [(i, j) for i in range(N) for j in range(N) if i != j and not (i in DEPOTS and j in DEPOTS)]
        """ + TWO_INDEX_ROUTING + """
        arc = x
        # Vehicles stationed at each depot.
        FLEET = {d: VEHICLE_DEPOT.count(d) for d in DEPOTS}
        # Position of each customer on its route (ordering for subtour elimination).
        position = m.addVars(CUSTOMERS, lb=1.0, ub=len(CUSTOMERS), name="position")
    """
    if f.timed:
        code += """
        # Time at which service starts at each customer.
        start = m.addVars(CUSTOMERS, name="start")
        """
    if f.soft_windows:
        code += """
        # Time units by which service at each customer starts after its window closes.
        late = m.addVars(CUSTOMERS, lb=0.0, name="late")
        """
    if f.multi_depot:
        code += """
        # Number of the depot whose route serves each customer.
        home = m.addVars(CUSTOMERS, lb=min(DEPOTS), ub=max(DEPOTS), name="home")
        """
    return make_module(AuxModule.VARIABLES, code)


def two_index_route_structure_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Arcs no route may use: self loops and depot to depot.
        banned = [(i, j) for i in range(N) for j in range(N) if i == j or (i in DEPOTS and j in DEPOTS)]
        for i, j in banned:
            x[i, j].UB = 0.0
        # Every node is left as often as it is entered, and no depot sends out more routes than it
        # has vehicles (one route per vehicle).
        for i in range(N):
            m.addConstr(x.sum(i, "*") == x.sum("*", i), name=f"flow[{i}]")
        for d in DEPOTS:
            m.addConstr(x.sum(d, "*") <= FLEET[d], name=f"fleet[{d}]")
    """
    if f.multi_depot:
        code += """
        # A route ends at the depot it left: the depot number a customer carries is the same at both
        # ends of every customer-to-customer arc and equals the depot's at a route's first and last leg.
        span = max(DEPOTS) - min(DEPOTS)
        for i, j in arcs:
            if i in DEPOTS or j in DEPOTS:
                depot, customer = (i, j) if i in DEPOTS else (j, i)
                m.addConstr(home[customer] <= depot + span * (1 - x[i, j]), name=f"home_max[{i},{j}]")
                m.addConstr(home[customer] >= depot - span * (1 - x[i, j]), name=f"home_min[{i},{j}]")
            else:
                m.addConstr(home[j] - home[i] <= span * (1 - x[i, j]), name=f"same_home[{i},{j}]")
                m.addConstr(home[i] - home[j] <= span * (1 - x[i, j]), name=f"same_home_back[{i},{j}]")
        """
    return make_module(Family.ROUTE_STRUCTURE, code)


def two_index_coverage_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Every customer is visited exactly once.
        for i in CUSTOMERS:
            m.addConstr(x.sum("*", i) == 1, name=f"cover[{i}]")
    """
    return make_module(Family.COVERAGE, code)


def two_index_capacity_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Goods delivered along a route up to and including each customer: they grow by the next
        # customer's demand along every customer-to-customer arc and never exceed the capacity (every
        # vehicle has the same).
        delivered = m.addVars(CUSTOMERS, name="delivered")
        for j in CUSTOMERS:
            delivered[j].LB, delivered[j].UB = DEMAND[j], CAPACITY[0]
            for i in CUSTOMERS:
                if i != j:
                    m.addConstr(
                        delivered[j] >= delivered[i] + DEMAND[j] - CAPACITY[0] * (1 - x[i, j]), name=f"capacity[{i},{j}]"
                    )
    """
    return make_module(Family.CAPACITY, code)


def two_index_capacity_backhaul_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Goods delivered to the linehaul customers of a route and goods collected from its backhaul
        # customers, each counted along the whole route up to and including each customer (a customer
        # of the other kind adds nothing): each total fits the vehicle (they are never on board
        # together; every vehicle has the same capacity). Counted along the whole route, not just its
        # linehaul or backhaul part, the rule does not lean on the backhaul order rule.
        delivered = m.addVars(CUSTOMERS, name="delivered")
        collected = m.addVars(CUSTOMERS, name="collected")
        for part, amount, name in ((LINEHAUL, delivered, "capacity_linehaul"), (BACKHAUL, collected, "capacity_backhaul")):
            for j in CUSTOMERS:
                gain = DEMAND[j] if j in part else 0.0
                amount[j].LB, amount[j].UB = gain, CAPACITY[0]
                for i in CUSTOMERS:
                    if i != j:
                        m.addConstr(amount[j] >= amount[i] + gain - CAPACITY[0] * (1 - x[i, j]), name=f"{name}[{i},{j}]")
    """
    return make_module(Family.CAPACITY, code)


def two_index_backhaul_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Linehaul customers come first on every route: no vehicle drives from a backhaul customer to a
        # linehaul customer. Every route serves a linehaul customer (no route of backhauls only), so
        # no route starts with a backhaul customer either.
        for i in BACKHAUL:
            for j in LINEHAUL:
                x[i, j].UB = 0.0
        for d in DEPOTS:
            for j in BACKHAUL:
                x[d, j].UB = 0.0
    """
    return make_module(Family.BACKHAUL, code)


def two_index_objective_module(f: ScriptFeatures) -> CodeModule:
    code = """
        # Travel cost (every vehicle costs the same per unit distance)
        travel = gp.quicksum(COST_PER_DISTANCE[0] * LEG[i][j] * x[i, j] for i, j in arcs if LEG[i][j] > 0)
    """
    terms = ["travel"]
    if f.soft_windows:
        terms.append("lateness")
        code += """
        # plus the penalty for late service
        lateness = gp.quicksum(LATE_PENALTY[i] * late[i] for i in CUSTOMERS)
        """
    code += f"""
        m.setObjective({" + ".join(terms)}, GRB.MINIMIZE)
    """
    return make_module(AuxModule.OBJECTIVE, code)


TWO_INDEX_FAMILY_MODULES: dict[Family, Callable[[ScriptFeatures], CodeModule]] = {
    Family.COVERAGE: two_index_coverage_module,
    Family.ROUTE_STRUCTURE: two_index_route_structure_module,
    Family.SUBTOUR: subtour_module,
    Family.CAPACITY: two_index_capacity_module,
    Family.TIME_WINDOW: time_window_module,
    Family.BACKHAUL: two_index_backhaul_module,
}
"""The families a two-index gold script can state (see ``vrpcoder.gold.render.two_index_allowed``)."""


def two_index_script_modules(f: ScriptFeatures) -> tuple[CodeModule, ...]:
    modules = [two_index_variables_module(f)]
    for family in f.families:
        if family is Family.CAPACITY and f.backhaul:
            modules.append(two_index_capacity_backhaul_module(f))
        else:
            modules.append(TWO_INDEX_FAMILY_MODULES[family](f))
    modules.append(group_cuts_module(f))
    if f.soft_windows:
        modules.append(soft_time_window_module(f))
    if f.capacity:
        modules.append(two_index_cuts_module(f))
    modules.append(two_index_objective_module(f))
    return tuple(modules)

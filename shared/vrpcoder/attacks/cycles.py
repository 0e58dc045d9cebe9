"""Whether the gold model without its subtour module still rules out every depot-free cycle.

The subtour attacker (``structural.subtour_cycle``) cuts a cycle out of ``s+``, and the checker
judges that cycle on its own: it breaks the subtour rule and nothing else. A model can still
reject it for another reason. The vehicle-indexed gold counts a cycle's customers into the load
of the vehicle that drives it, and every route must serve a linehaul customer on VRPB. On VRPB
profile 4 seed 1 (capacity 10.33, three vehicles) the backhauls weigh 9.39, 4.51 and 8.14: no two
fit one vehicle, so each needs a route of its own, and each of the three routes serves a linehaul
customer. A cycle of linehaul customers (9.3, 3.7, 5.65, 4.97) then rides on a vehicle that
already delivers to one: at least 3.7 + 4.97 + 5.65 = 14.32. A mixed cycle drives from a backhaul
to a linehaul customer, which the backhaul rule bans. Every cycle breaks another rule. The model without its subtour module then keeps the
gold script's feasible set, so its omission mutant is *equivalent* there: no probe exists that it
accepts and the gold rejects. The two-index gold's loads along each route rule out cycles too.

Rather than a case analysis per formulation, the gold model answers: drop its subtour module (and
the joint cuts, as the omission mutant does), require a non-empty set of customers that no arc
enters from outside it (a set of customers closed under their predecessors, never reached from a
depot: each customer is entered, so the set holds a depot-free cycle), and solve. Infeasible means
no plan that keeps every other rule holds such a cycle.
"""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from vrpcoder.errors import VerificationFailure
from vrpcoder.families import Family
from vrpcoder.gold import remove_family, render_gold
from vrpcoder.injection import RoutingVariable, find_routing_variable
from vrpcoder.instances import Instance

OPTIMIZE_LINE = "    m.optimize()\n"
"""The gold script's solve call, taken out so the model is built once and solved with the requirement."""


def _gold_without_subtour(instance: Instance, time_limit: float, two_index: bool | None) -> gp.Model:
    """The gold model of ``instance`` without its subtour module and joint cuts, built but not
    solved: the omission mutant's model (``two_index`` None: the formulation its samples carry)."""
    script = render_gold(instance, time_limit=time_limit, two_index=two_index)
    script = remove_family(script, Family.SUBTOUR.value)
    if OPTIMIZE_LINE not in script:
        raise ValueError("the gold script has no solve call to take out")
    namespace: dict[str, object] = {"__name__": "vrpcoder_cycle_proof"}
    exec(compile(script.replace(OPTIMIZE_LINE, "", 1), "<gold without subtour>", "exec"), namespace)
    build = namespace["build_model"]
    if not callable(build):
        raise ValueError("the gold script defines no build_model()")
    model = build()
    if not isinstance(model, gp.Model):
        raise ValueError(f"build_model() returned {type(model).__name__}")
    return model


def _arc_usage(xvar: RoutingVariable, num_nodes: int) -> dict[tuple[int, int], gp.LinExpr]:
    """How often each arc is driven, over every vehicle (or layer) of a 3-index ``x``."""
    return {
        (i, j): gp.quicksum(terms)
        for i in range(num_nodes)
        for j in range(num_nodes)
        if (terms := xvar.arc_vars(i, j))
    }


def require_detached_cycle(model: gp.Model, xvar: RoutingVariable, instance: Instance) -> dict[int, gp.Var]:
    """Add "some non-empty set of customers is entered only from inside itself" to ``model``;
    returns the membership binaries (1: the customer is on a depot-free cycle)."""
    customers = list(instance.customer_nodes)
    inside = model.addVars(customers, vtype=GRB.BINARY, name="cycle_member")
    for (i, j), used in _arc_usage(xvar, instance.num_nodes).items():
        if j not in inside:
            continue
        if i in inside:
            model.addConstr(used <= 1 - inside[j] + inside[i], name=f"cycle_closed[{i},{j}]")
        else:
            model.addConstr(used <= 1 - inside[j], name=f"cycle_no_depot[{i},{j}]")
    model.addConstr(inside.sum() >= 1, name="cycle_some")
    return dict(inside)


def cycles_impossible(instance: Instance, *, time_limit: float = 10.0, two_index: bool | None = None) -> bool:
    """Whether the gold model without its subtour module proves that no plan keeping every other
    rule holds a depot-free cycle (then that omission keeps the gold script's feasible set and
    optimum on this instance: no verifier can tell them apart here). False when not proven.
    ``two_index`` forces the gold formulation (None: the one the instance's samples carry)."""
    try:
        model = _gold_without_subtour(instance, time_limit, two_index)
    except (ValueError, gp.GurobiError):
        return False
    try:
        require_detached_cycle(model, find_routing_variable(model, instance.num_nodes), instance)
        model.setObjective(0.0)
        model.optimize()
        return model.Status == GRB.INFEASIBLE
    except (VerificationFailure, gp.GurobiError):
        return False
    finally:
        model.dispose()

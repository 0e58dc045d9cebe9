"""The relaxations a label audit knows, each one a whole model, and which one a published value is.

A wrong published label is rarely random: it is usually the optimum of a model that left a rule
out. Dropping one module from the gold script is not always that model: the gold script makes every
route optional (``used[k] <= 1``), so without subtour elimination its depot may stay idle while
the customers form cycles among themselves (MAMO item 59 re-solves to 172 that way), whereas the
textbook model that forgets subtour elimination, the *assignment relaxation*, still enters and
leaves every city once, the start included (213, the published value). So each relaxation here is
a complete model written the way that mistake is made, and the audit names the one whose optimum
reproduces the published value.

``RELAXATIONS`` is the one table: a name, the rule it ignores (a constraint family, or
``route_end`` for open versus closed routes), what it means in words, and how to build it. The
models are the vehicle-indexed gold script (``x[i, j, k]``; the two-index model's loads also forbid
subtours, so dropping a family there would drop more than that family), with the family's module
and the joint cuts removed (:func:`vrpcoder.gold.remove_family`), or the gold script of the
instance's open or closed counterpart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict
from vrpcoder.families import Family
from vrpcoder.gold import module_names, remove_family, render_gold, solve_script
from vrpcoder.instances import Instance
from vrpcoder.variants import VARIANTS, Module

ROUTE_END = "route_end"
"""The rule open-versus-closed relaxations change: whether a route returns to its depot."""

EVERY_VEHICLE_LEAVES = (
    "\n    # >>> module: relaxation\n"
    "    # The depot is entered and left like every other node: each vehicle drives one route.\n"
    "    for k in range(K):\n"
    '        m.addConstr(used[k] == 1, name=f"leaves_depot[{k}]")\n'
    "    # <<< module: relaxation\n"
)
_OPTIMIZE = "\n    m.optimize()\n"


class RelaxationResult(BaseModel):
    """One relaxed model solved: its optimum, and whether it reproduces the published value."""

    model_config = ConfigDict(frozen=True)

    name: str
    rule: str
    """The family the relaxation ignores (``subtour``, ``capacity``, ...) or ``route_end``."""
    description: str
    status: str
    objective: float | None
    reaches_published: bool
    detail: str | None = None


@dataclass(frozen=True, slots=True)
class Relaxation:
    name: str
    rule: str
    description: str
    build: Callable[[Instance, float], tuple[str, Instance] | None]
    """(script, instance it is solved for), or None where the relaxation does not apply."""


def _vehicle_indexed(instance: Instance, time_limit: float) -> str:
    return render_gold(instance, time_limit=time_limit, two_index=False)


def without(family: Family) -> Callable[[Instance, float], tuple[str, Instance] | None]:
    """The vehicle-indexed gold model without ``family``'s module (and the joint cuts)."""

    def build(instance: Instance, time_limit: float) -> tuple[str, Instance] | None:
        if family not in instance.spec.families:
            return None
        script = _vehicle_indexed(instance, time_limit)
        if family.value not in module_names(script):
            return None
        return remove_family(script, family.value), instance

    return build


def assignment(instance: Instance, time_limit: float) -> tuple[str, Instance] | None:
    """No subtour elimination, and every vehicle leaves its depot once: for a TSP, every city (the
    start included) entered and left exactly once, which is the assignment problem."""
    built = without(Family.SUBTOUR)(instance, time_limit)
    if built is None or _OPTIMIZE not in built[0]:
        return None
    script, target = built
    return script.replace(_OPTIMIZE, EVERY_VEHICLE_LEAVES + _OPTIMIZE, 1), target


def counterpart(instance: Instance, *, open_routes: bool) -> Instance | None:
    """The same data as the open-route (or closed-route) variant, where the registry has one. A TSP
    becomes an open route of one vehicle (a Hamiltonian path from the start), given a capacity that
    can never bind, since every open variant has capacities."""
    spec = instance.spec
    if spec.has(Module.OPEN) == open_routes:
        return None
    wanted = spec.modules | {Module.OPEN} if open_routes else spec.modules - {Module.OPEN}
    if spec.is_tsp:
        match = [VARIANTS["OVRP"]] if open_routes else []
    else:
        match = [v for v in VARIANTS.values() if v.modules == wanted and v.capacity is spec.capacity]
    if not match:
        return None
    data = instance.model_dump()
    data["variant"] = match[0].name
    if spec.is_tsp:
        room = max(1.0, sum(c.demand for c in instance.customers))
        data["vehicles"] = [{**instance.vehicles[0].model_dump(), "capacity": room}]
    try:
        return Instance.model_validate(data)
    except ValueError:
        return None


def as_open(instance: Instance, time_limit: float) -> tuple[str, Instance] | None:
    target = counterpart(instance, open_routes=True)
    return None if target is None else (render_gold(target, time_limit=time_limit), target)


def as_closed(instance: Instance, time_limit: float) -> tuple[str, Instance] | None:
    target = counterpart(instance, open_routes=False)
    return None if target is None else (render_gold(target, time_limit=time_limit), target)


_FAMILY_WORDS: dict[Family, str] = {
    Family.CAPACITY: "without the capacity limit",
    Family.COMPARTMENT: "without compartment capacities",
    Family.DISTANCE: "without the route length limit",
    Family.TIME_WINDOW: "without time windows",
    Family.PRECEDENCE: "without pickup-before-delivery precedence",
    Family.PAIRING: "without pickup and delivery on the same vehicle",
    Family.BACKHAUL: "without linehaul-before-backhaul order",
    Family.DELIVERY_COUPLING: "without tying split deliveries to visits",
}

RELAXATIONS: tuple[Relaxation, ...] = (
    Relaxation("assignment", Family.SUBTOUR.value,
               "without subtour elimination (the assignment relaxation: every node, the depot included, "
               "entered and left once, customer-only cycles allowed)", assignment),
    Relaxation("no_subtour", Family.SUBTOUR.value,
               "without subtour elimination, the depot's routes optional (customers may form cycles among "
               "themselves and no route leave the depot)", without(Family.SUBTOUR)),
    *(Relaxation(f"no_{family.value}", family.value, words, without(family)) for family, words in _FAMILY_WORDS.items()),
    Relaxation("open_routes", ROUTE_END, "with open routes (no return to the depot) where the problem has closed ones",
               as_open),
    Relaxation("closed_routes", ROUTE_END, "with closed routes (back to the depot) where the problem has open ones",
               as_closed),
)
"""Every relaxation the audit tries, in the order a report names them."""


def solve_relaxations(
    instance: Instance, published: float, *, tolerance: float, time_limit: float = 60.0,
    relaxations: Sequence[Relaxation] = RELAXATIONS,
) -> list[RelaxationResult]:
    """Each applicable relaxation of ``instance`` solved, and whether its proven optimum equals the
    published value within ``tolerance``."""
    out: list[RelaxationResult] = []
    for relaxation in relaxations:
        built = relaxation.build(instance, time_limit)
        if built is None:
            continue
        script, target = built
        result = solve_script(script, target)
        reaches = (result.status.value == "optimal" and result.objective is not None
                   and abs(result.objective - published) <= tolerance)
        out.append(RelaxationResult(name=relaxation.name, rule=relaxation.rule, description=relaxation.description,
                                    status=result.status.value, objective=result.objective, reaches_published=reaches,
                                    detail=result.detail))
    return out

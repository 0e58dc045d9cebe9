"""Assemble a standalone gold script from the inline data block and the code modules.

The script follows the candidate protocol (``build_model()`` builds, optimises and returns the
model; routing variable ``x[i, j, k]``, or ``x[i, j]`` where the two-index model is chosen), so
gold and candidate scripts are run, injected and compared by the same machinery.

Which formulation a script gets is decided here, from the instance alone (never from the licence
the machine happens to have, so a sample's labels do not depend on where it was built): the
two-index model wherever it states the instance exactly (identical vehicles of CVRP, MDVRP, OVRP,
VRPB, VRPHTW, VRPSTW, MDVRPSTW, OVRPHTW), because it solves faster and does not grow with the
fleet; the vehicle-indexed model for every other variant and fleet.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from textwrap import indent

import gurobipy as gp

from vrpcoder.gold.data import data_lines
from vrpcoder.gold.features import ScriptFeatures, features_of
from vrpcoder.gold.markers import close_marker, open_marker
from vrpcoder.gold.modules import TWO_INDEX_ROUTING, script_modules
from vrpcoder.instances import Instance
from vrpcoder.variants import CapacityKind, Module

BODY_INDENT = "    "

MIP_GAP = 1e-9
"""Optimality is proven to far below the 1e-6 relative agreement the audits require."""
INT_FEAS_TOL = 1e-9
"""Big-M rows multiply the integrality slack of a binary; a tight tolerance keeps a nearly-1 binary
from buying a visibly different schedule or load."""


def _settings(time_limit: float, threads: int, mip_focus: int | None) -> list[str]:
    lines = [
        "m.Params.OutputFlag = 0",
        f"m.Params.Threads = {threads}",
        f"m.Params.TimeLimit = {float(time_limit)!r}",
        f"m.Params.MIPGap = {MIP_GAP!r}",
        f"m.Params.IntFeasTol = {INT_FEAS_TOL!r}",
    ]
    if mip_focus is not None:
        lines.append(f"m.Params.MIPFocus = {mip_focus}")
    return lines


def _validate(time_limit: float, threads: int, mip_focus: int | None) -> None:
    if not time_limit > 0:
        raise ValueError(f"time_limit must be positive, got {time_limit}")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    if mip_focus is not None and mip_focus not in (0, 1, 2, 3):
        raise ValueError(f"mip_focus must be one of 0, 1, 2, 3 or None, got {mip_focus}")


LICENCE_LIMIT = 2000
"""Variables and constraints a model may have under gurobipy's size-limited pip licence."""
SMALL_ENOUGH = 800
"""A vehicle-indexed model with at most this many ``x`` variables (nodes squared times vehicles)
is far below the licence's limit (the rest of the model is a few hundred rows and columns)."""
TWO_INDEX_MODULES = frozenset({Module.MD, Module.HTW, Module.STW, Module.OPEN, Module.BH})
"""Modules the two-index model states; every other one needs to know the vehicle (its own
capacity, costs, compartments, split quantities, ...) or is not written for it yet."""


def two_index_allowed(instance: Instance) -> bool:
    """Whether the two-index model states this instance exactly: a variant whose modules it
    knows, and a fleet of identical vehicles (one capacity, one cost per distance, no fixed cost)."""
    spec = instance.spec
    vehicles = instance.vehicles
    return (
        not spec.is_tsp
        and spec.capacity is CapacityKind.HOMOGENEOUS
        and spec.modules <= TWO_INDEX_MODULES
        and len({v.capacity for v in vehicles}) == 1
        and len({v.cost_per_distance for v in vehicles}) == 1
        and all(v.fixed_cost == 0 for v in vehicles)
    )


def is_two_index(script: str) -> bool:
    """Whether a gold script (or a mutant of one) is the two-index model, read off its text alone:
    mutants are stored and run as text, without the renderer that chose the formulation."""
    return TWO_INDEX_ROUTING in script


def model_size(script: str) -> tuple[int, int]:
    """(variables, constraints) of a gold script's model, built but not solved (no licence check:
    the size limit is enforced only when a model is optimised)."""
    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    namespace: dict[str, object] = {"__name__": "vrpcoder_gold_size", "_SIZE_ENV": env}
    built = script.replace("m = gp.Model(NAME)", "m = gp.Model(NAME, env=_SIZE_ENV)", 1)
    built = built.replace("\n    m.optimize()\n", "\n    m.update()\n", 1)
    try:
        exec(compile(built, "<gold size>", "exec"), namespace)
        model = namespace["build_model"]()  # type: ignore[operator]
        try:
            return int(model.NumVars), int(model.NumConstrs)
        finally:
            model.dispose()
    finally:
        env.dispose()


@lru_cache(maxsize=512)
def licence_needs_two_index(instance: Instance) -> bool:
    """Whether the vehicle-indexed model would pass the pip licence's 2,000 variables or
    constraints while the two-index model states the instance exactly. Models that need the vehicle
    index (the gold-derived attackers write a rule of one vehicle on ``x[i, j, k]``) take the
    two-index one only then (cached: sizing builds the vehicle-indexed model)."""
    if not two_index_allowed(instance):
        return False
    if instance.num_nodes**2 * len(instance.vehicles) <= SMALL_ENOUGH:
        return False
    variables, constraints = model_size(_script(instance, features_of(instance), 60.0, 1, None))
    return variables > LICENCE_LIMIT or constraints > LICENCE_LIMIT


@lru_cache(maxsize=512)
def choose_features(instance: Instance) -> ScriptFeatures:
    """The two-index model wherever it states the instance exactly (identical vehicles of the
    variants it knows), else the vehicle-indexed one.

    Where both apply they have the same optimum and judge the same probes (a fleet of identical
    vehicles has no rule of one vehicle that a route's own load, time or depot does not carry), and
    the two-index model solves faster (median at 12 customers under 1 s for all eight variants,
    ``benchmarks/gold_solve_time.py --compare``), whose size does not grow with the fleet."""
    return replace(features_of(instance), two_index=two_index_allowed(instance))


def render_gold(
    instance: Instance,
    *,
    time_limit: float = 60.0,
    threads: int = 1,
    mip_focus: int | None = None,
    two_index: bool | None = None,
) -> str:
    """The gold script of ``instance`` as Python source text.

    ``two_index`` forces the formulation (tests and benchmarks compare the two); None chooses it
    (:func:`choose_features`). Forcing the two-index model where it cannot state the instance fails.
    """
    _validate(time_limit, threads, mip_focus)
    if two_index is None:
        features = choose_features(instance)
    elif two_index and not two_index_allowed(instance):
        raise ValueError(f"{instance.name}: the two-index model cannot state a {instance.variant} instance with this fleet")
    else:
        features = replace(features_of(instance), two_index=two_index)
    return _script(instance, features, time_limit, threads, mip_focus)


def _script(
    instance: Instance, features: ScriptFeatures, time_limit: float, threads: int, mip_focus: int | None
) -> str:
    body: list[str] = ["m = gp.Model(NAME)", *_settings(time_limit, threads, mip_focus)]
    for module in script_modules(features):
        body += ["", open_marker(module.name), *module.code.splitlines(), close_marker(module.name)]
    body += ["", "m.optimize()", "return m"]
    header = [
        f'"""Gold model of instance {instance.name!r} ({instance.spec.name}), generated by vrpcoder.gold.',
        "",
        "Nodes are numbered depots first, then customers. "
        + (
            "x[i, j] = 1 when a vehicle drives from i to j."
            if features.two_index
            else "x[i, j, k] = 1 when vehicle k drives from i to j."
        ),
        '"""',
        "",
        "import math",
        "from collections.abc import Sequence",
        "",
        "import gurobipy as gp",
        "from gurobipy import GRB",
        "",
    ]
    main = [
        'if __name__ == "__main__":',
        "    model = build_model()",
        '    print("status:", model.Status)',
        "    if model.SolCount > 0:",
        '        print("objective:", model.ObjVal)',
    ]
    lines = [
        *header,
        *data_lines(instance, features),
        "",
        "",
        "def build_model():",
        indent("\n".join(body), BODY_INDENT),
        "",
        "",
        *main,
    ]
    return "\n".join(lines) + "\n"

"""Execute a gold script in-process and report what the solver found.

The script is executed from its text, exactly as it would be stored or handed to the verifier, so
what is solved here is the script and not a parallel Python construction of the same model. A
licence size failure is a separate status because it says nothing about the instance: treating it
as infeasible would mislabel probes.
"""

from __future__ import annotations

import time
from enum import StrEnum

import gurobipy as gp
from gurobipy import GRB
from pydantic import BaseModel, ConfigDict

from vrpcoder.gold.extract import extract_solution
from vrpcoder.gold.render import render_gold
from vrpcoder.instances import Instance
from vrpcoder.solutions import Solution

SIZE_LIMIT_ERRNO = 10010
"""Gurobi's "Model too large for size-limited license"."""
SCRIPT_NAMESPACE_NAME = "vrpcoder_gold_script"
"""``__name__`` inside the executed script, so its ``__main__`` block does not run."""


class GoldStatus(StrEnum):
    OPTIMAL = "optimal"
    TIME_LIMIT = "time_limit"
    """Stopped by the time limit (or another limit) with an incumbent."""
    NO_SOLUTION = "no_solution"
    """Stopped by a limit before any incumbent was found: feasibility is unknown."""
    INFEASIBLE = "infeasible"
    SIZE_LIMITED_LICENCE = "size_limited_licence"
    ERROR = "error"
    """The script failed to build or solve, or the solver ended in an unexpected state."""


class GoldResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    status: GoldStatus
    objective: float | None = None
    bound: float | None = None
    solution: Solution | None = None
    runtime: float = 0.0
    """Seconds: Gurobi's own solve time when the model was solved, else wall time until failure."""
    detail: str | None = None


_LIMITS = frozenset(
    {GRB.TIME_LIMIT, GRB.NODE_LIMIT, GRB.SOLUTION_LIMIT, GRB.ITERATION_LIMIT, GRB.INTERRUPTED, GRB.WORK_LIMIT}
)


def _solved(model: gp.Model, instance: Instance) -> GoldResult:
    status, runtime = model.Status, float(model.Runtime)
    if status in (GRB.INFEASIBLE, GRB.INF_OR_UNBD):
        return GoldResult(status=GoldStatus.INFEASIBLE, runtime=runtime)
    if status != GRB.OPTIMAL and status not in _LIMITS:
        return GoldResult(
            status=GoldStatus.ERROR, runtime=runtime, detail=f"Gurobi ended with status {status}"
        )
    if model.SolCount < 1:
        return GoldResult(status=GoldStatus.NO_SOLUTION, runtime=runtime, bound=_bound(model))
    detail: str | None = None
    solution: Solution | None = None
    try:
        solution = extract_solution(model, instance)
    except ValueError as exc:
        detail = f"routes could not be extracted: {exc}"
    return GoldResult(
        status=GoldStatus.OPTIMAL if status == GRB.OPTIMAL else GoldStatus.TIME_LIMIT,
        objective=float(model.ObjVal),
        bound=_bound(model),
        solution=solution,
        runtime=runtime,
        detail=detail,
    )


def _bound(model: gp.Model) -> float | None:
    try:
        return float(model.ObjBound)
    except (gp.GurobiError, AttributeError):
        return None


def _failure(exc: BaseException, started: float) -> GoldResult:
    elapsed = time.perf_counter() - started
    if isinstance(exc, gp.GurobiError) and exc.errno == SIZE_LIMIT_ERRNO:
        return GoldResult(status=GoldStatus.SIZE_LIMITED_LICENCE, runtime=elapsed, detail=str(exc))
    return GoldResult(status=GoldStatus.ERROR, runtime=elapsed, detail=f"{type(exc).__name__}: {exc}")


def solve_script(script: str, instance: Instance) -> GoldResult:
    """Run a protocol script (gold or mutant) for ``instance`` and extract its plan."""
    started = time.perf_counter()
    namespace: dict[str, object] = {"__name__": SCRIPT_NAMESPACE_NAME}
    try:
        exec(compile(script, "<gold script>", "exec"), namespace)
        build = namespace.get("build_model")
        if not callable(build):
            return GoldResult(status=GoldStatus.ERROR, detail="the script defines no build_model()")
        model = build()
    except Exception as exc:  # noqa: BLE001 - every failure of a script is reported, never raised
        return _failure(exc, started)
    if not isinstance(model, gp.Model):
        return GoldResult(status=GoldStatus.ERROR, detail=f"build_model() returned {type(model).__name__}")
    try:
        return _solved(model, instance)
    finally:
        model.dispose()


def solve_gold(
    instance: Instance,
    *,
    time_limit: float = 60.0,
    threads: int = 1,
    mip_focus: int | None = None,
    two_index: bool | None = None,
) -> GoldResult:
    """Render the instance's gold script, run it and extract the plan (``two_index``: see
    :func:`vrpcoder.gold.render.render_gold`)."""
    script = render_gold(instance, time_limit=time_limit, threads=threads, mip_focus=mip_focus, two_index=two_index)
    return solve_script(script, instance)

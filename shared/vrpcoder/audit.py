"""Solve an instance with its gold script and audit the answer with the independent checker.

This pairing is the project's basic trust statement: a gold optimum only counts when a second,
solver-free implementation of the rules finds the extracted routes feasible and prices them at
the same cost. The CLI (`vrpcoder gold solve`), the demo job and the benchmarks all go through
here so the comparison is made one way everywhere.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from vrpcoder.checker import check
from vrpcoder.families import Family
from vrpcoder.gold import solve_gold
from vrpcoder.instances import Instance
from vrpcoder.solutions import Route

COST_RTOL = 1e-6


class AuditedSolve(BaseModel):
    model_config = ConfigDict(frozen=True)

    instance: str
    variant: str
    status: str
    objective: float | None
    bound: float | None
    runtime: float
    routes: tuple[Route, ...]
    checker_cost: float | None
    violations: tuple[Family, ...]
    detail: str | None = None

    @property
    def cost_agrees(self) -> bool:
        """Gold objective and checker cost agree within a relative 1e-6 (absolute near zero)."""
        if self.objective is None or self.checker_cost is None:
            return False
        scale = max(1.0, abs(self.objective))
        return abs(self.objective - self.checker_cost) <= COST_RTOL * scale

    @property
    def trusted(self) -> bool:
        """Proven optimal, feasible by the checker, and priced identically by both."""
        return self.status == "optimal" and not self.violations and self.cost_agrees


def audit_gold(instance: Instance, *, time_limit: float = 60.0, threads: int = 1) -> AuditedSolve:
    result = solve_gold(instance, time_limit=time_limit, threads=threads)
    routes: tuple[Route, ...] = ()
    cost: float | None = None
    violations: tuple[Family, ...] = ()
    if result.solution is not None:
        report = check(instance, result.solution)
        routes, cost, violations = result.solution.routes, report.cost, report.families
    return AuditedSolve(
        instance=instance.name,
        variant=instance.variant,
        status=result.status,
        objective=result.objective,
        bound=result.bound,
        runtime=result.runtime,
        routes=routes,
        checker_cost=cost,
        violations=violations,
        detail=result.detail,
    )

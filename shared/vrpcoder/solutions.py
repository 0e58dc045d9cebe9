"""Route solutions: what a solved model or a probe says the vehicles do.

A solution is a set of routes, each driven by one vehicle from its depot through an ordered list
of customers (internal node numbers). Probes (issue: constraint injection) also need shapes that
no legal plan has, such as a customer-only cycle; those are ``cycles`` and are infeasible by
definition, but they are representable so that the checker can say *which* family they break.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Route(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    vehicle: int = Field(ge=0)
    depot: int = Field(ge=0)
    visits: tuple[int, ...]
    """Customers in visiting order, depots excluded."""
    deliveries: tuple[float, ...] | None = None
    """Split delivery: quantity delivered at each visit, aligned with ``visits``."""
    end_depot: int | None = Field(default=None, ge=0)
    """Where a closed route ends, when that is said explicitly (None: back at ``depot``). Only a
    probe names another depot here: on several depots "a vehicle returns to a depot other than its
    own" is a plan of its own, and a model that lets routes end anywhere must be asked about it."""

    @model_validator(mode="after")
    def _aligned(self) -> Self:
        if self.deliveries is not None and len(self.deliveries) != len(self.visits):
            raise ValueError("deliveries must have one quantity per visit")
        return self

    @property
    def end(self) -> int:
        """The depot a closed route returns to."""
        return self.depot if self.end_depot is None else self.end_depot

    @property
    def arcs(self) -> list[tuple[int, int]]:
        """Arcs of the closed route depot -> visits -> end depot (the checker drops the return for open routes)."""
        path = [self.depot, *self.visits, self.end]
        return list(zip(path, path[1:], strict=False))


class Cycle(BaseModel):
    """A customer-only cycle, optionally attributed to a vehicle (only probes contain these)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    vehicle: int | None = None
    visits: tuple[int, ...] = Field(min_length=2)

    @property
    def arcs(self) -> list[tuple[int, int]]:
        path = [*self.visits, self.visits[0]]
        return list(zip(path, path[1:], strict=False))


class Solution(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    routes: tuple[Route, ...] = ()
    cycles: tuple[Cycle, ...] = ()

    @property
    def visited(self) -> list[int]:
        """Every customer visit, with repetitions (split delivery may visit a customer twice)."""
        return [c for r in self.routes for c in r.visits] + [c for cy in self.cycles for c in cy.visits]

    def route_of(self, vehicle: int) -> Route | None:
        return next((r for r in self.routes if r.vehicle == vehicle), None)

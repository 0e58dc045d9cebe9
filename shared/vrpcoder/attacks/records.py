"""What an attacker hands back, and the bound rule every parameter attack shares.

An :class:`Attack` carries the instance its probe must be judged on: the sample instance I* for a
structural attack, the attacked copy I*_a (one bound tightened, other bounds possibly widened) for
a parameter attack. Keeping the instance with the probe is what lets the label rule be checked
mechanically: s+ feasible and s- breaking exactly the target family, *on that instance*.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from vrpcoder.families import Family
from vrpcoder.instances import Instance
from vrpcoder.solutions import Solution
from vrpcoder.variants import ATTACKERS, Attacker

INTERPOLATION = 0.85
"""Where between g and b the tightened bound sits: near b, so the probe sits near the boundary."""
EPS = 0.01
"""Margin that keeps a tightened bound strictly inside (g, b); one cent, the data's resolution."""
SPLIT_EPS = 0.05
"""Split delivery's larger margin: its quantities are continuous and a solver may shave a little
off each vehicle's share, so the violation is kept well above rounding noise."""


def tightened_bound(g: float, b: float, eps: float) -> float:
    """The attacked bound: 85 % of the way from g (s+ usage) to b (s- usage), never within eps of
    either end (paper, eq. param_attack_bound)."""
    if eps <= 0:
        raise ValueError(f"eps must be positive, got {eps}")
    if not b > g + 2 * eps:
        raise ValueError(
            f"no bound fits strictly between g={g} and b={b} with margin eps={eps} (need b > g + 2*eps)"
        )
    return max(g + eps, min(g + INTERPOLATION * (b - g), b - eps))


class BoundKind(StrEnum):
    """The instance parameter a parameter attack tightens."""

    CAPACITY = "capacity"
    COMPARTMENT_CAPACITY = "compartment_capacity"
    MAX_ROUTE_DISTANCE = "max_route_distance"
    TIME_WINDOW = "time_window"


class ParameterBound(BaseModel):
    """Which bound was set, what s+ (g) and s- (b) use of it, and its value on the attacked copy.

    For the time-window attack the numbers describe the first window s- misses: g and b are the
    service starts s+ and s- give that customer (or the depot returns, when only the return is
    late) and ``value`` the window end in force. For the extreme heterogeneous overload no bound
    is changed: ``value`` is the target vehicle's unchanged capacity, which b exceeds.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: BoundKind
    g: float
    b: float
    value: float
    vehicle: int | None = None
    """Set when only this vehicle's bound is tightened (heterogeneous fleets), and for time windows
    the vehicle of the swapped route."""
    compartment: int | None = None
    customer: int | None = None

    @model_validator(mode="after")
    def _between(self) -> Self:
        if not self.g <= self.value < self.b:
            raise ValueError(f"bound {self.value} must lie in [g, b) = [{self.g}, {self.b})")
        return self


class Attack(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    attacker: Attacker
    family: Family
    solution: Solution
    """The violating probe s-."""
    instance: Instance
    """I* for structural attacks, the attacked copy I*_a for parameter attacks."""
    bound: ParameterBound | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        info = ATTACKERS[self.attacker]
        if self.family is not info.target:
            raise ValueError(f"{self.attacker.value} targets {info.target.value}, not {self.family.value}")
        if info.parametric != (self.bound is not None):
            raise ValueError(f"{self.attacker.value}: a bound is given exactly for parameter attacks")
        return self


class AttackSkipped(BaseModel):
    """No probe could be built; ``reason`` says why in terms of the plan or the instance."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    attacker: Attacker
    reason: str = Field(min_length=1)

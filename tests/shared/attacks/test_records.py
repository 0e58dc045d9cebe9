"""The bound rule and the invariants the attack records enforce on themselves."""

from __future__ import annotations

import pytest
from vrpcoder.attacks import Attack, AttackSkipped, BoundKind, ParameterBound, tightened_bound
from vrpcoder.families import Family
from vrpcoder.solutions import Solution
from vrpcoder.variants import Attacker

from tests.shared.attacks.tiny import Case


@pytest.mark.parametrize(
    ("g", "b", "eps", "expected"),
    [
        (0.0, 10.0, 0.01, 8.5),  # 0 + 0.85 * 10, far from both ends
        (16.1, 18.0, 0.01, 17.715),  # 16.1 + 0.85 * 1.9
        (10.0, 12.0, 0.05, 11.7),  # the split-delivery margin does not bind either
        (5.0, 5.03, 0.01, 5.02),  # 5.0255 would be within eps of b: clipped to b - eps
        (1.0, 1.021, 0.01, 1.011),  # 1.01785 clipped to b - eps = 1.011, still above g + eps
    ],
)
def test_tightened_bound_by_hand(g: float, b: float, eps: float, expected: float) -> None:
    assert tightened_bound(g, b, eps) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("g", "b", "eps"),
    [
        (5.0, 5.0, 0.01),  # b == g
        (5.0, 4.0, 0.01),  # b < g
        (0.0, 0.5, 0.25),  # b == g + 2 eps exactly: no room strictly inside
        (1.0, 2.0, 0.0),  # eps must be positive
        (1.0, 2.0, -0.1),
    ],
)
def test_tightened_bound_rejects_intervals_without_room(g: float, b: float, eps: float) -> None:
    with pytest.raises(ValueError):
        tightened_bound(g, b, eps)


def test_bound_value_must_lie_between_g_and_b() -> None:
    with pytest.raises(ValueError, match="must lie in"):
        ParameterBound(kind=BoundKind.CAPACITY, g=5, b=8, value=9)


def test_attack_family_must_be_the_attackers_target(cvrp: Case) -> None:
    with pytest.raises(ValueError, match="targets coverage"):
        Attack(
            attacker=Attacker.REMOVE_CUSTOMER,
            family=Family.SUBTOUR,
            solution=Solution(),
            instance=cvrp.instance,
        )


def test_structural_attacks_carry_no_bound_and_parameter_attacks_need_one(cvrp: Case) -> None:
    bound = ParameterBound(kind=BoundKind.CAPACITY, g=5, b=8, value=7)
    with pytest.raises(ValueError, match="exactly for parameter attacks"):
        Attack(
            attacker=Attacker.REMOVE_CUSTOMER,
            family=Family.COVERAGE,
            solution=Solution(),
            instance=cvrp.instance,
            bound=bound,
        )
    with pytest.raises(ValueError, match="exactly for parameter attacks"):
        Attack(
            attacker=Attacker.CAPACITY_OVERLOAD,
            family=Family.CAPACITY,
            solution=Solution(),
            instance=cvrp.instance,
        )


def test_a_skip_needs_a_reason() -> None:
    with pytest.raises(ValueError):
        AttackSkipped(attacker=Attacker.TIME_WINDOW, reason="")

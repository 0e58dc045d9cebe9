"""The attackers' shared toolkit: move order, bound rounding, plan edits and widening the copy."""

from __future__ import annotations

import pytest
from vrpcoder.attacks.editing import accommodate, attacked_value, pick, preferred, tidy, with_route, without
from vrpcoder.attacks.records import BoundKind
from vrpcoder.checker import check
from vrpcoder.families import Family
from vrpcoder.relaxation import rebuilt
from vrpcoder.solutions import Route

from tests.shared.attacks.tiny import Case, plan


@pytest.mark.parametrize(
    ("values", "goal", "order"),
    [
        ((5.0, 9.0, 7.0, 3.0), 6.0, [2, 1, 0, 3]),  # 7 and 9 reach 6 (smallest first), then 5, 3
        ((1.0, 2.0), 6.0, [1, 0]),  # nothing reaches: largest first
        ((8.0, 8.0, 4.0), 6.0, [0, 1, 2]),  # ties keep their (rng-drawn) order
        ((), 6.0, []),
    ],
)
def test_preferred_order(values: tuple[float, ...], goal: float, order: list[int]) -> None:
    assert preferred(values, goal) == order


@pytest.mark.parametrize(
    ("after", "now", "goal", "chosen"),
    [
        ((7.0, 9.0), 5.0, 6.0, 0),
        ((5.5, 5.8), 5.0, 6.0, 1),
        ((5.0, 4.0), 5.0, 6.0, None),  # no move raises the usage
        ((), 5.0, 6.0, None),
    ],
)
def test_pick(after: tuple[float, ...], now: float, goal: float, chosen: int | None) -> None:
    assert pick(after, now, goal) == chosen


@pytest.mark.parametrize(
    ("value", "g", "b", "eps", "expected"),
    [
        (17.7149, 16.1, 18.0, 0.01, 17.71),
        (7.853, 7.0, 8.0, 0.01, 7.85),
        (5.0151, 5.0, 5.03, 0.01, 5.02),
        (5.0149, 5.01, 5.03, 0.01, 5.0149),  # rounding would land on g itself: kept as is
    ],
)
def test_tidy_rounds_only_when_the_bound_stays_inside(
    value: float, g: float, b: float, eps: float, expected: float
) -> None:
    assert tidy(value, g, b, eps) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("current", "expected"),
    [
        (None, (8.5, True)),  # 0 + 0.85 * 10
        (9.0, (8.5, True)),
        (8.0, (8.0, False)),  # the rule's 8.5 would loosen the bound in force: it is kept
    ],
)
def test_attacked_value_never_loosens(current: float | None, expected: tuple[float, bool]) -> None:
    assert attacked_value(0.0, 10.0, 0.01, current) == expected


def test_without_and_with_route_edit_a_plan(cvrp: Case) -> None:
    edited = without(cvrp.plus, (2, 3))
    assert [(r.vehicle, r.visits) for r in edited.routes] == [(0, (1,)), (1, (4,))]
    emptied = with_route(edited, Route(vehicle=1, depot=0, visits=()))
    assert [(r.vehicle, r.visits) for r in emptied.routes] == [(0, (1,))]
    added = with_route(emptied, Route(vehicle=1, depot=0, visits=(2, 3, 4)))
    assert [(r.vehicle, r.visits) for r in added.routes] == [(0, (1,)), (1, (2, 3, 4))]


def test_accommodate_widens_other_bounds_but_never_the_attacked_one(dcvrp: Case) -> None:
    """All four customers on vehicle 0 (load 4, length 6 + sqrt(52) + 4 + 8 = 25.21) under a
    capacity of 3 and a limit of 20: a distance attack widens the capacity to 4 and leaves the
    limit; a capacity attack does the opposite."""
    fleet = tuple(v.model_copy(update={"capacity": 3.0}) for v in dcvrp.instance.vehicles)
    tight = rebuilt(dcvrp.instance, vehicles=fleet, max_route_distance=20.0)
    minus = plan((0, (1, 2, 3, 4)))
    assert check(tight, minus).families == (Family.CAPACITY, Family.DISTANCE)
    for_distance = accommodate(tight, minus, BoundKind.MAX_ROUTE_DISTANCE)
    assert for_distance is not None
    assert [v.capacity for v in for_distance.vehicles] == [4.0, 4.0]
    assert for_distance.max_route_distance == 20.0
    for_capacity = accommodate(tight, minus, BoundKind.CAPACITY)
    assert for_capacity is not None
    assert [v.capacity for v in for_capacity.vehicles] == [3.0, 3.0]
    assert for_capacity.max_route_distance == pytest.approx(25.22)

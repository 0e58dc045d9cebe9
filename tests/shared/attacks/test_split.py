"""Split-delivery attacks on the tiny SDVRP instance (demands 6, 6, 6; node 2 split 4 + 2 over the
routes [1, 2] and [2, 3], loads 10 and 8; capacity 20)."""

from __future__ import annotations

import pytest
from vrpcoder.attacks import SPLIT_EPS, Attack, run_attack
from vrpcoder.checker import check
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import Attacker

from tests.shared.attacks.tiny import Case

SEEDS = range(6)


def attack(case: Case, attacker: Attacker, seed: int = 0) -> Attack:
    result = run_attack(attacker, case.instance, case.plus, seed=seed)
    assert isinstance(result, Attack), result
    assert check(result.instance, case.plus).feasible
    assert check(result.instance, result.solution).families == (result.family,)
    assert all(r.deliveries is None for r in result.solution.routes), "probes pin routes, not quantities"
    return result


def visitors(solution: Solution) -> dict[int, set[int]]:
    out: dict[int, set[int]] = {}
    for route in solution.routes:
        for customer in route.visits:
            out.setdefault(customer, set()).add(route.vehicle)
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_sd_remove_customer_takes_it_off_every_route(sdvrp: Case, seed: int) -> None:
    probe = attack(sdvrp, Attacker.SD_REMOVE_CUSTOMER, seed).solution
    (gone,) = {1, 2, 3} - set(probe.visited)
    expected = {k: tuple(c for c in r.visits if c != gone) for k, r in enumerate(sdvrp.plus.routes)}
    assert {r.vehicle: r.visits for r in probe.routes} == {k: v for k, v in expected.items() if v}


@pytest.mark.parametrize("seed", SEEDS)
def test_sd_isolated_subtour_leaves_no_second_visitor(sdvrp: Case, seed: int) -> None:
    """Both routes have two customers, so a whole route becomes the cycle and the shared node 2
    is taken off the other route as well."""
    probe = attack(sdvrp, Attacker.SD_ISOLATED_SUBTOUR, seed).solution
    (cycle,) = probe.cycles
    assert (cycle.vehicle, cycle.visits) in ((0, (1, 2)), (1, (2, 3)))
    on_routes = {c for r in probe.routes for c in r.visits}
    assert on_routes.isdisjoint(cycle.visits)
    assert on_routes | set(cycle.visits) == {1, 2, 3}


@pytest.mark.parametrize("seed", SEEDS)
def test_quarantine_overload_by_hand(sdvrp: Case, seed: int) -> None:
    """g = 10 (the heavier route). Either vehicle, made the only visitor of its two customers,
    must carry 12 (>= the wanted 1.05 * 10 + 2 eps, so nothing is added): Q = 10 + 0.85 * 2 = 11.7."""
    result = attack(sdvrp, Attacker.QUARANTINE_OVERLOAD, seed)
    assert result.bound is not None
    assert result.bound.g == pytest.approx(10.0)
    assert result.bound.b == pytest.approx(12.0, abs=1e-3)
    assert result.bound.value == pytest.approx(11.7)
    assert [v.capacity for v in result.instance.vehicles] == pytest.approx([11.7, 11.7])
    assert all(len(vehicles) == 1 for vehicles in visitors(result.solution).values())


@pytest.mark.parametrize("seed", SEEDS)
def test_quarantine_adds_customers_until_the_vehicle_is_clearly_overloaded(sdvrp: Case, seed: int) -> None:
    """Routes [1] (6) and [2, 3] (12): g = 12. Neither vehicle alone needs more than 12, so one
    takes every customer: b = 18, Q = 12 + 0.85 * 6 = 17.1."""
    plus = Solution(
        routes=(
            Route(vehicle=0, depot=0, visits=(1,), deliveries=(6,)),
            Route(vehicle=1, depot=0, visits=(2, 3), deliveries=(6, 6)),
        )
    )
    result = attack(Case(sdvrp.instance, plus), Attacker.QUARANTINE_OVERLOAD, seed)
    (route,) = result.solution.routes
    assert sorted(route.visits) == [1, 2, 3]
    assert result.bound is not None
    assert (result.bound.g, result.bound.value) == pytest.approx((12.0, 17.1))
    assert result.bound.b == pytest.approx(18.0, abs=1e-3)


@pytest.mark.parametrize("seed", SEEDS)
def test_phantom_delivery_grounds_one_vehicle(sdvrp: Case, seed: int) -> None:
    """Grafting either route onto the other leaves one route with all 18 units: Q = 10 + 0.85 * 8."""
    result = attack(sdvrp, Attacker.PHANTOM_DELIVERY, seed)
    (route,) = result.solution.routes
    assert sorted(route.visits) == [1, 2, 3]
    assert result.bound is not None
    assert result.bound.b == pytest.approx(18.0, abs=1e-3)
    assert result.bound.value == pytest.approx(16.8)
    assert result.bound.b - result.bound.value >= SPLIT_EPS

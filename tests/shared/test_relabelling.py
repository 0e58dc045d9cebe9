"""Which violating probes a model without a vehicle index can judge: only those no reassignment of
their routes to the fleet makes feasible."""

from __future__ import annotations

import pytest
from vrpcoder.checker import check
from vrpcoder.families import Family
from vrpcoder.instances import Customer, Depot, Instance, Vehicle
from vrpcoder.probes import Label, Probe
from vrpcoder.relabelling import feasible_relabelling, judgeable_by_arcs
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import Attacker

CORNERS = ((3.0, 0.0), (3.0, 4.0), (0.0, 4.0))


def _instance(variant: str, demands: tuple[float, ...], vehicles: tuple[Vehicle, ...], depots: int = 1) -> Instance:
    return Instance(
        name=f"tiny-{variant}",
        variant=variant,
        depots=tuple(Depot(x=float(d), y=0.0) for d in range(depots)),
        customers=tuple(Customer(x=x, y=y, demand=d) for (x, y), d in zip(CORNERS, demands, strict=True)),
        vehicles=vehicles,
    )


def _plan(*routes: tuple[int, tuple[int, ...]], depot: int = 0) -> Solution:
    return Solution(routes=tuple(Route(vehicle=k, depot=depot, visits=v) for k, v in routes))


def _violating(solution: Solution) -> Probe:
    return Probe(label=Label.INFEASIBLE, solution=solution, attacker=Attacker.CAPACITY_OVERLOAD, family=Family.CAPACITY)


@pytest.fixture
def small_and_big() -> Instance:
    """Customers 1-3 with demands 3, 4, 5; a truck of 8 (vehicle 0) and one of 12 (vehicle 1)."""
    return _instance("HFVRP", (3, 4, 5), (Vehicle(capacity=8), Vehicle(capacity=12)))


def test_an_overload_an_idle_bigger_truck_could_carry_is_not_judgeable(small_and_big: Instance) -> None:
    overloaded = _plan((0, (1, 2, 3)))
    assert check(small_and_big, overloaded).families == (Family.CAPACITY,)
    moved = feasible_relabelling(small_and_big, overloaded)
    assert moved is not None and [r.vehicle for r in moved.routes] == [1]
    assert not judgeable_by_arcs(small_and_big, _violating(overloaded))


def test_a_swap_of_the_two_trucks_counts_as_a_relabelling(small_and_big: Instance) -> None:
    """Load 9 on the small truck and 3 on the big one: swapping them is feasible."""
    swapped = _plan((0, (2, 3)), (1, (1,)))
    assert not check(small_and_big, swapped).feasible
    assert not judgeable_by_arcs(small_and_big, _violating(swapped))


def test_an_overload_no_truck_of_the_fleet_can_carry_is_judgeable() -> None:
    fleet = _instance("HFVRP", (5, 5, 5), (Vehicle(capacity=8), Vehicle(capacity=12)))
    beyond = _plan((1, (1, 2, 3)))
    assert feasible_relabelling(fleet, beyond) is None
    assert judgeable_by_arcs(fleet, _violating(beyond))


def test_two_routes_that_each_need_the_big_truck_are_judgeable() -> None:
    """Loads 10 and 9, trucks of 8 and 12: whichever way round, one route overloads."""
    fleet = _instance("HFVRP", (5, 5, 9), (Vehicle(capacity=8), Vehicle(capacity=12)))
    both_heavy = _plan((0, (1, 2)), (1, (3,)))
    assert check(fleet, both_heavy).families == (Family.CAPACITY,)
    assert feasible_relabelling(fleet, both_heavy) is None
    assert judgeable_by_arcs(fleet, _violating(both_heavy))


def test_a_lighter_pair_of_routes_swaps_onto_the_right_trucks() -> None:
    """Loads 10 and 5 on the wrong trucks: the swap carries both."""
    fleet = _instance("HFVRP", (5, 5, 5), (Vehicle(capacity=8), Vehicle(capacity=12)))
    wrong_way = _plan((0, (1, 2)), (1, (3,)))
    moved = feasible_relabelling(fleet, wrong_way)
    assert moved is not None and [r.vehicle for r in moved.routes] == [1, 0]
    assert not judgeable_by_arcs(fleet, _violating(wrong_way))


def test_a_route_may_move_to_a_truck_of_another_depot() -> None:
    """The big truck sits at the other depot. INJ pins customer-to-customer arcs only, so a
    2-index model may drive the route from there: the overload is not judgeable through arcs."""
    fleet = _instance("HFMDVRP", (3, 4, 5), (Vehicle(capacity=8, depot=0), Vehicle(capacity=12, depot=1)), depots=2)
    overloaded = _plan((0, (2, 3, 4)))
    assert check(fleet, overloaded).families == (Family.CAPACITY,)
    moved = feasible_relabelling(fleet, overloaded)
    assert moved is not None and [(r.vehicle, r.depot) for r in moved.routes] == [(1, 1)]
    assert not judgeable_by_arcs(fleet, _violating(overloaded))


def test_feasible_probes_and_identical_fleets_are_always_judgeable(small_and_big: Instance) -> None:
    assert judgeable_by_arcs(small_and_big, Probe(label=Label.FEASIBLE, solution=_plan((1, (1, 2, 3)))))
    identical = _instance("CVRP", (3, 4, 5), (Vehicle(capacity=8),) * 2)
    assert judgeable_by_arcs(identical, _violating(_plan((0, (1, 2, 3)))))

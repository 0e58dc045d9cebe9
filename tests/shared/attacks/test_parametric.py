"""Parameter attacks on the tiny instances: g, b and the tightened bound are worked out by hand.

Which route an attack targets is the seed's choice, so each expectation is a small table keyed by
the target the probe shows; every seed must land on one of its rows.
"""

from __future__ import annotations

import math

import pytest
from vrpcoder.attacks import Attack, AttackSkipped, BoundKind, run_attack
from vrpcoder.checker import backhaul_loads, check, compartment_loads, route_distance
from vrpcoder.instances import Customer, Depot, PickupDelivery, TimeWindow, Vehicle
from vrpcoder.probes import Label, Probe
from vrpcoder.relabelling import judgeable_by_arcs
from vrpcoder.solutions import Solution
from vrpcoder.variants import Attacker

from tests.shared.attacks.tiny import TWO_ROUTES, Case, make, on_axes, plan

SEEDS = range(6)


def attack(case: Case, attacker: Attacker, seed: int = 0) -> Attack:
    result = run_attack(attacker, case.instance, case.plus, seed=seed)
    assert isinstance(result, Attack), result
    assert result.bound is not None
    assert check(result.instance, case.plus).feasible
    assert check(result.instance, result.solution).families == (result.family,)
    return result


def grown_vehicle(before: Solution, after: Solution) -> int:
    """The vehicle whose route gained customers."""
    old = {r.vehicle: set(r.visits) for r in before.routes}
    (vehicle,) = [r.vehicle for r in after.routes if set(r.visits) - old.get(r.vehicle, set())]
    return vehicle


def customers_by_vehicle(solution: Solution) -> dict[int, set[int]]:
    return {r.vehicle: set(r.visits) for r in solution.routes}


# ---- capacity ---------------------------------------------------------------------------------

# Homogeneous CVRP, g = 7 (the heavier route). Target 0 (load 7) reaches 7.37 = 1.05 g + 2 eps
# cheapest with customer 4 (+1): b = 8, Q = 7 + 0.85 * 1 = 7.85. Target 1 (load 6) needs customer
# 1 (+3; customer 2 would add 4): b = 9, Q = 7 + 0.85 * 2 = 8.7.
CVRP_OVERLOAD = {
    0: (7.0, 8.0, 7.85, {0: {1, 2, 4}, 1: {3}}),
    1: (7.0, 9.0, 8.7, {0: {2}, 1: {1, 3, 4}}),
}


@pytest.mark.parametrize("seed", SEEDS)
def test_capacity_overload_tightens_the_common_capacity(cvrp: Case, seed: int) -> None:
    result = attack(cvrp, Attacker.CAPACITY_OVERLOAD, seed)
    g, b, value, routes = CVRP_OVERLOAD[grown_vehicle(cvrp.plus, result.solution)]
    assert result.bound is not None
    assert (result.bound.kind, result.bound.vehicle) == (BoundKind.CAPACITY, None)
    assert (result.bound.g, result.bound.b, result.bound.value) == pytest.approx((g, b, value))
    assert [v.capacity for v in result.instance.vehicles] == pytest.approx([value, value])
    assert customers_by_vehicle(result.solution) == routes


# Heterogeneous: g is the target vehicle's own load and only its capacity changes. Target 0:
# g = 7, b = 8 -> 7.85. Target 1: g = 6, goal 6.32, customer 1 (+3) -> b = 9, Q_1 = 6 + 2.55 = 8.55.
HF_OVERLOAD = {0: (7.0, 8.0, (7.85, 12.0)), 1: (6.0, 9.0, (8.0, 8.55))}


@pytest.mark.parametrize("seed", SEEDS)
def test_capacity_overload_tightens_only_the_target_vehicle_of_a_mixed_fleet(hfvrp: Case, seed: int) -> None:
    result = attack(hfvrp, Attacker.CAPACITY_OVERLOAD, seed)
    target = grown_vehicle(hfvrp.plus, result.solution)
    g, b, capacities = HF_OVERLOAD[target]
    assert result.bound is not None
    assert result.bound.vehicle == target
    assert (result.bound.g, result.bound.b) == pytest.approx((g, b))
    assert tuple(v.capacity for v in result.instance.vehicles) == pytest.approx(capacities)


def judgeable_without_vehicles(result: Attack) -> bool:
    """Whether a model whose ``x`` has no vehicle index could be asked about the probe."""
    probe = Probe(
        label=Label.INFEASIBLE, solution=result.solution, attacker=result.attacker, family=result.family
    )
    return judgeable_by_arcs(result.instance, probe)


def mixed_fleet(
    demands: tuple[float, ...], capacities: tuple[float, ...], plus: Solution = TWO_ROUTES
) -> Case:
    return Case(make("HFVRP", on_axes(demands), tuple(Vehicle(capacity=q) for q in capacities)), plus)


@pytest.mark.parametrize("seed", SEEDS)
def test_hf_overload_piles_everything_beyond_the_largest_vehicle(hfvrp: Case, seed: int) -> None:
    """All 13 units of demand on one route exceed even the 12 of the large vehicle: no capacity
    is changed, the bound records the target's own one."""
    result = attack(hfvrp, Attacker.HF_OVERLOAD, seed)
    (route,) = result.solution.routes
    assert sorted(route.visits) == [1, 2, 3, 4]
    assert result.instance == hfvrp.instance
    assert result.bound is not None
    expected_g, own = {0: (7.0, 8.0), 1: (6.0, 12.0)}[route.vehicle]
    assert (result.bound.g, result.bound.b, result.bound.value) == pytest.approx((expected_g, 13.0, own))
    assert judgeable_without_vehicles(result)


@pytest.mark.parametrize("seed", SEEDS)
def test_hf_overload_tightens_a_lone_carrier_below_a_pile_no_other_vehicle_carries(seed: int) -> None:
    """Demands 1, 6 | 5, 1 on trucks of 8 and 20: the whole 13 fits the big truck, but piling 12
    onto its route (customer 2 joins) is beyond the small one, and the big truck is set to
    6 + 0.85 * 6 = 11.1. The move overloads (8 on truck 0, 7 on truck 1) would both fit after a
    swap of the trucks."""
    result = attack(mixed_fleet((1, 6, 5, 1), (8, 20)), Attacker.HF_OVERLOAD, seed)
    assert result.bound is not None
    assert (result.bound.vehicle, result.bound.g, result.bound.b) == (1, 6.0, pytest.approx(12.0))
    assert tuple(v.capacity for v in result.instance.vehicles) == pytest.approx((8.0, 11.1))
    assert customers_by_vehicle(result.solution) == {0: {1}, 1: {2, 3, 4}}
    assert judgeable_without_vehicles(result)


@pytest.mark.parametrize("seed", SEEDS)
def test_hf_overload_prefers_the_move_no_relabelling_makes_feasible(seed: int) -> None:
    """Demands 8, 1 | 3, 3 on trucks of 16 and 20: the whole 15 fits either truck. Truck 0 gaining
    a 3 (12 on a capacity set to 11.55) is undone by swapping the trucks. Truck 1 gaining customer
    2 (7 on a capacity set to 6.85) is not: the 8 left on truck 0 does not fit truck 1 either."""
    result = attack(mixed_fleet((8, 1, 3, 3), (16, 20)), Attacker.HF_OVERLOAD, seed)
    assert result.bound is not None
    assert (result.bound.vehicle, result.bound.g, result.bound.b) == (1, 6.0, pytest.approx(7.0))
    assert tuple(v.capacity for v in result.instance.vehicles) == pytest.approx((16.0, 6.85))
    assert judgeable_without_vehicles(result)


@pytest.mark.parametrize("seed", SEEDS)
def test_capacity_overload_on_a_mixed_fleet_prefers_the_move_no_relabelling_makes_feasible(seed: int) -> None:
    """The same fleet and plan as above, attacked by the plain capacity attacker (the only capacity
    attack of HFMDVRP and HFMCVRP): it too picks truck 1 gaining customer 2."""
    result = attack(mixed_fleet((8, 1, 3, 3), (16, 20)), Attacker.CAPACITY_OVERLOAD, seed)
    assert result.bound is not None
    assert (result.bound.vehicle, result.bound.g, result.bound.b) == (1, 6.0, pytest.approx(7.0))
    assert judgeable_without_vehicles(result)


@pytest.mark.parametrize("seed", SEEDS)
def test_capacity_overload_on_a_mixed_fleet_still_attacks_when_nothing_is_relabel_proof(seed: int) -> None:
    """Trucks of 16 and 20, demand 13: every move overload fits after a swap of the trucks; the
    attack still tightens the target vehicle, for models that index vehicles."""
    result = attack(mixed_fleet((3, 4, 5, 1), (16, 20)), Attacker.CAPACITY_OVERLOAD, seed)
    assert result.bound is not None and result.bound.vehicle is not None
    assert not judgeable_without_vehicles(result)


@pytest.mark.parametrize("seed", SEEDS)
def test_hf_overload_takes_a_relabel_proof_probe_even_at_the_bound_in_force(seed: int) -> None:
    """Demands 5, 2 | 2 | 6 on trucks of 15, 3 and 15. Truck 1 gaining customer 2 carries 4, and
    the rule's 2 + 0.85 * 2 = 3.7 lies above its 3, so its bound stays 3; every route then
    outweighs truck 1, which must take one of them. The other targets keep the rule's value but
    their routes fit after a relabelling."""
    case = mixed_fleet((5, 2, 2, 6), (15, 3, 15), plan((0, (1, 2)), (1, (3,)), (2, (4,))))
    result = attack(case, Attacker.HF_OVERLOAD, seed)
    assert result.bound is not None
    assert (result.bound.vehicle, result.bound.g, result.bound.b, result.bound.value) == pytest.approx(
        (1, 2.0, 4.0, 3.0)
    )
    assert result.instance.vehicles == case.instance.vehicles
    assert judgeable_without_vehicles(result)


@pytest.mark.parametrize("seed", SEEDS)
def test_hf_overload_falls_back_to_the_move_overload(seed: int) -> None:
    """Trucks of 16 and 20 and a demand of 13: no pile outgrows the fleet or the small truck, and
    each move overload fits after a swap of the trucks. The fallback still tightens the target
    vehicle like the move overload (targets as in HF_OVERLOAD), for models that index vehicles."""
    case = mixed_fleet((3, 4, 5, 1), (16, 20))
    result = attack(case, Attacker.HF_OVERLOAD, seed)
    target = grown_vehicle(case.plus, result.solution)
    expected = {0: (7.85, 20.0), 1: (16.0, 8.55)}[target]
    assert tuple(v.capacity for v in result.instance.vehicles) == pytest.approx(expected)
    assert not judgeable_without_vehicles(result)


@pytest.mark.parametrize("seed", SEEDS)
def test_capacity_overload_widens_compartments_it_would_otherwise_overflow(mcvrp: Case, seed: int) -> None:
    """Compartments of 4 each: the loads (3,3) and (3,1) fit, but route 1 gaining customer 1 or 2
    (compartment 0 to 5 or 4) could overflow compartment 0. Total loads 6 and 4: g = 6, b = 7,
    Q = 6.85; compartments may only grow, and must hold the probe."""
    fleet = (Vehicle(capacity=8, compartment_capacity=(4.0, 4.0)),) * 2
    case = Case(make("MCVRP", mcvrp.instance.customers, fleet), mcvrp.plus)
    result = attack(case, Attacker.CAPACITY_OVERLOAD, seed)
    assert result.bound is not None
    assert (result.bound.g, result.bound.b, result.bound.value) == pytest.approx((6.0, 7.0, 6.85))
    for vehicle in result.instance.vehicles:
        assert vehicle.capacity == pytest.approx(6.85)
        assert all(c >= 4.0 for c in vehicle.compartment_capacity or ())
    for route in result.solution.routes:
        limits = result.instance.vehicles[route.vehicle].compartment_capacity or ()
        assert all(
            load <= limit
            for load, limit in zip(compartment_loads(result.instance, route), limits, strict=True)
        )


@pytest.mark.parametrize("seed", SEEDS)
def test_capacity_overload_on_backhauls_piles_pickups_first(seed: int) -> None:
    """Route [1, 2] carries linehaul 6 and backhaul 1, route [3, 4] linehaul 0.5 and backhaul 6:
    g = 6. Piling the other route's cheapest unit would add a delivery (linehaul 6.5), which a
    model checking only deliveries rejects as well; piling pickups first gives backhaul 7 on
    either route with its deliveries within Q = 6 + 0.85 * 1 = 6.85, which such a model accepts."""
    customers = on_axes((6, 1, 0.5, 6), backhaul=(False, True, False, True))
    case = Case(make("VRPB", customers, (Vehicle(capacity=10),) * 2), TWO_ROUTES)
    result = attack(case, Attacker.CAPACITY_OVERLOAD, seed)
    assert result.bound is not None
    assert (result.bound.g, result.bound.b, result.bound.value) == pytest.approx((6.0, 7.0, 6.85))
    loads = [backhaul_loads(result.instance, r) for r in result.solution.routes if r.visits]
    assert any(pickups > 6.85 >= deliveries for deliveries, pickups in loads)


def test_capacity_overload_needs_a_second_route(cvrp: Case) -> None:
    case = Case(make("CVRP", cvrp.instance.customers, (Vehicle(capacity=20),) * 2), plan((0, (1, 2, 3, 4))))
    result = run_attack(Attacker.CAPACITY_OVERLOAD, case.instance, case.plus)
    assert isinstance(result, AttackSkipped)
    assert "lifts a route's load" in result.reason


# ---- compartments -----------------------------------------------------------------------------

# (compartment, target vehicle) -> (g, b, Q_c); g = 3 for both compartments (largest route load).
# c=0: target 0 takes customer 3 (+3) -> b = 6, 5.55; target 1 takes customer 2 (+1) -> b = 4, 3.85.
# c=1: target 0 takes customer 4 (+1) -> b = 4; target 1 needs customers 2 then 1 -> b = 4; 3.85.
COMPARTMENT_OVERLOAD = {
    (0, 0): (3.0, 6.0, 5.55),
    (0, 1): (3.0, 4.0, 3.85),
    (1, 0): (3.0, 4.0, 3.85),
    (1, 1): (3.0, 4.0, 3.85),
}


@pytest.mark.parametrize("seed", SEEDS)
def test_compartment_overload_tightens_one_compartment(mcvrp: Case, seed: int) -> None:
    result = attack(mcvrp, Attacker.COMPARTMENT_OVERLOAD, seed)
    bound = result.bound
    assert bound is not None and bound.compartment is not None
    target = grown_vehicle(mcvrp.plus, result.solution)
    assert (bound.g, bound.b, bound.value) == pytest.approx(COMPARTMENT_OVERLOAD[(bound.compartment, target)])
    other = 1 - bound.compartment
    for vehicle in result.instance.vehicles:
        limits = vehicle.compartment_capacity or ()
        assert limits[bound.compartment] == pytest.approx(bound.value)
        assert limits[other] == 10.0
        assert vehicle.capacity == 20.0


# ---- distance ---------------------------------------------------------------------------------


def test_distance_overrun_by_hand(dcvrp: Case) -> None:
    """g = 16 (route [3, 4]). Customer 1 at its shortest position, [3, 4, 1], makes the route
    4 + 4 + sqrt(73) + 3 = 19.544 (customer 2 would make it 24): D = 16 + 0.85 * 3.544 = 19.012,
    stored as 19.01."""
    result = attack(dcvrp, Attacker.DISTANCE_OVERRUN)
    b = 11 + math.sqrt(73)
    assert result.bound is not None
    assert (result.bound.g, result.bound.b) == pytest.approx((16.0, b))
    assert result.bound.value == 19.01 == result.instance.max_route_distance
    assert {r.vehicle: r.visits for r in result.solution.routes} == {0: (2,), 1: (3, 4, 1)}


def test_distance_overrun_reorders_a_lone_route(dcvrp: Case) -> None:
    case = Case(dcvrp.instance, plan((0, (1, 2, 3, 4))))
    result = attack(case, Attacker.DISTANCE_OVERRUN)
    (route,) = result.solution.routes
    assert sorted(route.visits) == [1, 2, 3, 4]
    g = route_distance(case.instance, case.plus.routes[0])
    assert result.bound is not None
    assert result.bound.g == pytest.approx(g) and result.bound.g < result.bound.value < result.bound.b
    assert route_distance(case.instance, route) == pytest.approx(result.bound.b)


# ---- time windows -----------------------------------------------------------------------------

# Route [1, 2] starts service at 3 and 7: windows narrowed to [2, 4] and [6, 8]; swapped, node 2
# starts at 6 and node 1 at 6 + 1 + 3 = 10 > 4. Route [3, 4] starts at 4 and 9: windows [3, 5],
# [8, 10]; swapped, node 4 starts at 8 and node 3 at 8 + 1 + 4 = 13 > 5.
WINDOW_ATTACK = {
    0: ((2, 1), 1, 3.0, 10.0, 4.0, {1: (2.0, 4.0), 2: (6.0, 8.0)}),
    1: ((4, 3), 3, 4.0, 13.0, 5.0, {3: (3.0, 5.0), 4: (8.0, 10.0)}),
}


@pytest.mark.parametrize("seed", SEEDS)
def test_time_window_swaps_neighbours_and_narrows_the_routes_windows(vrphtw: Case, seed: int) -> None:
    result = attack(vrphtw, Attacker.TIME_WINDOW, seed)
    bound = result.bound
    assert bound is not None and bound.vehicle is not None
    visits, customer, g, b, value, windows = WINDOW_ATTACK[bound.vehicle]
    swapped = result.solution.route_of(bound.vehicle)
    assert swapped is not None and swapped.visits == visits
    assert (bound.customer, bound.value) == (customer, value)
    assert (bound.g, bound.b) == pytest.approx((g, b))
    for node in result.instance.customer_nodes:
        window = result.instance.customer(node).window
        assert window is not None
        assert (window.start, window.end) == pytest.approx(windows.get(node, (0.0, 50.0)))


def test_time_window_never_swaps_a_pickup_with_its_own_delivery() -> None:
    """Route [1, 2, 3, 4] with pairs 1->2 and 3->4: only nodes 2 and 3 may trade places. Starts
    3, 7, 15.21, 20.21; node 2's window becomes [6, 8] and after the swap it starts at 22.42."""
    customers = on_axes((0, 0, 0, 0), service_time=(1, 1, 1, 1), window=(TimeWindow(start=0, end=200),) * 4)
    pairs = (
        PickupDelivery(pickup=1, delivery=2, quantity=1),
        PickupDelivery(pickup=3, delivery=4, quantity=1),
    )
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=1200))
    instance = make("PDPTW", customers, (Vehicle(), Vehicle()), pairs=pairs, depots=(depot,))
    for seed in SEEDS:
        result = attack(Case(instance, plan((0, (1, 2, 3, 4)))), Attacker.TIME_WINDOW, seed)
        assert result.solution.routes[0].visits == (1, 3, 2, 4)
        assert result.bound is not None
        assert (result.bound.customer, result.bound.value) == (2, 8.0)
        assert result.bound.b == pytest.approx(14.21 + 1 + math.sqrt(52))


def test_time_window_keeps_only_swaps_that_miss_a_window() -> None:
    """Two customers at the same spot with no service time: swapping them changes no start, so
    no window is missed and the attack has nothing to offer."""
    spot = Customer(x=3, y=0, demand=1, window=TimeWindow(start=0, end=50))
    depot = Depot(x=0, y=0, window=TimeWindow(start=0, end=100))
    instance = make("VRPHTW", (spot, spot), (Vehicle(capacity=10),), depots=(depot,))
    result = run_attack(Attacker.TIME_WINDOW, instance, plan((0, (1, 2))))
    assert isinstance(result, AttackSkipped)

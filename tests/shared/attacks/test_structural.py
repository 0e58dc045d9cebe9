"""Structural attacks on the tiny instances: the probe is worked out by hand from s+."""

from __future__ import annotations

import pytest
from vrpcoder.attacks import Attack, AttackSkipped, run_attack
from vrpcoder.attacks.structural import carried_within_capacity
from vrpcoder.checker import check
from vrpcoder.families import Family, Rule
from vrpcoder.instances import Vehicle
from vrpcoder.solutions import Solution
from vrpcoder.variants import Attacker

from tests.shared.attacks.tiny import Case, make, on_axes, plan

SEEDS = range(6)


def attack(case: Case, attacker: Attacker, seed: int = 0) -> Attack:
    result = run_attack(attacker, case.instance, case.plus, seed=seed)
    assert isinstance(result, Attack), result
    assert result.instance == case.instance, "structural attacks keep the instance"
    assert result.bound is None
    return result


def visits_of(solution: Solution) -> dict[int, tuple[int, ...]]:
    return {r.vehicle: r.visits for r in solution.routes}


@pytest.mark.parametrize("seed", SEEDS)
def test_remove_customer_leaves_exactly_one_customer_out(cvrp: Case, seed: int) -> None:
    probe = attack(cvrp, Attacker.REMOVE_CUSTOMER, seed).solution
    missing = set(cvrp.instance.customer_nodes) - set(probe.visited)
    assert len(missing) == 1 and len(probe.visited) == 3
    (gone,) = missing
    before = visits_of(cvrp.plus)
    expected = {k: tuple(v for v in visits if v != gone) for k, visits in before.items()}
    assert visits_of(probe) == expected


def test_the_seed_decides_which_customer_goes(cvrp: Case) -> None:
    removed = {
        frozenset(
            set(cvrp.instance.customer_nodes)
            - set(attack(cvrp, Attacker.REMOVE_CUSTOMER, s).solution.visited)
        )
        for s in range(20)
    }
    assert len(removed) > 1
    assert attack(cvrp, Attacker.REMOVE_CUSTOMER, 3) == attack(cvrp, Attacker.REMOVE_CUSTOMER, 3)


@pytest.mark.parametrize("seed", SEEDS)
def test_remove_customer_takes_a_whole_pickup_delivery_pair(pdp: Case, seed: int) -> None:
    probe = attack(pdp, Attacker.REMOVE_CUSTOMER, seed).solution
    missing = set(pdp.instance.customer_nodes) - set(probe.visited)
    assert missing in ({1, 2}, {3, 4})


@pytest.mark.parametrize("seed", SEEDS)
def test_subtour_cycle_lifts_a_whole_two_customer_route(cvrp: Case, seed: int) -> None:
    probe = attack(cvrp, Attacker.SUBTOUR_CYCLE, seed).solution
    (cycle,) = probe.cycles
    assert (cycle.vehicle, cycle.visits) in ((0, (1, 2)), (1, (3, 4)))
    other = 1 if cycle.vehicle == 0 else 0
    assert visits_of(probe) == {other: visits_of(cvrp.plus)[other]}


@pytest.mark.parametrize("seed", SEEDS)
def test_subtour_cycle_prefers_a_stretch_that_leaves_the_route_a_customer(cvrp: Case, seed: int) -> None:
    case = Case(cvrp.instance, plan((0, (1, 2, 4)), (1, (3,))))
    probe = attack(case, Attacker.SUBTOUR_CYCLE, seed).solution
    (cycle,) = probe.cycles
    assert cycle.visits in ((1, 2), (2, 4))
    rest = (4,) if cycle.visits == (1, 2) else (1,)
    assert visits_of(probe) == {0: rest, 1: (3,)}


def test_subtour_cycle_takes_two_routes_customers_when_no_route_has_two() -> None:
    instance = make("CVRP", on_axes((1, 1, 1, 1))[:2], (Vehicle(capacity=10),) * 2)
    result = run_attack(Attacker.SUBTOUR_CYCLE, instance, plan((0, (1,)), (1, (2,))))
    assert not isinstance(result, AttackSkipped)
    (cycle,) = result.solution.cycles
    assert sorted(cycle.visits) == [1, 2] and not [r for r in result.solution.routes if r.visits]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_cycle_across_routes_is_driven_by_a_vehicle_that_can_carry_it(seed: int) -> None:
    """Customers 1 and 2 (4 each) form the cycle; only vehicle 1 (capacity 10, not 5) carries 8.
    A vehicle-indexed model counts the cycle into its vehicle's load: on vehicle 0 it would be
    rejected for capacity even without subtour elimination, and the probe would test nothing."""
    customers = on_axes((4, 4, 1, 1))[:2]
    instance = make("HFVRP", customers, (Vehicle(capacity=5), Vehicle(capacity=10)))
    result = run_attack(Attacker.SUBTOUR_CYCLE, instance, plan((0, (1,)), (1, (2,))), seed=seed)
    assert isinstance(result, Attack), result
    (cycle,) = result.solution.cycles
    assert cycle.vehicle == 1 and sorted(cycle.visits) == [1, 2]
    assert carried_within_capacity(instance, result.solution)
    assert not carried_within_capacity(instance, result.solution.model_copy(update={"cycles": (cycle.model_copy(update={"vehicle": 0}),)}))


def test_subtour_cycle_needs_two_customers() -> None:
    instance = make("CVRP", on_axes((1, 1, 1, 1))[:1], (Vehicle(capacity=10),))
    result = run_attack(Attacker.SUBTOUR_CYCLE, instance, plan((0, (1,))))
    assert isinstance(result, AttackSkipped)
    assert "two customers" in result.reason


def test_vrpb_subtour_cycle_is_of_one_kind_when_one_exists() -> None:
    """Routes [1 linehaul, 2 backhaul] and [3 linehaul, 4 backhaul]: every stretch of a route mixes
    the kinds (its closing arc breaks the backhaul rule too), so the cycle joins the two backhauls."""
    instance = make("VRPB", on_axes((3, 4, 5, 1), backhaul=(False, True, False, True)), (Vehicle(capacity=10),) * 2)
    result = run_attack(Attacker.SUBTOUR_CYCLE, instance, plan((0, (1, 2)), (1, (3, 4))))
    assert not isinstance(result, AttackSkipped)
    (cycle,) = result.solution.cycles
    assert sorted(cycle.visits) == [2, 4]


@pytest.mark.parametrize("seed", SEEDS)
def test_backhaul_order_serves_a_linehaul_after_a_backhaul_on_a_route_that_starts_with_one(
    vrpb_mixed: Case, seed: int
) -> None:
    """Issue 28.2: the probe breaks the order rule alone; a route that started with its backhaul
    would break the route-start rule too, and a model that keeps either would reject it."""
    probe = attack(vrpb_mixed, Attacker.BACKHAUL_ORDER, seed).solution
    backhaul = {c: vrpb_mixed.instance.customer(c).backhaul for c in vrpb_mixed.instance.customer_nodes}
    assert all(not backhaul[r.visits[0]] for r in probe.routes)
    (violation,) = check(vrpb_mixed.instance, probe).violations
    assert violation.rule is Rule.LINEHAUL_FIRST
    assert any(backhaul[a] and not backhaul[b] for r in probe.routes for a, b in zip(r.visits, r.visits[1:]))


def test_backhaul_order_is_skipped_where_every_order_break_also_starts_a_route_with_a_backhaul(vrpb: Case) -> None:
    """One linehaul a route: serving one after a backhaul leaves the other route with backhauls
    only, so no probe breaks the order rule alone."""
    result = run_attack(Attacker.BACKHAUL_ORDER, vrpb.instance, vrpb.plus)
    assert isinstance(result, AttackSkipped) and "linehaul_first alone" in result.reason


def test_backhaul_order_refuses_a_plan_with_a_route_of_backhauls_only(vrpb: Case) -> None:
    """Route 1 holds the backhauls 2, 4 alone: every VRPB route serves a linehaul customer
    (docs/semantics.md), so that plan is no s+ and no attack may start from it."""
    case = Case(vrpb.instance, plan((0, (1, 3)), (1, (2, 4))))
    with pytest.raises(ValueError, match="only backhaul"):
        attack(case, Attacker.BACKHAUL_ORDER, 0)


@pytest.mark.parametrize("seed", SEEDS)
def test_precedence_serves_a_delivery_before_its_pickup(pdp: Case, seed: int) -> None:
    probe = attack(pdp, Attacker.PRECEDENCE, seed).solution
    changed = {k: v for k, v in visits_of(probe).items() if v != visits_of(pdp.plus)[k]}
    assert changed in ({0: (2, 1)}, {1: (4, 3)})


@pytest.mark.parametrize("seed", SEEDS)
def test_split_pd_pair_hands_the_delivery_to_the_other_vehicle(pdp: Case, seed: int) -> None:
    probe = attack(pdp, Attacker.SPLIT_PD_PAIR, seed).solution
    owner = {c: r.vehicle for r in probe.routes for c in r.visits}
    split = [p for p in pdp.instance.pairs if owner[p.pickup] != owner[p.delivery]]
    assert len(split) == 1
    (pair,) = split
    assert owner[pair.pickup] == {1: 0, 3: 1}[pair.pickup], "the pickup stays on its vehicle"
    assert sorted(owner) == [1, 2, 3, 4]


def test_split_pd_pair_needs_a_second_vehicle(pdp: Case) -> None:
    instance = make("PDP", pdp.instance.customers, (Vehicle(capacity=10),), pairs=pdp.instance.pairs)
    result = run_attack(Attacker.SPLIT_PD_PAIR, instance, plan((0, (1, 2, 3, 4))))
    assert isinstance(result, AttackSkipped)
    assert "single vehicle" in result.reason


@pytest.mark.parametrize(
    ("fixture", "attacker"),
    [
        ("cvrp", Attacker.REMOVE_CUSTOMER),
        ("cvrp", Attacker.SUBTOUR_CYCLE),
        ("vrpb_mixed", Attacker.BACKHAUL_ORDER),
        ("pdp", Attacker.PRECEDENCE),
        ("pdp", Attacker.SPLIT_PD_PAIR),
    ],
)
def test_probe_breaks_only_its_target(
    fixture: str, attacker: Attacker, request: pytest.FixtureRequest
) -> None:
    case: Case = request.getfixturevalue(fixture)
    result = attack(case, attacker)
    assert check(case.instance, result.solution).families == (result.family,)
    assert (
        result.family
        is {
            Attacker.REMOVE_CUSTOMER: Family.COVERAGE,
            Attacker.SUBTOUR_CYCLE: Family.SUBTOUR,
            Attacker.BACKHAUL_ORDER: Family.BACKHAUL,
            Attacker.PRECEDENCE: Family.PRECEDENCE,
            Attacker.SPLIT_PD_PAIR: Family.PAIRING,
        }[attacker]
    )

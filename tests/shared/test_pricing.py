"""The checker's price term by term (``vrpcoder.pricing``), without a solver."""

from __future__ import annotations

import pytest

from vrpcoder.checker import check
from vrpcoder.instances import Customer, Depot, Instance, TimeWindow, Vehicle
from vrpcoder.pricing import plan_price, price_terms, terms_behind_gap
from vrpcoder.solutions import Cycle, Route, Solution
from vrpcoder_client.verdicts import PriceKind, PriceTerm


def _line(variant: str, **customer: object) -> Instance:
    """A depot at 0 and three customers on a line at 10, 20, 30 (distances are plain)."""
    windows = variant.endswith("STW")
    return Instance(
        name="line",
        variant=variant,
        depots=(Depot(x=0.0, y=0.0, window=TimeWindow(start=0.0, end=500.0) if windows else None),),
        customers=tuple(
            Customer(
                x=10.0 * (i + 1), y=0.0, demand=1.0,
                **({"window": TimeWindow(start=0.0, end=15.0), "late_penalty": 2.0} if windows else {}),
                **customer,
            )
            for i in range(3)
        ),
        vehicles=(
            Vehicle(capacity=10.0, fixed_cost=5.0 if variant.startswith("HF") else 0.0, cost_per_distance=1.0),
            Vehicle(capacity=10.0, fixed_cost=7.0 if variant.startswith("HF") else 0.0,
                    cost_per_distance=1.5 if variant.startswith("HF") else 1.0),
        ),
    )


def _total(terms: tuple[PriceTerm, ...]) -> float:
    return sum(t.value for t in terms if t.priced)


def test_soft_window_lateness_is_itemised_per_late_customer() -> None:
    instance = _line("VRPSTW")
    plan = Solution(routes=(Route(vehicle=0, depot=0, visits=(1, 2, 3)),))
    terms = price_terms(instance, plan)
    late = {t.customer: t.value for t in terms if t.kind is PriceKind.LATENESS}
    assert late == {2: pytest.approx(2.0 * 5.0), 3: pytest.approx(2.0 * 15.0)}  # starts at 20 and 30, closes at 15
    assert _total(terms) == pytest.approx(plan_price(instance, plan)) == pytest.approx(60.0 + 40.0)


def test_fixed_costs_and_rates_follow_each_vehicle() -> None:
    instance = _line("HFVRP")
    plan = Solution(routes=(Route(vehicle=0, depot=0, visits=(1,)), Route(vehicle=1, depot=0, visits=(2, 3))))
    terms = price_terms(instance, plan)
    assert {(t.kind, t.vehicle): t.value for t in terms} == {
        (PriceKind.DISTANCE, 0): pytest.approx(20.0),
        (PriceKind.DISTANCE, 1): pytest.approx(1.5 * 60.0),
        (PriceKind.FIXED, 0): 5.0,
        (PriceKind.FIXED, 1): 7.0,
    }
    assert _total(terms) == pytest.approx(check(instance, plan).cost)


def test_an_open_routes_return_leg_is_listed_but_not_priced() -> None:
    instance = _line("OVRP")
    plan = Solution(routes=(Route(vehicle=0, depot=0, visits=(1, 2)),))
    terms = price_terms(instance, plan)
    (back,) = [t for t in terms if t.kind is PriceKind.RETURN_LEG]
    assert not back.priced and back.value == pytest.approx(20.0)
    assert _total(terms) == pytest.approx(plan_price(instance, plan)) == pytest.approx(20.0)


def test_cycles_are_priced_as_the_checker_prices_them() -> None:
    instance = _line("CVRP")
    plan = Solution(routes=(Route(vehicle=0, depot=0, visits=(1,)),), cycles=(Cycle(visits=(2, 3)),))
    assert _total(price_terms(instance, plan)) == pytest.approx(check(instance, plan).cost) == pytest.approx(40.0)


@pytest.mark.parametrize(
    ("gap", "expected"),
    [
        (40.0, [(PriceKind.LATENESS, "all")]),  # every late unit priced at 0: the whole lateness
        (-30.0, [(PriceKind.LATENESS, 3)]),  # one customer's lateness (sign does not matter)
        (20.0, [(PriceKind.RETURN_LEG, 1)]),  # an open route that pays its way back
        (13.0, []),  # nothing of that value
        (0.0005, []),  # within the tolerance: no gap at all
    ],
)
def test_the_terms_behind_a_gap_are_those_whose_value_it_equals(
    gap: float, expected: list[tuple[PriceKind, object]]
) -> None:
    terms = (
        PriceTerm(kind=PriceKind.DISTANCE, vehicle=0, value=60.0, detail="route"),
        PriceTerm(kind=PriceKind.LATENESS, customer=2, value=10.0, detail="late"),
        PriceTerm(kind=PriceKind.LATENESS, customer=3, value=30.0, detail="late"),
        PriceTerm(kind=PriceKind.RETURN_LEG, vehicle=1, value=20.0, detail="back", priced=False),
    )
    found = terms_behind_gap(terms, gap, 1e-3)
    assert [(t.kind, t.customer or t.vehicle or "all") for t in found] == expected

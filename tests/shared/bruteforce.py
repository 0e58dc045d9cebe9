"""A third opinion on optima: enumerate every route plan of a tiny instance and keep the cheapest.

It shares nothing with the gold scripts (no solver, no formulation) and judges plans only through
the independent checker, so "gold optimum == enumerated optimum" is evidence that the gold model
neither cuts off legal plans nor admits illegal ones. Test support only; import it in tests as
``from tests.shared.bruteforce import brute_force_optimum``.

Enumerated: every assignment of customers to vehicles and every visiting order per vehicle (each
vehicle from its own depot). With n <= 5 customers and K <= 3 vehicles that is at most
n! * C(n + K - 1, K - 1) = 2520 plans. Split delivery is not enumerable this way: quantities are
continuous, so a plan is not a finite object.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import permutations, product

from vrpcoder.checker import check
from vrpcoder.instances import Instance
from vrpcoder.solutions import Route, Solution
from vrpcoder.variants import Module

MAX_CUSTOMERS = 5
MAX_VEHICLES = 3


def brute_force_optimum(instance: Instance) -> tuple[float, Solution]:
    """Cheapest plan the checker finds feasible (the first one found among equal costs)."""
    if instance.has(Module.SPLIT):
        raise ValueError("split delivery is not enumerable")
    n, k = len(instance.customers), len(instance.vehicles)
    if n > MAX_CUSTOMERS or k > MAX_VEHICLES:
        raise ValueError(
            f"{instance.name}: {n} customers and {k} vehicles are too many to enumerate "
            f"(at most {MAX_CUSTOMERS} and {MAX_VEHICLES})"
        )
    best: tuple[float, Solution] | None = None
    for solution in route_plans(instance):
        report = check(instance, solution)
        if report.feasible and (best is None or report.cost < best[0]):
            best = (report.cost, solution)
    if best is None:
        raise ValueError(f"{instance.name}: no route plan is feasible")
    return best


def route_plans(instance: Instance) -> Iterator[Solution]:
    """Every plan that visits each customer once; unused vehicles get no route."""
    customers = list(instance.customer_nodes)
    fleet = range(len(instance.vehicles))
    for owners in product(fleet, repeat=len(customers)):
        groups = [[c for c, owner in zip(customers, owners, strict=True) if owner == k] for k in fleet]
        for orders in product(*(permutations(group) for group in groups)):
            yield _solution(instance, orders)


def _solution(instance: Instance, orders: Sequence[tuple[int, ...]]) -> Solution:
    routes = tuple(
        Route(vehicle=k, depot=instance.vehicles[k].depot, visits=visits)
        for k, visits in enumerate(orders)
        if visits
    )
    return Solution(routes=routes)

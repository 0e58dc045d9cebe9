"""Gold scripts on real library instances reproduce published optima under the file's own
distance convention; sub-instances too large to publish are confirmed by independent methods."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared.bruteforce import brute_force_optimum
from vrpcoder.audit import audit_gold
from vrpcoder.checker import check
from vrpcoder.crosscheck import solve_pyvrp
from vrpcoder.importers import import_instance

DATA = Path(__file__).resolve().parents[1] / "data" / "instances"

# Published optima (TSPLIB) - independent of our code; the files carry GEO / explicit matrices.
TSPLIB = [
    ("gr21.tsp", 2707.0),
    ("gr24.tsp", 1272.0),
    ("ulysses22.tsp", 7013.0),
    ("fri26.tsp", 937.0),
    ("bays29.tsp", 2020.0),
]


def _assert_reproduces(file: str, published: float, time_limit: float) -> None:
    instance = import_instance(DATA / "tsplib" / file)
    audit = audit_gold(instance, time_limit=time_limit)
    assert audit.status == "optimal", audit
    assert audit.objective == pytest.approx(published, abs=1e-6)
    assert audit.trusted


@pytest.mark.parametrize(("file", "published"), TSPLIB)
def test_tsplib_optimum_reproduced(file: str, published: float) -> None:
    _assert_reproduces(file, published, time_limit=120)


def test_whole_cvrplib_files_exceed_the_size_limited_licence_and_say_so() -> None:
    """P-n16-k8 needs 16*16*8 = 2048 routing variables: reported as the licence's limit, never
    as infeasible (with a full licence the same test reproduces 450)."""
    instance = import_instance(DATA / "cvrplib" / "P-n16-k8.vrp")
    audit = audit_gold(instance, time_limit=120)
    if audit.status == "size_limited_licence":
        assert audit.objective is None
    else:
        assert audit.objective == pytest.approx(450.0)


@pytest.mark.parametrize("customers", [4, 5])
def test_solomon_sub_instance_gold_equals_brute_force(customers: int) -> None:
    instance = import_instance(DATA / "solomon" / "C101.txt", customers=customers, vehicles=2)
    audit = audit_gold(instance)
    assert audit.trusted, audit
    optimum, _ = brute_force_optimum(instance)
    assert audit.objective == pytest.approx(optimum, rel=1e-6)


@pytest.mark.parametrize("customers", [8, 10, 12])
def test_solomon_sub_instance_never_beaten_by_pyvrp(customers: int) -> None:
    instance = import_instance(DATA / "solomon" / "C101.txt", customers=customers, vehicles=4)
    audit = audit_gold(instance)
    assert audit.trusted, audit
    found = solve_pyvrp(instance, seconds=1.0)
    assert found is not None
    report = check(instance, found)
    if report.feasible:  # PyVRP works on scaled integers; its routes are re-priced exactly here
        assert audit.objective is not None and audit.objective <= report.cost + 1e-6


@pytest.mark.parametrize("customers", [5, 8])
def test_cvrplib_sub_instance_keeps_the_rounded_convention(customers: int) -> None:
    instance = import_instance(DATA / "cvrplib" / "A-n32-k5.vrp", customers=customers, vehicles=3)
    audit = audit_gold(instance)
    assert audit.trusted, audit
    assert audit.objective == pytest.approx(round(audit.objective))  # sums of integer arc lengths
    if customers <= 5:
        assert audit.objective == pytest.approx(brute_force_optimum(instance)[0], rel=1e-9)

"""Gold scripts on real library instances reproduce published optima under the file's own
distance convention; sub-instances too large to publish are confirmed by independent methods."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shared.bruteforce import brute_force_optimum, dp_optimum, split_route_optimum
from tests.shared.library_files import LIBRARY_FILES, is_split, library_sub_instance
from vrpcoder.audit import audit_gold
from vrpcoder.checker import check
from vrpcoder.crosscheck import solve_pyvrp
from vrpcoder.gold.render import LICENCE_LIMIT, model_size
from vrpcoder.gold import render_gold
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


def test_whole_p_n16_k8_reproduces_its_optimum_within_the_size_limited_licence() -> None:
    """16 * 16 * 8 = 2,048 vehicle-indexed routing variables pass the licence; the two-index model
    (the 8 trucks are identical) fits and proves the published 450."""
    instance = import_instance(DATA / "cvrplib" / "P-n16-k8.vrp")
    assert max(model_size(render_gold(instance, two_index=False))) > LICENCE_LIMIT
    audit = audit_gold(instance, time_limit=120)
    assert audit.status == "optimal" and audit.trusted, audit
    assert audit.objective == pytest.approx(450.0)


def test_whole_cvrplib_files_beyond_the_licence_say_so() -> None:
    """A-n32-k5 is too large for the size-limited licence in either model: reported as the
    licence's limit, never as infeasible (with a full licence the same test reproduces 784)."""
    instance = import_instance(DATA / "cvrplib" / "A-n32-k5.vrp")
    audit = audit_gold(instance, time_limit=120)
    if audit.status == "size_limited_licence":
        assert audit.objective is None
    else:
        assert audit.objective == pytest.approx(784.0)


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



# ---- library sub-instances with the file's own fleet: gold vs the second exact method -----------

def _assert_gold_equals_second_method(path: str, size: int) -> None:
    imported = library_sub_instance(path, size)
    instance = imported.instance
    assert max(model_size(render_gold(instance))) <= LICENCE_LIMIT
    audit = audit_gold(instance, time_limit=300)
    assert audit.status == "optimal" and audit.trusted, audit
    second = split_route_optimum(instance) if is_split(imported) else dp_optimum(instance)[0]
    assert audit.objective == pytest.approx(second, rel=1e-9)


@pytest.mark.parametrize(
    ("path", "size"),
    [("solomon/C101.txt", 12), ("mdvrp/p01", 8), ("vrpb/A1.txt", 8), ("cvrplib/eil22.vrp", 10)],
)
def test_library_sub_instance_with_its_own_fleet_fits_the_licence_and_equals_the_dp(path: str, size: int) -> None:
    _assert_gold_equals_second_method(path, size)


@pytest.mark.slow
@pytest.mark.parametrize("size", [5, 8, 10, 12])
@pytest.mark.parametrize("path", [f.path for f in LIBRARY_FILES if f.in_tests])
def test_every_library_sub_instance_fits_the_licence_and_equals_the_dp(path: str, size: int) -> None:
    _assert_gold_equals_second_method(path, size)


@pytest.mark.parametrize("size", [5, 8])
def test_sdvrp_sub_instance_with_a_non_binding_fleet_equals_the_route_model(size: int) -> None:
    instance = import_instance(DATA / "sdvrp" / "SD1.txt", customers=size)
    audit = audit_gold(instance)
    assert audit.trusted, audit
    assert audit.objective == pytest.approx(split_route_optimum(instance), rel=1e-9)


def test_sd1_reproduces_its_published_optimum_under_the_scaled_rounding() -> None:
    # SD1 (Chen, Golden & Wasil 2007): optimum 228.28 on the original coordinates, 22828 on the
    # files' coordinates scaled by 100 with distances rounded to integers.
    audit = audit_gold(import_instance(DATA / "sdvrp" / "SD1.txt"))
    assert audit.trusted and audit.objective == pytest.approx(22828.0)


def _with_fleet(instance, size: int):  # noqa: ANN001, ANN202 - Instance in, Instance out
    return instance.model_copy(update={"vehicles": (instance.vehicles[0],) * size})


@pytest.mark.parametrize("size", range(2, 9))
def test_the_sdvrp_default_fleet_does_not_bind(size: int) -> None:
    instance = import_instance(DATA / "sdvrp" / "SD1.txt", customers=size)
    unlimited = _with_fleet(instance, 3 * size)  # more than any plan uses
    assert split_route_optimum(instance) == pytest.approx(split_route_optimum(unlimited), rel=1e-9)


@pytest.mark.parametrize("file", ["eil22.vrp", "eil23.vrp"])
@pytest.mark.parametrize("size", [5, 8, 10])
def test_the_default_fleet_of_a_file_without_one_does_not_bind(file: str, size: int) -> None:
    instance = import_instance(DATA / "cvrplib" / file, customers=size)
    assert dp_optimum(instance)[0] == pytest.approx(dp_optimum(_with_fleet(instance, size))[0], rel=1e-9)


def test_sd1_first_four_needs_more_routes_than_full_loads() -> None:
    """Demands 60, 90, 60, 90 with Q = 100: ceil(300 / 100) = 3 vehicles (the old default) must
    split and drive 10242; the optimum sends four out-and-back trips for 8000, which the default
    fleet ceil(2 * 300 / 100) - 1 = 5 allows."""
    instance = import_instance(DATA / "sdvrp" / "SD1.txt", customers=4)
    assert len(instance.vehicles) == 5
    assert audit_gold(instance).objective == pytest.approx(8000.0)
    assert audit_gold(_with_fleet(instance, 3)).objective == pytest.approx(10242.0)

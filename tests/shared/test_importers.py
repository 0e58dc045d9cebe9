"""The importer on copies of the real library files, checked against the libraries' published optima.

The published solutions, priced by the independent checker under the convention the importer
records, must give the published costs: that is what proves each convention right (a wrong GEO
formula, a transposed triangular matrix or unrounded EUC_2D distances all miss the optimum).
"""

from __future__ import annotations

import math
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from vrpcoder.checker import check
from vrpcoder.distances import DistanceKind
from vrpcoder.importers import (
    InstanceFormat,
    detect_format,
    explicit_matrix,
    import_instance,
    import_library,
    read_reference_solution,
)
from vrpcoder.instances import Instance
from vrpcoder.solutions import Solution

DATA = Path(__file__).resolve().parents[1] / "data" / "instances"


@dataclass(frozen=True, slots=True)
class LibraryInstance:
    """One row of /work/shared/data/README.md's table, plus the facts the file itself states."""

    path: str
    fmt: InstanceFormat
    variant: str
    convention: DistanceKind
    customers: int
    optimum: float | None
    """Published total cost (None: the library data here give none)."""
    solution: str | None = None
    """Companion file with a published solution."""


PUBLISHED_OPTIMA: tuple[LibraryInstance, ...] = (
    LibraryInstance(
        "tsplib/ulysses22.tsp",
        InstanceFormat.TSPLIB,
        "TSP",
        DistanceKind.GEO,
        21,
        7013,
        "tsplib/ulysses22.opt.tour",
    ),
    LibraryInstance("tsplib/gr21.tsp", InstanceFormat.TSPLIB, "TSP", DistanceKind.EXPLICIT, 20, 2707),
    LibraryInstance(
        "tsplib/gr24.tsp",
        InstanceFormat.TSPLIB,
        "TSP",
        DistanceKind.EXPLICIT,
        23,
        1272,
        "tsplib/gr24.opt.tour",
    ),
    LibraryInstance(
        "tsplib/fri26.tsp",
        InstanceFormat.TSPLIB,
        "TSP",
        DistanceKind.EXPLICIT,
        25,
        937,
        "tsplib/fri26.opt.tour",
    ),
    LibraryInstance(
        "tsplib/bays29.tsp",
        InstanceFormat.TSPLIB,
        "TSP",
        DistanceKind.EXPLICIT,
        28,
        2020,
        "tsplib/bays29.opt.tour",
    ),
    LibraryInstance(
        "cvrplib/P-n16-k8.vrp",
        InstanceFormat.CVRPLIB,
        "CVRP",
        DistanceKind.EUC_2D,
        15,
        450,
        "cvrplib/P-n16-k8.sol",
    ),
    LibraryInstance(
        "cvrplib/B-n31-k5.vrp",
        InstanceFormat.CVRPLIB,
        "CVRP",
        DistanceKind.EUC_2D,
        30,
        672,
        "cvrplib/B-n31-k5.sol",
    ),
    LibraryInstance(
        "cvrplib/A-n32-k5.vrp",
        InstanceFormat.CVRPLIB,
        "CVRP",
        DistanceKind.EUC_2D,
        31,
        784,
        "cvrplib/A-n32-k5.sol",
    ),
    LibraryInstance("cvrplib/eil22.vrp", InstanceFormat.CVRPLIB, "CVRP", DistanceKind.EUC_2D, 21, 375),
    LibraryInstance("cvrplib/eil23.vrp", InstanceFormat.CVRPLIB, "CVRP", DistanceKind.EUC_2D, 22, 569),
    LibraryInstance(
        "solomon/C101.txt",
        InstanceFormat.SOLOMON,
        "VRPHTW",
        DistanceKind.EUCLIDEAN_TRUNC1,
        100,
        827.3,
        "solomon/C101.sol",
    ),
    LibraryInstance(
        "mdvrp/p01", InstanceFormat.CORDEAU, "MDVRP", DistanceKind.EUCLIDEAN, 50, 576.87, "mdvrp/p01.res"
    ),
    LibraryInstance("sdvrp/SD1.txt", InstanceFormat.SDVRPLIB, "SDVRP", DistanceKind.EUC_2D, 8, None),
    LibraryInstance("vrpb/A1.txt", InstanceFormat.VRPB, "VRPB", DistanceKind.EUCLIDEAN, 25, None),
)
BY_PATH = {row.path: row for row in PUBLISHED_OPTIMA}
WITH_SOLUTION = [row for row in PUBLISHED_OPTIMA if row.solution is not None]


def load(path: str, **kwargs: int | str) -> Instance:
    return import_instance(DATA / path, **kwargs)  # type: ignore[arg-type]


def published_plan(row: LibraryInstance, instance: Instance) -> Solution:
    assert row.solution is not None
    return read_reference_solution(DATA / row.solution, instance)


def test_the_table_covers_every_copied_instance_file() -> None:
    companions = (".sol", ".res", ".tour")
    files = {
        str(p.relative_to(DATA)) for p in DATA.rglob("*") if p.is_file() and not p.name.endswith(companions)
    }
    assert files == set(BY_PATH)


@pytest.mark.parametrize("row", PUBLISHED_OPTIMA, ids=lambda r: r.path)
def test_every_library_file_imports_with_its_convention(row: LibraryInstance) -> None:
    instance = load(row.path)
    assert detect_format((DATA / row.path).read_text(), DATA / row.path) is row.fmt
    assert instance.variant == row.variant
    assert instance.distance.kind is row.convention
    assert len(instance.customers) == row.customers
    assert instance.provenance.source == Path(row.path).name


# ---- published solutions priced by the checker --------------------------------------------------

EXACT = [row for row in WITH_SOLUTION if row.fmt in (InstanceFormat.TSPLIB, InstanceFormat.CVRPLIB)]


@pytest.mark.parametrize("row", EXACT, ids=lambda r: r.path)
def test_published_integer_optima_are_reproduced_exactly(row: LibraryInstance) -> None:
    instance = load(row.path)
    report = check(instance, published_plan(row, instance))
    assert report.feasible, report.violations
    assert report.cost == row.optimum
    assert instance.provenance.published_optimum == row.optimum


def test_cordeau_result_file_matches_to_its_two_printed_decimals() -> None:
    row = BY_PATH["mdvrp/p01"]
    instance = load(row.path)
    report = check(instance, published_plan(row, instance))
    assert report.feasible, report.violations
    assert report.cost == pytest.approx(576.87, abs=0.005)
    assert instance.provenance.published_optimum == 576.87


def test_solomon_default_truncation_reproduces_the_published_optimum_exactly() -> None:
    """The published 827.3 was computed with every arc truncated to one decimal (the default);
    exact distances (``--distance euclidean``) price the same routes at 828.94."""
    row = BY_PATH["solomon/C101.txt"]
    instance = load(row.path)
    plan = published_plan(row, instance)
    report = check(instance, plan)
    assert report.feasible, report.violations
    assert report.cost == pytest.approx(827.3, abs=1e-6)
    exact = load(row.path, distance="euclidean")
    exact_report = check(exact, published_plan(row, exact))
    assert exact_report.feasible
    assert exact_report.cost == pytest.approx(828.94, abs=0.005)
    assert exact.provenance.published_optimum is None  # another convention than the library's
    assert instance.provenance.published_optimum == 827.3


def test_published_optimum_needs_a_companion_file() -> None:
    assert load("tsplib/gr21.tsp").provenance.published_optimum is None
    assert load("cvrplib/eil22.vrp").provenance.published_optimum is None


# ---- sub-instances -----------------------------------------------------------------------------


@pytest.mark.parametrize("row", PUBLISHED_OPTIMA, ids=lambda r: r.path)
@pytest.mark.parametrize("keep", [1, 5])
def test_sub_instances_keep_the_depots_and_the_first_customers(row: LibraryInstance, keep: int) -> None:
    full = load(row.path)
    if row.fmt is InstanceFormat.VRPB:  # A1 lists its 5 backhauls first: see the VRPB tests below
        with pytest.raises(ValueError, match="all backhauls"):
            load(row.path, customers=keep)
        return
    sub = load(row.path, customers=keep)
    assert sub.customers == full.customers[:keep]
    assert sub.depots == full.depots
    assert sub.provenance.published_optimum is None
    assert sub.name != full.name
    size = sub.num_nodes
    assert sub.distances == [row_[:size] for row_ in full.distances[:size]]


def test_explicit_sub_instance_matrix_is_restricted() -> None:
    sub = load("tsplib/gr24.tsp", customers=5)
    assert sub.distance.matrix is not None
    assert len(sub.distance.matrix) == 6 and all(len(r) == 6 for r in sub.distance.matrix)
    assert sub.distances[0][1] == 257  # first value after the diagonal in gr24's LOWER_DIAG_ROW


def test_full_solution_does_not_fit_a_sub_instance() -> None:
    row = BY_PATH["cvrplib/P-n16-k8.vrp"]
    sub = load(row.path, customers=5)
    with pytest.raises(ValueError, match="not customers"):
        published_plan(row, sub)


@pytest.mark.parametrize(
    ("path", "kwargs", "fleet"),
    [
        ("cvrplib/A-n32-k5.vrp", {}, 5),  # from the name
        ("cvrplib/P-n16-k8.vrp", {"customers": 5}, 5),  # k8 capped at the 5 kept customers
        ("cvrplib/P-n16-k8.vrp", {"vehicles": 3}, 3),
        ("cvrplib/eil22.vrp", {}, 7),  # no k, no VEHICLES: ceil(2 * 22500 / 6000) - 1 cannot bind
        ("solomon/C101.txt", {}, 25),
        ("solomon/C101.txt", {"customers": 5}, 5),
        ("mdvrp/p01", {}, 16),  # 4 per depot
        ("mdvrp/p01", {"customers": 3}, 12),  # capped at 3 per depot
        ("mdvrp/p01", {"vehicles": 1}, 4),  # per depot
        ("sdvrp/SD1.txt", {}, 11),  # unlimited fleet: ceil(2 * 600 / 100) - 1 cannot bind
        ("sdvrp/SD1.txt", {"customers": 3}, 4),  # 60 + 90 + 60 = 210: ceil(4.2) - 1 = 4 (2 * ceil(2.1) - 1 = 5)
        ("vrpb/A1.txt", {}, 8),
        ("vrpb/A1.txt", {"customers": [1, 6]}, 2),
        ("tsplib/gr24.tsp", {}, 1),
    ],
)
def test_fleet_size(path: str, kwargs: dict[str, int], fleet: int) -> None:
    assert len(load(path, **kwargs).vehicles) == fleet


# ---- format-specific content -----------------------------------------------------------------


def test_solomon_windows_and_service_times() -> None:
    instance = load("solomon/C101.txt", customers=3)
    assert instance.depots[0].window is not None and instance.depots[0].window.end == 1236
    first = instance.customers[0]
    assert (first.x, first.y, first.demand, first.service_time) == (45, 68, 10, 90)
    assert first.window is not None and (first.window.start, first.window.end) == (912, 967)
    assert all(v.capacity == 200 for v in instance.vehicles)


def test_cordeau_depots_come_first_with_their_vehicles() -> None:
    instance = load("mdvrp/p01")
    assert [(d.x, d.y) for d in instance.depots] == [(20, 20), (30, 40), (50, 30), (60, 50)]
    assert [v.depot for v in instance.vehicles] == [d for d in range(4) for _ in range(4)]
    assert instance.customers[0].demand == 7 and instance.vehicles[0].capacity == 80


def test_vrpb_labels_backhaul_customers() -> None:
    instance = load("vrpb/A1.txt")
    assert [c.backhaul for c in instance.customers] == [True] * 5 + [False] * 20
    assert instance.customers[0].demand == 549 and instance.customers[5].demand == 483
    assert instance.vehicles[0].capacity == 1550


def test_sdvrp_reads_demands_and_coordinates() -> None:
    instance = load("sdvrp/SD1.txt")
    assert [c.demand for c in instance.customers] == [60, 90] * 4
    assert (instance.customers[0].x, instance.customers[0].y) == (1000, 0)
    assert instance.distances[0][1] == 1000


def test_tsp_coordinates_come_from_display_data_or_are_zero() -> None:
    assert all((c.x, c.y) == (0, 0) for c in load("tsplib/gr24.tsp").customers)
    bays = load("tsplib/bays29.tsp")
    assert (bays.depots[0].x, bays.depots[0].y) == (1150, 1760)
    assert bays.customers[-1].x == 360


# ---- explicit layouts -------------------------------------------------------------------------

MATRIX = [[0.0, 1.0, 2.0], [1.0, 0.0, 3.0], [2.0, 3.0, 0.0]]


@pytest.mark.parametrize(
    ("layout", "values"),
    [
        ("FULL_MATRIX", [0, 1, 2, 1, 0, 3, 2, 3, 0]),
        ("UPPER_ROW", [1, 2, 3]),
        ("LOWER_ROW", [1, 2, 3]),
        ("UPPER_DIAG_ROW", [0, 1, 2, 0, 3, 0]),
        ("LOWER_DIAG_ROW", [0, 1, 0, 2, 3, 0]),
        ("UPPER_COL", [1, 2, 3]),
        ("LOWER_COL", [1, 2, 3]),
        ("UPPER_DIAG_COL", [0, 1, 0, 2, 3, 0]),
        ("LOWER_DIAG_COL", [0, 1, 2, 0, 3, 0]),
    ],
)
def test_explicit_layouts(layout: str, values: list[float]) -> None:
    assert explicit_matrix(layout, values, 3) == MATRIX


# ---- options and malformed input --------------------------------------------------------------


def test_compatible_variant_override() -> None:
    instance = load("cvrplib/P-n16-k8.vrp", variant="ovrp")
    assert instance.variant == "OVRP"
    assert instance.provenance.published_optimum is None


TSP_TEXT = """NAME : tiny
TYPE : TSP
DIMENSION : 3
EDGE_WEIGHT_TYPE : EXPLICIT
EDGE_WEIGHT_FORMAT : LOWER_DIAG_ROW
EDGE_WEIGHT_SECTION
0 1 0 2 3 0
EOF
"""
CVRP_TEXT = """NAME : tiny-k2
TYPE : CVRP
DIMENSION : 3
EDGE_WEIGHT_TYPE : EUC_2D
CAPACITY : 10
NODE_COORD_SECTION
1 0 0
2 3 4
3 6 8
DEMAND_SECTION
1 0
2 4
3 5
DEPOT_SECTION
1
-1
EOF
"""
CORDEAU_TEXT = "2 2 2\n0 10\n0 10\n1 1 1 0 3 1 1 1\n2 2 2 0 4 1 1 1\n3 0 0 0 0\n4 5 5 0 0\n"
SDVRP_TEXT = "2 10\n4 5\n0 0\n3 4\n6 8\n"
VRPB_TEXT = "2\n1\n2\n0 0 0 10\n3 4 5 0 0\n6 8 0 2 0\n"
SOLOMON_TEXT = """T1

VEHICLE
NUMBER     CAPACITY
  2         20

CUSTOMER
CUST NO.  XCOORD.   YCOORD.    DEMAND   READY TIME  DUE DATE   SERVICE   TIME

    0      0         0          0          0       100          0
    1      3         4         10          0        50         10
"""


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("t.tsp", TSP_TEXT),
        ("c.vrp", CVRP_TEXT),
        ("p99", CORDEAU_TEXT),
        ("S.txt", SDVRP_TEXT),
        ("b.txt", VRPB_TEXT),
        ("s.txt", SOLOMON_TEXT),
    ],
)
def test_minimal_files_of_every_format_import(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    instance = import_instance(path)
    assert instance.provenance.source == name
    assert instance.provenance.published_optimum is None


def test_minimal_files_carry_their_numbers(tmp_path: Path) -> None:
    (tmp_path / "t.tsp").write_text(TSP_TEXT)
    assert import_instance(tmp_path / "t.tsp").distances == [[0, 1, 2], [1, 0, 3], [2, 3, 0]]
    (tmp_path / "c.vrp").write_text(CVRP_TEXT)
    cvrp = import_instance(tmp_path / "c.vrp")
    assert len(cvrp.vehicles) == 2 and cvrp.distances[1][2] == 5
    (tmp_path / "b.txt").write_text(VRPB_TEXT)
    assert [c.backhaul for c in import_instance(tmp_path / "b.txt").customers] == [False, True]


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


MALFORMED: list[tuple[str, str, str, str]] = [
    ("empty file", "e.txt", "", "empty"),
    ("unknown first line", "x.txt", "hello world\n", "cannot tell the instance format"),
    ("tsp extension, numeric content", "x.tsp", SDVRP_TEXT, "extension says tsplib"),
    ("unsupported TYPE", "x.tsp", _edit(TSP_TEXT, "TYPE : TSP", "TYPE : ATSP"), "only TSP and CVRP"),
    ("unsupported edge weights", "x.tsp", _edit(TSP_TEXT, "EXPLICIT", "MAN_2D"), "MAN_2D is not supported"),
    (
        "unsupported layout",
        "x.tsp",
        _edit(TSP_TEXT, "LOWER_DIAG_ROW", "WEIRD_ROW"),
        "WEIRD_ROW is not supported",
    ),
    (
        "too few edge weights",
        "x.tsp",
        _edit(TSP_TEXT, "0 1 0 2 3 0", "0 1 0 2 3"),
        "needs 6 edge weights, found 5",
    ),
    (
        "non-number edge weight",
        "x.tsp",
        _edit(TSP_TEXT, "0 1 0 2 3 0", "0 1 0 2 x 0"),
        "line 7: 'x' is not a number",
    ),
    (
        "explicit without weights",
        "x.tsp",
        _edit(TSP_TEXT, "EDGE_WEIGHT_SECTION\n0 1 0 2 3 0\n", ""),
        "without an EDGE",
    ),
    ("missing capacity", "x.vrp", _edit(CVRP_TEXT, "CAPACITY : 10\n", ""), "CAPACITY must be a positive"),
    ("two depots", "x.vrp", _edit(CVRP_TEXT, "1\n-1", "1\n2\n-1"), "exactly one depot"),
    (
        "missing coordinates",
        "x.vrp",
        _edit(CVRP_TEXT, "NODE_COORD_SECTION\n1 0 0\n2 3 4\n3 6 8\n", ""),
        "NODE_COORD",
    ),
    ("short demand section", "x.vrp", _edit(CVRP_TEXT, "3 5\n", ""), "one demand per node"),
    (
        "cordeau duration limit",
        "p99",
        _edit(CORDEAU_TEXT, "0 10\n0 10", "0 10\n50 10"),
        "line 3: maximum route duration 50",
    ),
    ("cordeau wrong type", "p99", "0 " + CORDEAU_TEXT, "line 1: problem type 0 is not MDVRP"),
    (
        "cordeau misnumbered customer",
        "p99",
        _edit(CORDEAU_TEXT, "2 2 2 0 4", "7 2 2 0 4"),
        "line 5: expected entry number 2",
    ),
    ("cordeau truncated", "p99", _edit(CORDEAU_TEXT, "4 5 5 0 0\n", ""), "ends before depot 2"),
    ("cordeau trailing data", "p99", CORDEAU_TEXT + "9 9 9\n", "line 8: unexpected data"),
    (
        "cordeau bad token",
        "p99",
        _edit(CORDEAU_TEXT, "1 1 1 0 3", "1 1 a 0 3"),
        "line 4: 'a' is not a number",
    ),
    (
        "sdvrp missing coordinates",
        "S.txt",
        _edit(SDVRP_TEXT, "6 8\n", ""),
        "expected 2 demands and 3 coordinate pairs",
    ),
    (
        "sdvrp fractional count",
        "S.txt",
        _edit(SDVRP_TEXT, "2 10", "2.5 10"),
        "line 1: the number of customers",
    ),
    (
        "vrpb customer sends and receives",
        "b.txt",
        _edit(VRPB_TEXT, "3 4 5 0 0", "3 4 5 1 0"),
        "line 5: a customer either",
    ),
    (
        "vrpb two depots",
        "b.txt",
        _edit(VRPB_TEXT, "2\n1\n2\n", "2\n2\n2\n"),
        "line 2: VRPB files have one depot",
    ),
    ("vrpb missing customer", "b.txt", _edit(VRPB_TEXT, "6 8 0 2 0\n", ""), "ends before customer 2"),
    ("solomon broken header", "s.txt", _edit(SOLOMON_TEXT, "CUSTOMER\n", ""), "not a readable Solomon file"),
    (
        "solomon due before ready",
        "s.txt",
        _edit(SOLOMON_TEXT, "0        50", "60        50"),
        "due date 50.0 before",
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "message"), [case[1:] for case in MALFORMED], ids=[c[0] for c in MALFORMED]
)
def test_malformed_files_are_refused(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as caught:
        import_instance(path)
    assert name in str(caught.value)


@pytest.mark.parametrize(
    ("path", "kwargs", "message"),
    [
        ("cvrplib/P-n16-k8.vrp", {"customers": 0}, "between 1 and 15"),
        ("cvrplib/P-n16-k8.vrp", {"customers": 16}, "between 1 and 15"),
        ("solomon/C101.txt", {"variant": "CVRP"}, "variant CVRP does not fit"),
        ("tsplib/ulysses22.tsp", {"variant": "CVRP"}, "variant CVRP does not fit"),
        ("cvrplib/P-n16-k8.vrp", {"variant": "NOPE"}, "unknown variant"),
        ("tsplib/gr24.tsp", {"vehicles": 2}, "exactly one vehicle"),
        ("cvrplib/P-n16-k8.vrp", {"vehicles": 0}, "at least 1"),
        ("cvrplib/missing.vrp", {}, "no such file"),
    ],
)
def test_invalid_options_are_refused(path: str, kwargs: dict[str, int | str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load(path, **kwargs)


def test_naming_the_inferred_variant_keeps_the_published_optimum() -> None:
    assert load("cvrplib/P-n16-k8.vrp", variant="cvrp").provenance.published_optimum == 450
    assert load("cvrplib/P-n16-k8.vrp", vehicles=8).provenance.published_optimum is None


# ---- explicit customer lists, conventions, VRPB sub-instances ------------------------------------


@pytest.mark.parametrize(
    ("path", "ids", "first_coords"),
    [
        ("solomon/C101.txt", [3, 1, 20], (45.0, 68.0)),  # Solomon numbers customers 1..100
        ("cvrplib/A-n32-k5.vrp", [2, 5], (96.0, 44.0)),  # CVRPLIB node numbers; node 1 is the depot
        ("mdvrp/p01", [1, 50], (37.0, 52.0)),
        ("tsplib/gr24.tsp", [2, 24], (0.0, 0.0)),
    ],
)
def test_an_explicit_list_keeps_exactly_those_customers_in_file_order(
    path: str, ids: list[int], first_coords: tuple[float, float]
) -> None:
    sub = import_library(DATA / path, customers=ids)
    assert len(sub.instance.customers) == len(ids)
    assert (sub.instance.customers[0].x, sub.instance.customers[0].y) == first_coords
    kept = next(c for c in sub.conventions if c.topic == "customers")
    assert kept.choice == ", ".join(str(i) for i in sorted(ids))
    full = load(path)
    positions = sorted(i - (2 if path.startswith(("cvrplib", "tsplib")) else 1) for i in ids)
    assert sub.instance.customers == tuple(full.customers[p] for p in positions)
    nodes = [*range(full.num_depots), *(full.num_depots + p for p in positions)]
    assert sub.instance.distances == [[full.distances[i][j] for j in nodes] for i in nodes]


@pytest.mark.parametrize(
    ("ids", "message"),
    [([0], r"no customer\(s\) \[0\]"), ([101], "run from 1 to 100"), ([4, 4], "more than once"), ([], "empty")],
)
def test_bad_customer_lists_are_refused(ids: list[int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        load("solomon/C101.txt", customers=ids)  # type: ignore[arg-type]


def test_every_convention_is_reported_with_its_reason() -> None:
    result = import_library(DATA / "solomon/C101.txt", customers=5)
    topics = {c.topic: c for c in result.conventions}
    assert topics["distance"].choice == "euclidean_trunc1" and "827.3" in topics["distance"].reason
    assert topics["fleet"].choice == "5 vehicle(s)" and "capped" in topics["fleet"].reason
    assert topics["customers"].choice == "1, 2, 3, 4, 5"
    assert not result.warnings
    whole = import_library(DATA / "solomon/C101.txt")
    assert next(c for c in whole.conventions if c.topic == "customers").choice == "all 100"


def test_a_fleet_too_small_for_the_demand_is_imported_with_a_warning() -> None:
    result = import_library(DATA / "cvrplib/A-n32-k5.vrp", customers=10, vehicles=1)
    assert len(result.instance.vehicles) == 1
    assert any("no plan exists" in w for w in result.warnings)


def test_a_split_fleet_whose_bound_is_not_proven_is_imported_with_a_warning(tmp_path: Path) -> None:
    # rounded to integers, the legs to the depot from (0.4, 0) and (-0.4, 0) are 0 but the direct
    # leg between them is 1: the merge argument fails, so ceil(2D/Q)-1 is not proven non-binding
    file = tmp_path / "SDX.txt"
    file.write_text("2 10\n5\n5\n0 0\n0.4 0\n-0.4 0\n")
    result = import_library(file)
    fleet = next(c for c in result.conventions if c.topic == "fleet")
    assert len(result.instance.vehicles) == 1 and "not proven" in fleet.reason
    assert result.warnings and "may bind" in result.warnings[0]
    fine = tmp_path / "SDY.txt"
    fine.write_text("2 10\n5\n5\n0 0\n30 0\n-30 0\n")
    assert not import_library(fine).warnings


@pytest.mark.parametrize("distance", ["euclidean", "euclidean_trunc1", "euc_2d"])
def test_solomon_distance_option(distance: str) -> None:
    # C101's depot (40, 50) and customer 1 (45, 68): sqrt(25 + 324) = 18.68...
    instance = load("solomon/C101.txt", customers=1, distance=distance)
    assert instance.distance.kind == distance
    exact = math.hypot(5, 18)
    want = {"euclidean": exact, "euclidean_trunc1": 18.6, "euc_2d": 19.0}[distance]
    assert instance.distances[0][1] == pytest.approx(want)


def test_a_matrix_file_cannot_be_re_measured() -> None:
    with pytest.raises(ValueError, match="cannot be re-measured"):
        load("tsplib/gr24.tsp", distance="euclidean")
    with pytest.raises(ValueError, match="unknown distance convention"):
        load("solomon/C101.txt", distance="manhattan")


def test_vrpb_sub_instance_of_backhauls_only_is_refused_and_a_mixed_one_imports() -> None:
    with pytest.raises(ValueError, match=r"all backhauls.*add customer 6"):
        load("vrpb/A1.txt", customers=5)
    mixed = load("vrpb/A1.txt", customers=[1, 2, 6])
    assert [c.backhaul for c in mixed.customers] == [True, True, False]


def test_vrpb_backhauls_beyond_what_linehaul_routes_can_carry_are_refused() -> None:
    # one linehaul customer means one route; A1's five backhauls (2540) exceed one load of 1550
    with pytest.raises(ValueError, match="more routes"):
        load("vrpb/A1.txt", customers=[1, 2, 3, 4, 5, 6])


def test_files_without_a_fleet_get_one_that_cannot_bind_and_say_so() -> None:
    result = import_library(DATA / "cvrplib/eil22.vrp", customers=12)
    fleet = next(c for c in result.conventions if c.topic == "fleet")
    demand = sum(c.demand for c in result.instance.customers)
    capacity = result.instance.vehicles[0].capacity
    assert capacity is not None
    assert len(result.instance.vehicles) == min(12, math.ceil(2 * demand / capacity) - 1)
    assert "cannot bind" in fleet.reason
    # an open-route override breaks the merge argument: one vehicle per customer
    ovrp = import_library(DATA / "cvrplib/eil22.vrp", customers=12, variant="OVRP")
    assert len(ovrp.instance.vehicles) == 12
    assert "one vehicle per customer" in next(c for c in ovrp.conventions if c.topic == "fleet").reason


def test_instance_import_prints_its_conventions_on_stderr_and_json_alone_on_stdout() -> None:
    cli = [sys.executable, "-c", "from vrpcoder.cli import main; main()"]
    done = subprocess.run(
        [*cli, "instance", "import", str(DATA / "vrpb/A1.txt"), "--customers", "1,2,6"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    instance = Instance.model_validate_json(done.stdout)
    assert len(instance.customers) == 3
    for topic in ("distance:", "fleet:", "customers: 1, 2, 6"):
        assert topic in done.stderr
    refused = subprocess.run(
        [*cli, "instance", "import", str(DATA / "vrpb/A1.txt"), "--customers", "5"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 2 and "all backhauls" in refused.stderr and not refused.stdout

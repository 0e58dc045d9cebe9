"""The real library files whose gold optima are checked against a second exact method: one list,
read by tests/shared/test_real_data.py and benchmarks/library_optima.py alike.

Each file is cut to sub-instances of its first customers with the file's own fleet. VRPB keeps a
third backhauls (never all: a route of backhauls only is not allowed) and the rest linehauls, each
kind in file order, so that the cut is valid whatever order the file lists its customers in.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vrpcoder.importers import ImportResult, import_library
from vrpcoder.variants import Module

DATA = Path(__file__).resolve().parents[1] / "data" / "instances"


@dataclass(frozen=True, slots=True)
class LibraryFile:
    path: str
    """Relative to tests/data/instances."""
    in_tests: bool = True
    """Part of the slow test grid (the benchmark runs every file); TSPs whose label DP is slow at
    12 cities are benchmark-only."""


LIBRARY_FILES: tuple[LibraryFile, ...] = (
    LibraryFile("solomon/C101.txt"),
    LibraryFile("mdvrp/p01"),
    LibraryFile("cvrplib/A-n32-k5.vrp"),
    LibraryFile("cvrplib/B-n31-k5.vrp"),
    LibraryFile("cvrplib/P-n16-k8.vrp"),
    LibraryFile("cvrplib/eil22.vrp"),
    LibraryFile("cvrplib/eil23.vrp"),
    LibraryFile("sdvrp/SD1.txt"),
    LibraryFile("vrpb/A1.txt"),
    LibraryFile("tsplib/gr21.tsp", in_tests=False),
    LibraryFile("tsplib/gr24.tsp"),
    LibraryFile("tsplib/ulysses22.tsp"),
    LibraryFile("tsplib/fri26.tsp", in_tests=False),
    LibraryFile("tsplib/bays29.tsp", in_tests=False),
)


def vrpb_selection(backhaul_ids: list[int], linehaul_ids: list[int], size: int) -> list[int]:
    """A third backhauls (never all), the rest linehauls, each kind in file order."""
    backs = min(len(backhaul_ids), size // 3)
    return sorted(backhaul_ids[:backs] + linehaul_ids[: size - backs])


def library_sub_instance(path: str, size: int) -> ImportResult:
    """The sub-instance of ``size`` customers of a library file (``ValueError`` when the file has fewer)."""
    file = DATA / path
    selection: int | list[int] = size
    if path.startswith("vrpb/"):
        whole = import_library(file).instance
        backs = [i + 1 for i, c in enumerate(whole.customers) if c.backhaul]
        lines = [i + 1 for i, c in enumerate(whole.customers) if not c.backhaul]
        selection = vrpb_selection(backs, lines, size)
    return import_library(file, customers=selection)


def is_split(result: ImportResult) -> bool:
    """Split delivery needs the route-based MIP as its second method; every other file the label DP."""
    return result.instance.has(Module.SPLIT)

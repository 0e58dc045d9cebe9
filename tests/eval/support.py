"""Constants shared by the eval tests (fixtures live in conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

EXECUTOR = os.environ.get("VRPCODER_TEST_EXECUTOR", "auto")
"""How test stacks run candidates: ``auto`` goes through the sandbox wherever one is usable."""
LIBRARY = Path(__file__).resolve().parents[1] / "data" / "instances"

SAMPLED_VARIANTS = ("CVRP", "VRPHTW", "PDPTW", "VRPB", "HFVRP", "SDVRP")
"""Benchmark-1 variants of the small test benchmark: between them every constraint family."""
HELD_OUT = ("OVRPHTW", "DCVRPHTW", "MCVRPSTW")
B3_CUSTOMERS = 7
"""Customers of the test benchmark's library sub-instances (VRPB's A1 needs 7 for a feasible cut)."""

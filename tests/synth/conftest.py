"""Fixtures of the synthesis tests."""

from __future__ import annotations

import pytest
from vrpcoder.samples import Sample

from tests.synth.support import grid_samples


@pytest.fixture(scope="session")
def cvrp_sample() -> Sample:
    return grid_samples("CVRP")[0]


@pytest.fixture(scope="session")
def vrphtw_sample() -> Sample:
    return grid_samples("VRPHTW")[0]

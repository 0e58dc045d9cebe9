"""Shared sampling fixtures: every (variant, applicable profile) pair, sampled once per session."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import pytest

from vrpcoder.instances import Instance
from vrpcoder.sampling import sample_with_plan
from vrpcoder.solutions import Solution

Sampler = Callable[[str, int, int], tuple[Instance, Solution]]


@cache
def _sampled(variant: str, profile: int, seed: int) -> tuple[Instance, Solution]:
    return sample_with_plan(variant, profile, seed)


@pytest.fixture(scope="session")
def sampled() -> Sampler:
    """``sample_with_plan`` with a session cache (instances are immutable)."""
    return _sampled

"""Fixtures of the sandbox tests: hostile scripts over a real gold model, and executors with small
limits so that hang and flood cases end in seconds (see support.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from vrpcoder.samples import Sample
from vrpcoder_verifier.sandbox import SandboxExecutor

from tests.verifier.sandbox.support import HANG, SMALL, compose


@pytest.fixture
def hostile_code(cvrp: Sample) -> Callable[..., str]:
    """``hostile_code(name, KEY=value, ...)``: the hostile script over the CVRP sample's gold model."""

    def make(name: str, **substitutions: str) -> str:
        return compose(name, cvrp, substitutions)

    return make


@pytest.fixture(scope="module")
def executor() -> Iterator[SandboxExecutor]:
    with SandboxExecutor(SMALL) as running:
        yield running


@pytest.fixture(scope="module")
def hang_executor() -> Iterator[SandboxExecutor]:
    with SandboxExecutor(HANG) as running:
        yield running

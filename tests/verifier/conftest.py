"""Fixtures of the verifier service tests: real Redis, the API under uvicorn, two worker processes.

The tests start a private redis-server on a free port and stop it afterwards, so they neither need
nor touch the machine's Redis; ``VRPCODER_TEST_REDIS_URL`` names another one to use instead (a
per-run queue and key prefix keep the run apart, and its keys are deleted afterwards). Tests that
stop Redis always use a private redis-server of their own (see test_faults.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from vrpcoder.samples import Sample
from vrpcoder_client.client import VerifierClient
from vrpcoder_verifier.settings import Settings
from vrpcoder_verifier.stack import LocalStack, purge, stack_settings

from tests.verifier.support import EXECUTOR, tiny_samples


@pytest.fixture(scope="session")
def stack_config(redis_url: str) -> Iterator[Settings]:
    settings = stack_settings(redis_url, executor=EXECUTOR, allow_unsandboxed=True, max_time_limit=30.0, default_time_limit=10.0,
                              max_body_bytes=2 * 1024 * 1024, max_batch_items=300)
    yield settings
    purge(settings)


@pytest.fixture(scope="session")
def stack(stack_config: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    """The service as deployed: uvicorn API and two rq workers, each its own process."""
    log_dir: Path = tmp_path_factory.mktemp("stack-logs")
    with LocalStack(stack_config, workers=2, log_dir=log_dir) as running:
        yield running


@pytest.fixture
def client(stack: LocalStack) -> Iterator[VerifierClient]:
    with VerifierClient(stack.base_url, stack.token, timeout=60) as verifier:
        yield verifier


@pytest.fixture(scope="session")
def cvrp() -> Sample:
    return tiny_samples("CVRP")[0]


@pytest.fixture(scope="session")
def tsp() -> Sample:
    return tiny_samples("TSP")[0]

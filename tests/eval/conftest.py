"""Fixtures of the eval service tests: a real verifier stack (uvicorn API, two rq workers, Redis),
and a small benchmark folder built by the real builders.

Redis: the session's private server (``redis_url`` in tests/conftest.py). The model is the only stand-in: a scripted
OpenAI-compatible server on a real socket (``vrpcoder_eval.scripted``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from vrpcoder_verifier.settings import Settings
from vrpcoder_verifier.stack import LocalStack, purge, stack_settings

from tests.eval.support import B3_CUSTOMERS, EXECUTOR, HELD_OUT, LIBRARY, SAMPLED_VARIANTS
from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkName
from vrpcoder_eval.builders import build_b3, build_sampled
from vrpcoder_eval.statements import default_writer



@pytest.fixture(scope="session")
def stack_config(redis_url: str) -> Iterator[Settings]:
    settings = stack_settings(redis_url, executor=EXECUTOR, allow_unsandboxed=True, max_time_limit=60.0,
                              default_time_limit=20.0, max_body_bytes=4 * 1024 * 1024, max_batch_items=300)
    yield settings
    purge(settings)


@pytest.fixture(scope="session")
def stack(stack_config: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    with LocalStack(stack_config, workers=2, log_dir=tmp_path_factory.mktemp("eval-stack-logs")) as running:
        yield running


@pytest.fixture(scope="session")
def bench(tmp_path_factory: pytest.TempPathFactory) -> BenchmarkDir:
    """Six B1 variants, three held-out B2 variants, and one sub-instance per library family."""
    store = BenchmarkDir(tmp_path_factory.mktemp("bench"))
    writer = default_writer()
    b1 = build_sampled(BenchmarkName.B1, SAMPLED_VARIANTS, len(SAMPLED_VARIANTS), store, writer, time_limit=20.0)
    b2 = build_sampled(BenchmarkName.B2, HELD_OUT, len(HELD_OUT), store, writer, time_limit=20.0)
    b3 = build_b3(store, writer, LIBRARY, sizes=(B3_CUSTOMERS,), time_limit=20.0)
    b3.items = list({item.source: item for item in reversed(b3.items)}.values())
    for name, result in ((BenchmarkName.B1, b1), (BenchmarkName.B2, b2), (BenchmarkName.B3, b3)):
        assert result.items, f"{name.value}: nothing built ({result.discards})"
        store.write(name, result.items)
    return store

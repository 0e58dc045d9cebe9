"""Fixtures every test package shares.

Redis: each test session starts a private ``redis-server`` on a free port and stops it afterwards, so
the suite neither needs nor touches the machine's Redis (``make test`` passes with it stopped).
``VRPCODER_TEST_REDIS_URL`` names another server to use instead; the stacks then keep a per-run queue
and key prefix and delete their keys afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from vrpcoder_verifier.stack import local_redis

TEST_REDIS_ENV = "VRPCODER_TEST_REDIS_URL"


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """A private redis-server for the session, or the one $VRPCODER_TEST_REDIS_URL names (it must answer)."""
    with local_redis(env=TEST_REDIS_ENV) as url:
        yield url

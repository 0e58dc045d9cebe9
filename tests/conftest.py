"""Fixtures every test package shares.

Redis: each test session starts a private ``redis-server`` on a free port and stops it afterwards, so
the suite neither needs nor touches the machine's Redis (``make test`` passes with it stopped).
``VRPCODER_TEST_REDIS_URL`` names another server to use instead; the stacks then keep a per-run queue
and key prefix and delete their keys afterwards.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from vrpcoder_verifier.stack import RedisServer, redis_answers

TEST_REDIS_ENV = "VRPCODER_TEST_REDIS_URL"


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    named = os.environ.get(TEST_REDIS_ENV)
    if named:
        if not redis_answers(named):
            pytest.exit(f"{TEST_REDIS_ENV}={named} does not answer", returncode=2)
        yield named
        return
    server = RedisServer()
    server.start()
    try:
        yield server.url
    finally:
        server.close()

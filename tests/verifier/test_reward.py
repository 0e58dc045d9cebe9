"""The TRL reward function against the real service: loud on configuration errors, ``None`` (logged
and counted) only for transient infrastructure failures, never a silent 0."""

from __future__ import annotations

import logging
import socket
from collections.abc import Sequence

import pytest
from vrpcoder.samples import Sample
from vrpcoder_client.client import RetryPolicy, VerifierClient, VerifierHTTPError
from vrpcoder_client.reward import ScoredCompletion, VerifierConfigError, make_verifier_reward
from vrpcoder_client.schemas import VerifyOptions
from vrpcoder_client.verdicts import RewardWeights
from vrpcoder_verifier.stack import LocalStack

from tests.verifier.support import SYNTAX_ERROR

FAST = RetryPolicy(attempts=2, backoff=0.01, max_backoff=0.02)


def _fenced(code: str) -> str:
    return f"Here is the model.\n```python\n{code}```\n"


def _dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_rewards_come_back_in_order_with_stats(stack: LocalStack, cvrp: Sample) -> None:
    seen: list[Sequence[ScoredCompletion]] = []
    with VerifierClient(stack.base_url, stack.token, timeout=60) as client:
        reward = make_verifier_reward(client, on_scored=seen.append)
        completions = [_fenced(cvrp.gold_code), "I cannot write this.", _fenced(SYNTAX_ERROR)]
        rewards = reward(["p"] * 3, completions, samples=[cvrp.model_dump_json()] * 3)
    assert rewards == [1.0, 0.0, 0.0]
    assert reward.stats.as_dict() == {
        "calls": 1, "completions": 3, "no_code": 1, "scored": 2, "none": 0, "none_by_reason": {},
    }
    (records,) = seen
    assert [r.reward for r in records] == rewards, "the records are what the trainer got"
    assert not records[1].has_code and records[1].result is None and records[1].none_reason is None
    assert records[0].verdict is not None and records[0].passed and records[0].scored
    assert records[2].scored and not records[2].passed and records[2].verdict is not None


def test_weights_from_the_caller_change_the_reward(stack: LocalStack, cvrp: Sample) -> None:
    no_injection = VerifyOptions(weights=RewardWeights(inj=0.0))
    with VerifierClient(stack.base_url, stack.token, timeout=60) as client:
        reward = make_verifier_reward(client, no_injection)
        (value,) = reward(["p"], [_fenced(cvrp.gold_code)], samples=cvrp)
    assert value == pytest.approx(0.7)


def test_a_wrong_token_raises_at_construction(stack: LocalStack) -> None:
    with VerifierClient(stack.base_url, "not-the-token") as client, pytest.raises(VerifierConfigError, match="token"):
        make_verifier_reward(client)


def test_an_unreachable_service_raises_at_construction() -> None:
    with VerifierClient(_dead_url(), "t", retry=FAST) as client, pytest.raises(VerifierConfigError, match="cannot be reached"):
        make_verifier_reward(client)


def test_an_unknown_sample_id_raises(stack: LocalStack) -> None:
    with VerifierClient(stack.base_url, stack.token) as client:
        reward = make_verifier_reward(client)
        with pytest.raises(VerifierHTTPError, match="not registered"):
            reward(["p"], [_fenced("x = 1\n")], sample_id="f" * 64)


def test_an_outage_gives_none_logged_and_counted(cvrp: Sample, caplog: pytest.LogCaptureFixture) -> None:
    with VerifierClient(_dead_url(), "t", retry=FAST) as client:
        reward = make_verifier_reward(client, check=False)
        with caplog.at_level(logging.WARNING, logger="vrpcoder_client.reward"):
            rewards = reward(["p"] * 2, [_fenced(cvrp.gold_code), "no code"], samples=cvrp)
    assert rewards == [None, 0.0]
    assert reward.stats.none == 1 and reward.stats.none_by_reason == {"service_unavailable": 1}
    assert any("no reward" in record.getMessage() for record in caplog.records)

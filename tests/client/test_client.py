"""The HTTP client's rules for faults, against httpx's in-memory transport (the real service's
answers to restarts are in tests/verifier/test_faults.py): how long it retries, that a retry
repeats the call's Idempotency-Key, that Retry-After is honoured, that a job the service lost is
submitted once more, and that a sample referred to by id is registered again when the service
lost it."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import httpx
import pytest
from pydantic import ValidationError
from vrpcoder_client.client import RetryPolicy, VerifierClient
from vrpcoder_client.schemas import JobState, VerifyOptions, VerifyRequest, VerifyResult
from vrpcoder_client.verdicts import RewardWeights

QUICK = RetryPolicy(backoff=0.02, max_backoff=0.2)
"""Short delays, but no cap on attempts: the default's shape, faster."""
SAMPLE_ID = "a" * 64


def _client(handler: Callable[[httpx.Request], httpx.Response], retry: RetryPolicy = QUICK) -> VerifierClient:
    return VerifierClient("http://verifier.test", "tok", retry=retry, transport=httpx.MockTransport(handler))


def _result(job_id: str, state: JobState, reward: float | None = None) -> dict[str, object]:
    verdict = None
    if reward is not None:
        verdict = {
            "sample_id": "s", "build": True, "status": "optimal", "objective": 1.0, "reference_objective": 1.0,
            "diff": True, "probes": [], "passed": True, "reward": reward, "error": None,
        }
    return VerifyResult.model_validate({"job_id": job_id, "state": state, "verdict": verdict}).model_dump(mode="json")


def test_the_default_policy_keeps_trying_for_a_minute() -> None:
    policy = RetryPolicy()
    started = time.monotonic()
    assert policy.attempts is None and policy.give_up_after >= 60.0
    assert policy.another(20, started, policy.max_backoff)
    assert not policy.another(20, started - policy.give_up_after, 1.0)


def test_a_retry_rides_out_an_outage_of_a_few_seconds() -> None:
    """A restart of the API or of Redis answers 503 (or refuses connections) for a few seconds."""
    back_at = time.monotonic() + 2.0
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        if time.monotonic() < back_at:
            if calls % 2:
                raise httpx.ConnectError("refused", request=request)
            return httpx.Response(503, json={"detail": "queue backend unavailable"})
        return httpx.Response(200, json={"results": [_result("j" * 32, JobState.FINISHED, 1.0)]})

    with _client(handler) as client:
        (result,) = client.verify_batch(["code"], SAMPLE_ID)
    assert result.reward == 1.0 and calls > 5


def test_retries_of_one_call_repeat_its_idempotency_key_and_a_new_call_gets_a_new_one() -> None:
    keys: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        keys.append(request.headers.get("Idempotency-Key", ""))
        if len(keys) in (1, 2):
            return httpx.Response(503, json={"detail": "shutting down"}, headers={"Retry-After": "0"})
        return httpx.Response(200, json={"results": [_result("j" * 32, JobState.FINISHED, 1.0)]})

    with _client(handler) as client:
        client.verify_batch(["code"], SAMPLE_ID)
        client.verify_batch(["code"], SAMPLE_ID)
    assert len(keys) == 4 and keys[0] and keys[0] == keys[1] == keys[2] and keys[3] != keys[0]


def test_retry_after_is_waited_for() -> None:
    seen: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(time.monotonic())
        if len(seen) == 1:
            return httpx.Response(503, json={"detail": "shutting down"}, headers={"Retry-After": "0.5"})
        return httpx.Response(200, json={"results": [_result("j" * 32, JobState.FINISHED, 1.0)]})

    with _client(handler, RetryPolicy(backoff=0.001, max_backoff=5.0)) as client:
        client.verify_batch(["code"], SAMPLE_ID)
    assert seen[1] - seen[0] >= 0.5


def test_a_job_the_service_lost_is_submitted_once_more() -> None:
    """A 404 for a job id the service gave (its Redis lost the job) is not the caller's error."""
    posts = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal posts
        if request.method == "GET":
            return httpx.Response(404, json={"detail": "no job (unknown or expired)"})
        posts += 1
        if posts == 1:
            return httpx.Response(202, json={"results": [_result("a" * 32, JobState.QUEUED)]})
        return httpx.Response(200, json={"results": [_result("b" * 32, JobState.FINISHED, 0.7)]})

    with _client(handler) as client:
        (result,) = client.verify_batch(["code"], SAMPLE_ID)
    assert (posts, result.state, result.reward) == (2, JobState.FINISHED, 0.7)


def test_a_job_lost_twice_comes_back_lost() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(404, json={"detail": "no job (unknown or expired)"})
        return httpx.Response(202, json={"results": [_result("a" * 32, JobState.QUEUED)]})

    with _client(handler) as client:
        (result,) = client.verify_batch(["code"], SAMPLE_ID)
    assert result.state is JobState.LOST and result.done and result.reward is None
    assert result.failure is not None and "no longer knows" in result.failure


def test_a_sample_registered_by_this_client_and_referred_to_by_id_is_registered_again() -> None:
    """The trainer registers its samples once and sends a ``sample_id`` column: after a Redis
    restart that lost them, the client registers them again from what it kept."""
    sample = {"id": "s", "payload": 1}
    registered: list[object] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/samples":
            registered.append(json.loads(request.content))
            return httpx.Response(201, json={"sample_id": SAMPLE_ID, "name": "s"})
        if len(registered) < 2:
            return httpx.Response(404, json={"detail": f"sample(s) not registered (POST /v1/samples first): {SAMPLE_ID}"})
        return httpx.Response(200, json={"results": [_result("j" * 32, JobState.FINISHED, 1.0)] * 3})

    with _client(handler) as client:
        assert client.register_sample(sample) == SAMPLE_ID
        results = client.verify_batch(["a", "b", "c"], [SAMPLE_ID] * 3)
    assert [r.reward for r in results] == [1.0] * 3
    assert registered == [sample, sample], "registered once more, not once per item"


@pytest.mark.parametrize(
    "options",
    [
        {"time_limit": float("nan")},
        {"time_limit": float("inf")},
        {"diff_tolerance": float("inf")},
        {"diff_tolerance": float("nan")},
        {"weights": {"build": float("nan")}},
        {"weights": {"inj": float("-inf")}},
        {"weights": {"diff": -0.5}},
    ],
    ids=["time-limit-nan", "time-limit-inf", "tolerance-inf", "tolerance-nan", "weight-nan", "weight-inf", "weight-negative"],
)
def test_options_refuse_non_finite_numbers_and_negative_weights(options: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        VerifyOptions.model_validate(options)


def test_a_non_finite_wait_is_refused() -> None:
    with pytest.raises(ValidationError):
        VerifyRequest(candidate="x", sample_id=SAMPLE_ID, wait=float("inf"))
    assert RewardWeights(build=0.0, diff=0.0, inj=1.0).inj == 1.0

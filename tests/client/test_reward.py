"""The reward function's pure parts: which code a completion holds, which sample each one needs, the
loud failures that need no service at all, and how each answer without a reward is counted (the
service's answers come from httpx's in-memory transport; tests/verifier covers the real service)."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from vrpcoder_client import reward as reward_module
from vrpcoder_client.client import RetryPolicy, VerifierClient
from vrpcoder_client.reward import RewardFunc, VerifierConfigError, extract_code, make_verifier_reward, verifier_reward


@pytest.mark.parametrize(
    ("completion", "expected"),
    [
        ("Here:\n```python\ndef build_model():\n    pass\n```\nDone.", "def build_model():\n    pass\n"),
        ("```python\nfirst = 1\n```\nfixed:\n```python\nsecond = 2\n```", "second = 2\n"),
        ("```\nplain = 1\n```", "plain = 1\n"),
        ("```bash\nls\n```\n```py\nx = 1\n```", "x = 1\n"),
        ("```bash\nls\n```", None),
        ("no code at all", None),
        ([{"role": "assistant", "content": "```python\nchat = 1\n```"}], "chat = 1\n"),
    ],
    ids=["python", "last-block", "plain-fence", "skips-other-languages", "only-bash", "none", "chat-messages"],
)
def test_extract_code(completion: object, expected: str | None) -> None:
    assert extract_code(completion) == expected  # type: ignore[arg-type]


def test_the_default_reward_without_a_url_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VRPCODER_VERIFIER_URL", raising=False)
    reward_module._default_reward.cache_clear()
    with pytest.raises(VerifierConfigError, match="VRPCODER_VERIFIER_URL"):
        verifier_reward(["p"], ["```python\nx = 1\n```"], sample_id="a" * 64)


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        ({}, "'sample_id' or 'samples'"),
        ({"sample_id": ["a" * 64]}, "2 completions but 1 sample ids"),
        ({"samples": ["{}", "{}", "{}"]}, "2 completions but 3 samples"),
        ({"samples": ["not json", "{}"]}, "not JSON"),
        ({"samples": [3, 4]}, "must be a sample model"),
    ],
    ids=["no-column", "ids-count", "samples-count", "bad-json", "bad-type"],
)
def test_a_dataset_without_usable_samples_raises(columns: dict[str, object], message: str) -> None:
    reward = make_verifier_reward(VerifierClient("http://127.0.0.1:9"), check=False)
    with pytest.raises(VerifierConfigError, match=message):
        reward(["p", "p"], ["```python\nx\n```", "```python\ny\n```"], **columns)


def _fenced(code: str) -> str:
    return f"```python\n{code}```\n"


def _verdict_result(reward: float | None, kind: str | None) -> dict[str, object]:
    error = None if kind is None else {"kind": kind, "detail": "d"}
    verdict = {
        "sample_id": "s", "build": True, "status": "time_limit", "objective": 2.0, "reference_objective": 1.0,
        "diff": False, "probes": [], "passed": False, "reward": reward, "error": error,
    }
    return {"job_id": "j" * 32, "state": "finished", "verdict": verdict}


def _reward_against(handler: Callable[[httpx.Request], httpx.Response]) -> tuple[RewardFunc, VerifierClient]:
    client = VerifierClient(
        "http://verifier.test", "t", retry=RetryPolicy(attempts=2, backoff=0.001), transport=httpx.MockTransport(handler)
    )
    return make_verifier_reward(client, check=False), client


def test_a_server_error_gives_none_with_its_reason_instead_of_raising() -> None:
    """A 500 is the service's fault: the trainer gets None (counted), never an exception."""
    reward, client = _reward_against(lambda request: httpx.Response(500, text="Internal Server Error"))
    with client:
        rewards = reward(["p"] * 2, [_fenced("x = 1\n"), "no code"], sample_id="a" * 64)
    assert rewards == [None, 0.0]
    assert reward.stats.none_by_reason == {"server_error": 1}


def test_a_job_lost_twice_gives_none_with_its_reason() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(404, json={"detail": "no job (unknown or expired)"})
        return httpx.Response(202, json={"results": [{"job_id": "a" * 32, "state": "queued"}]})

    reward, client = _reward_against(handler)
    with client:
        assert reward(["p"], [_fenced("x = 1\n")], sample_id="a" * 64) == [None]
    assert reward.stats.none_by_reason == {"job_lost": 1}


@pytest.mark.parametrize(
    ("kind", "reason"),
    [("time_budget", "time_budget"), ("infrastructure", "infrastructure_verdict"), ("size_limited_licence", "size_limited_licence")],
)
def test_a_verdict_without_reward_is_counted_by_its_kind(kind: str, reason: str) -> None:
    reward, client = _reward_against(lambda request: httpx.Response(200, json={"results": [_verdict_result(None, kind)]}))
    with client:
        assert reward(["p"], [_fenced("x = 1\n")], sample_id="a" * 64) == [None]
    assert reward.stats.none_by_reason == {reason: 1}

"""The reward function's pure parts: which code a completion holds, which sample each one needs, and
the loud failures that need no service at all."""

from __future__ import annotations

import pytest
from vrpcoder_client import reward as reward_module
from vrpcoder_client.client import VerifierClient
from vrpcoder_client.reward import VerifierConfigError, extract_code, make_verifier_reward, verifier_reward


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

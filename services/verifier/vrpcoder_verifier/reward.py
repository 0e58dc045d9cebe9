"""A TRL reward function that scores completions with the verifier service.

Use it the way TRL takes any reward function: a plain callable passed to ``GRPOTrainer``.
The dataset must have a ``sample_id`` column (ids from ``POST /v1/samples``) or a ``samples``
column (the ``Sample`` itself, as a model, dict or JSON string); TRL passes every extra dataset
column as a keyword argument holding one value per completion::

    from trl import GRPOTrainer
    from vrpcoder_verifier.reward import verifier_reward   # reads VRPCODER_VERIFIER_URL / _TOKEN

    trainer = GRPOTrainer(model=..., reward_funcs=verifier_reward, train_dataset=dataset)

or, with an explicit client: ``reward_funcs=make_verifier_reward(VerifierClient(url, token))``.

Each completion's last fenced ```python block is the candidate (a plain ``` block if there is no
python one). A completion without any code block earns 0.0, the reward of a script that does not
run: that is the model's fault. When the *service* fails (unreachable, job lost, infrastructure
verdict) the completion gets ``None``, which TRL treats as "no reward" and leaves out of the
advantage, instead of a silent 0 that would punish the model for our outage.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from vrpcoder.samples import Sample

from vrpcoder_verifier.client import SampleRef, VerifierClient, VerifierError
from vrpcoder_verifier.schemas import VerifyOptions

RewardFunc = Callable[..., list[float | None]]
NO_CODE_REWARD = 0.0

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)


def extract_code(completion: str | Sequence[dict[str, Any]] | dict[str, Any]) -> str | None:
    """The candidate script in a completion (plain text or chat messages), or None when there is none."""
    text = _completion_text(completion)
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    python = [body for lang, body in blocks if lang in ("python", "py", "python3")]
    chosen = python or [body for lang, body in blocks if not lang]
    return chosen[-1] if chosen else None


def _completion_text(completion: str | Sequence[dict[str, Any]] | dict[str, Any]) -> str:
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content") or "")
    replies = [m for m in completion if m.get("role", "assistant") == "assistant"]
    return "\n".join(str(m.get("content") or "") for m in (replies or list(completion)))


def _as_sample(value: Sample | dict[str, Any] | str) -> Sample:
    if isinstance(value, Sample):
        return value
    if isinstance(value, dict):
        return Sample.model_validate(value)
    return Sample.model_validate_json(value)


def _references(
    count: int, sample_id: Sequence[str] | str | None, samples: Sequence[Any] | Any | None
) -> list[SampleRef]:
    if sample_id is not None:
        ids = [sample_id] * count if isinstance(sample_id, str) else list(sample_id)
        if len(ids) != count:
            raise ValueError(f"{count} completions but {len(ids)} sample ids")
        return list(ids)
    if samples is None:
        raise ValueError("verifier_reward needs a 'sample_id' or 'samples' dataset column")
    values = [samples] * count if isinstance(samples, (Sample, str, dict)) else list(samples)
    if len(values) != count:
        raise ValueError(f"{count} completions but {len(values)} samples")
    return [_as_sample(v) for v in values]


def score_completions(
    client: VerifierClient,
    completions: Sequence[Any],
    references: Sequence[SampleRef],
    options: VerifyOptions | None = None,
) -> list[float | None]:
    """One batch request for every completion that has code; order kept."""
    codes = [extract_code(c) for c in completions]
    wanted = [i for i, code in enumerate(codes) if code is not None]
    rewards: list[float | None] = [NO_CODE_REWARD if code is None else None for code in codes]
    if not wanted:
        return rewards
    try:
        results = client.verify_batch([codes[i] or "" for i in wanted], [references[i] for i in wanted], options=options)
    except VerifierError:
        return rewards
    for index, result in zip(wanted, results, strict=True):
        rewards[index] = result.reward
    return rewards


def make_verifier_reward(client: VerifierClient, options: VerifyOptions | None = None) -> RewardFunc:
    """A reward function bound to ``client`` (named ``verifier_reward``, the name TRL logs it under)."""

    def verifier_reward(
        prompts: Sequence[Any],
        completions: Sequence[Any],
        *,
        sample_id: Sequence[str] | str | None = None,
        samples: Sequence[Any] | Any | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        return score_completions(client, completions, _references(len(completions), sample_id, samples), options)

    return verifier_reward


@cache
def _default_client() -> VerifierClient:
    return VerifierClient.from_env()


def verifier_reward(
    prompts: Sequence[Any],
    completions: Sequence[Any],
    *,
    sample_id: Sequence[str] | str | None = None,
    samples: Sequence[Any] | Any | None = None,
    **kwargs: Any,
) -> list[float | None]:
    """Reward of each completion from the service at $VRPCODER_VERIFIER_URL (see the module docstring)."""
    references = _references(len(completions), sample_id, samples)
    try:
        client = _default_client()
    except VerifierError:
        return [NO_CODE_REWARD if extract_code(c) is None else None for c in completions]
    return score_completions(client, completions, references, None)

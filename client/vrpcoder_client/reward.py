"""A TRL reward function that scores completions with the verifier service.

Use it the way TRL takes any reward function: a plain callable passed to ``GRPOTrainer``.
The dataset must have a ``sample_id`` column (ids from ``POST /v1/samples``) or a ``samples``
column (the sample itself, as a pydantic model, JSON object or JSON string); TRL passes every extra
dataset column as a keyword argument holding one value per completion::

    from trl import GRPOTrainer
    from vrpcoder_client.reward import make_verifier_reward
    from vrpcoder_client.client import VerifierClient

    reward = make_verifier_reward(VerifierClient(url, token))   # checks service and token now
    trainer = GRPOTrainer(model=..., reward_funcs=reward, train_dataset=dataset)

or ``reward_funcs=verifier_reward``, which reads VRPCODER_VERIFIER_URL / _TOKEN on first call.

Each completion's last fenced ```python block is the candidate (a plain ``` block if there is no
python one). A completion without any code block earns 0.0, the reward of a script that does not
run: that is the model's fault.

Two kinds of failure are kept apart, because they call for opposite reactions:

- A *configuration or contract* error (no URL, a wrong token, an unknown sample id, a request the
  service refuses as invalid) raises ``VerifierError`` at once: training must not go on without a
  signal.
- A *transient infrastructure* failure (the service unreachable or answering 5xx after the
  client's retries, which ride out a restart of the API or of Redis; a job lost with its worker or
  its Redis; an infrastructure verdict; a time budget too small to decide) gives ``None`` for the
  completions concerned, which TRL treats as "no reward" and leaves out of the advantage, instead
  of a silent 0 that would punish the model for our outage. Every ``None`` is logged and counted in
  the function's ``stats`` by its reason (``NoneReason``).

Samples: a ``sample_id`` column works best with samples the same client registered first
(``client.register_sample``): the client keeps them, so when the service answers that one is not
registered (a Redis restarted without its data), it registers them again and repeats the call.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

from pydantic import BaseModel

from vrpcoder_client.client import SampleRef, VerifierClient, VerifierError, VerifierHTTPError, VerifierUnavailable
from vrpcoder_client.schemas import JobState, VerifyOptions, VerifyResult
from vrpcoder_client.verdicts import ErrorKind, Verdict

NO_CODE_REWARD = 0.0

logger = logging.getLogger(__name__)

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)```", re.DOTALL)


class VerifierConfigError(VerifierError):
    """The reward function cannot be used as configured (no URL, a bad token, unusable samples)."""


def extract_code(completion: str | Sequence[Mapping[str, Any]] | Mapping[str, Any]) -> str | None:
    """The candidate script in a completion (plain text or chat messages), or None when there is none."""
    text = _completion_text(completion)
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    python = [body for lang, body in blocks if lang in ("python", "py", "python3")]
    chosen = python or [body for lang, body in blocks if not lang]
    return chosen[-1] if chosen else None


def _completion_text(completion: str | Sequence[Mapping[str, Any]] | Mapping[str, Any]) -> str:
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return str(completion.get("content") or "")
    replies = [m for m in completion if m.get("role", "assistant") == "assistant"]
    return "\n".join(str(m.get("content") or "") for m in (replies or list(completion)))


class NoneReason:
    """Why a completion got ``None`` (the keys of ``RewardStats.none_by_reason``)."""

    UNAVAILABLE = "service_unavailable"
    """The service could not be reached, or answered 502/503/504/429, after the client's retries."""
    SERVER_ERROR = "server_error"
    """The service answered another 5xx (a fault of ours, not of the completions)."""
    JOB_FAILED = "job_failed"
    """The job ended without a verdict (its worker died with no retry left, its batch could not be read)."""
    JOB_LOST = "job_lost"
    """The service lost the job (its Redis lost the data) and lost it again when submitted once more."""
    PENDING = "still_pending"
    """The verdict did not arrive within the client's poll timeout."""
    INFRASTRUCTURE = "infrastructure_verdict"
    """The verdict itself says the fault was ours."""
    TIME_BUDGET = ErrorKind.TIME_BUDGET.value
    """The candidate's solve ran out of the job's time limit before it could be judged (raise ``time_limit``)."""
    SIZE_LIMITED_LICENCE = ErrorKind.SIZE_LIMITED_LICENCE.value
    """The model exceeds the size-limited Gurobi licence: not the candidate's fault."""


@dataclass(frozen=True, slots=True)
class ScoredCompletion:
    """One completion as the reward function saw it.

    The one record of a completion's fate: the reward TRL gets, why it is ``None`` when it is, and
    the service's answer. The function's counters, the trainer's logs and the frontier filter all
    read these records, so no consumer extracts code or counts ``None`` a second time."""

    reward: float | None
    none_reason: str | None = None
    """Why ``reward`` is None (a ``NoneReason`` value); None when the reward is a number."""
    has_code: bool = True
    """False for a reply without a code block (its reward is ``NO_CODE_REWARD``, the model's fault)."""
    result: VerifyResult | None = None
    """The service's answer; None when no code was sent or the service was not reached."""

    @property
    def verdict(self) -> Verdict | None:
        return None if self.result is None else self.result.verdict

    @property
    def scored(self) -> bool:
        """The service judged the code (a number that came from a verdict, not the no-code 0)."""
        return self.has_code and self.reward is not None

    @property
    def passed(self) -> bool:
        """The dual verifier passed it (DIFF, the optimum check and every judged probe)."""
        return self.verdict is not None and self.verdict.passed


@dataclass
class RewardStats:
    """What a reward function has seen, for the training logs: nothing lost, nothing silent."""

    calls: int = 0
    completions: int = 0
    no_code: int = 0
    scored: int = 0
    none_by_reason: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def none(self) -> int:
        return sum(self.none_by_reason.values())

    def record(self, records: Sequence[ScoredCompletion]) -> None:
        """Count one call's records."""
        with self._lock:
            self.calls += 1
            self.completions += len(records)
            self.no_code += sum(not r.has_code for r in records)
            self.scored += sum(r.scored for r in records)
            self.none_by_reason.update(r.none_reason for r in records if r.none_reason is not None)

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "completions": self.completions,
            "no_code": self.no_code,
            "scored": self.scored,
            "none": self.none,
            "none_by_reason": dict(self.none_by_reason),
        }


class ScoredHook(Protocol):
    """Called with every call's records, in completion order (for per-component logs)."""

    def __call__(self, records: Sequence[ScoredCompletion]) -> None: ...


class RewardFunc(Protocol):
    __name__: str
    stats: RewardStats

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any) -> list[float | None]: ...


def _as_sample(value: Any) -> BaseModel | Mapping[str, Any]:
    if isinstance(value, (BaseModel, Mapping)):
        return value
    if isinstance(value, (str, bytes)):
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            raise VerifierConfigError(f"a 'samples' value is not JSON: {exc}") from exc
        if isinstance(parsed, dict):
            return parsed
    raise VerifierConfigError(f"a 'samples' value must be a sample model, JSON object or JSON text, not {type(value).__name__}")


def _references(count: int, sample_id: Sequence[str] | str | None, samples: Any | None) -> list[SampleRef]:
    if sample_id is not None:
        ids = [sample_id] * count if isinstance(sample_id, str) else list(sample_id)
        if len(ids) != count:
            raise VerifierConfigError(f"{count} completions but {len(ids)} sample ids")
        return list(ids)
    if samples is None:
        raise VerifierConfigError("the verifier reward needs a 'sample_id' or 'samples' dataset column")
    single = isinstance(samples, (BaseModel, Mapping, str, bytes))
    values = [samples] * count if single else list(samples)
    if len(values) != count:
        raise VerifierConfigError(f"{count} completions but {len(values)} samples")
    return [_as_sample(v) for v in values]


def _none_reason(result: VerifyResult) -> str | None:
    if result.state is JobState.FAILED:
        return NoneReason.JOB_FAILED
    if result.state is JobState.LOST:
        return NoneReason.JOB_LOST
    if not result.done:
        return NoneReason.PENDING
    if result.reward is None:
        error = result.verdict.error if result.verdict is not None else None
        if error is not None and error.kind is not ErrorKind.INFRASTRUCTURE:
            return error.kind.value
        return NoneReason.INFRASTRUCTURE
    return None


def score_completions(
    client: VerifierClient,
    completions: Sequence[Any],
    references: Sequence[SampleRef],
    options: VerifyOptions | None = None,
    *,
    stats: RewardStats | None = None,
    on_scored: ScoredHook | None = None,
) -> list[ScoredCompletion]:
    """One batch request for every completion that has code; one record per completion, order kept
    (see the module docstring)."""
    codes = [extract_code(c) for c in completions]
    wanted = [i for i, code in enumerate(codes) if code is not None]
    records = [ScoredCompletion(NO_CODE_REWARD, has_code=False) if code is None else None for code in codes]
    if wanted:
        for index, record in zip(wanted, _verify(client, [codes[i] or "" for i in wanted], [references[i] for i in wanted], options), strict=True):
            records[index] = record
    scored = [r for r in records if r is not None]
    if stats is not None:
        stats.record(scored)
    if on_scored is not None:
        on_scored(scored)
    return scored


def _verify(client: VerifierClient, codes: list[str], references: list[SampleRef], options: VerifyOptions | None) -> list[ScoredCompletion]:
    """The records of the completions that have code: one batch, transient faults as None with their reason."""
    try:
        results = client.verify_batch(codes, references, options=options)
    except VerifierUnavailable as exc:
        logger.warning("verifier unavailable: %d completions get no reward (%s)", len(codes), exc)
        return [ScoredCompletion(None, NoneReason.UNAVAILABLE)] * len(codes)
    except VerifierHTTPError as exc:
        if exc.status < 500:
            raise
        logger.warning("verifier failed (HTTP %d): %d completions get no reward (%s)", exc.status, len(codes), exc)
        return [ScoredCompletion(None, NoneReason.SERVER_ERROR)] * len(codes)
    records: list[ScoredCompletion] = []
    for index, result in enumerate(results):
        reason = _none_reason(result)
        if reason is not None:
            detail = result.failure or (result.verdict.error.detail if result.verdict and result.verdict.error else "")
            logger.warning("completion %d gets no reward: %s %s", index, reason, detail[:200])
        records.append(ScoredCompletion(result.reward if reason is None else None, reason, result=result))
    return records


def check_service(client: VerifierClient) -> None:
    """Fail now, with the reason, if the service cannot be used: unreachable, or the token refused.

    An authenticated look-up of a job id that cannot exist answers 404 when the token is accepted
    and 401/403 when it is not, without touching any sample or queue.
    """
    try:
        client.job("0" * 32)
    except VerifierUnavailable as exc:
        raise VerifierConfigError(f"the verifier service at {client.base_url} cannot be reached: {exc}") from exc
    except VerifierError as exc:
        status = getattr(exc, "status", None)
        if status == 404:
            return
        if status in (401, 403):
            raise VerifierConfigError(
                f"the verifier service at {client.base_url} refused the token (HTTP {status}): "
                "set VRPCODER_VERIFIER_TOKEN to one of the service's VRPCODER_VERIFIER_API_TOKENS"
            ) from exc
        raise VerifierConfigError(f"the verifier service at {client.base_url} answered unexpectedly: {exc}") from exc


def make_verifier_reward(
    client: VerifierClient,
    options: VerifyOptions | None = None,
    *,
    check: bool = True,
    on_scored: ScoredHook | None = None,
) -> RewardFunc:
    """A reward function bound to ``client`` (named ``verifier_reward``, the name TRL logs it under).

    With ``check`` the service and token are tried now (``check_service``), so a misconfigured run
    stops before its first rollout. ``options.weights`` is where an ablation changes the reward
    (e.g. ``RewardWeights(inj=0.0)`` for the paper's no-injection run). The returned function
    carries ``stats`` (a ``RewardStats``); ``on_scored`` receives each call's ``ScoredCompletion``
    records, the same ones the stats count.
    """
    if check:
        check_service(client)
    stats = RewardStats()

    def verifier_reward(
        prompts: Sequence[Any],
        completions: Sequence[Any],
        *,
        sample_id: Sequence[str] | str | None = None,
        samples: Any | None = None,
        **kwargs: Any,
    ) -> list[float | None]:
        references = _references(len(completions), sample_id, samples)
        records = score_completions(client, completions, references, options, stats=stats, on_scored=on_scored)
        return [record.reward for record in records]

    verifier_reward.stats = stats  # type: ignore[attr-defined]
    return verifier_reward  # type: ignore[return-value]


@cache
def _default_reward() -> RewardFunc:
    try:
        client = VerifierClient.from_env()
    except VerifierError as exc:
        raise VerifierConfigError(str(exc)) from exc
    return make_verifier_reward(client)


def verifier_reward(
    prompts: Sequence[Any],
    completions: Sequence[Any],
    *,
    sample_id: Sequence[str] | str | None = None,
    samples: Any | None = None,
    **kwargs: Any,
) -> list[float | None]:
    """Reward of each completion from the service at $VRPCODER_VERIFIER_URL (see the module docstring).

    The service and token are checked on the first call; a missing URL raises ``VerifierConfigError``.
    """
    return _default_reward()(prompts, completions, sample_id=sample_id, samples=samples, **kwargs)


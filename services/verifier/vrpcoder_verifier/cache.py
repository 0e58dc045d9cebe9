"""Content-addressed records in Redis: verdicts by request key, samples by digest.

Verification is deterministic for a given (candidate, sample, verifier version, config), so its
verdict can be served again without a solve: GRPO groups repeat completions often, and re-running
an evaluation should cost nothing. Infrastructure faults and time-budget verdicts are never
cached: they say nothing about the candidate, and the next attempt (on a less loaded worker) may
decide. Workers write verdicts in the same pipeline that
announces the job's end (``queue.publish``); the API reads them before it queues anything and hands
them on as stored, without rebuilding them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import redis
import redis.asyncio as aioredis
from pydantic import BaseModel, ConfigDict
from vrpcoder.errors import ErrorKind
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig

from vrpcoder_verifier.settings import Settings


def cache_key(candidate: str, sample_id: str, version: str, config: VerifyConfig) -> str:
    """sha256 over length-prefixed parts, so no two different tuples can produce the same byte stream."""
    digest = hashlib.sha256()
    for part in (candidate, sample_id, version, config.model_dump_json()):
        data = part.encode("utf-8", "surrogatepass")  # any str hashes, even one JSON gave a lone surrogate
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


_NOT_CACHED = frozenset({ErrorKind.INFRASTRUCTURE, ErrorKind.TIME_BUDGET})


def cacheable(verdict: Verdict) -> bool:
    return verdict.error is None or verdict.error.kind not in _NOT_CACHED


def verdict_key(settings: Settings, key: str) -> str:
    return settings.key("verdict", key)


def sample_key(settings: Settings, sample_id: str) -> str:
    return settings.key("sample", sample_id)


class _ErrorSummary(BaseModel):
    kind: ErrorKind


class _VerdictSummary(BaseModel):
    """The two fields of a stored verdict the API needs; parsing only these is a fraction of a full parse."""

    model_config = ConfigDict(extra="ignore")

    reward: float | None
    error: _ErrorSummary | None


@dataclass(frozen=True, slots=True)
class CachedVerdict:
    """A verdict as stored (``Verdict`` JSON), passed on to the client without being rebuilt as a model."""

    raw: bytes
    reward: float | None
    error_kind: str
    """The verdict's error kind, or ``none`` for a clean pass or fail (what the metrics count by)."""

    @classmethod
    def parse(cls, raw: bytes) -> CachedVerdict:
        summary = _VerdictSummary.model_validate_json(raw)
        kind = summary.error.kind.value if summary.error is not None else "none"
        return cls(raw=raw, reward=summary.reward, error_kind=kind)


@dataclass(frozen=True, slots=True)
class CacheLookup:
    missing_samples: list[str]
    """Referenced sample ids that are not registered."""
    verdicts: list[CachedVerdict | None]
    """One per looked-up key, in order; None where nothing is cached."""
    extra: bytes | None = None
    """The value of the ``extra`` key asked for alongside (None when absent or not asked)."""


class AsyncResultCache:
    """The API's side: everything a request needs from Redis before it queues anything, in one round trip."""

    def __init__(self, connection: aioredis.Redis, settings: Settings) -> None:
        self._redis = connection
        self._settings = settings

    async def lookup(
        self, inline: Mapping[str, str], referenced: Sequence[str], keys: Sequence[str], extra: str | None = None
    ) -> CacheLookup:
        """Store ``inline`` samples (id to JSON), refresh ``referenced`` ones, read the verdicts of
        ``keys`` and the value of the ``extra`` key (the request's earlier attempt, if any).

        One pipeline instead of a round trip each: on a cache hit this is the whole of the request's
        Redis traffic. A referenced sample that turns out missing makes the verdicts moot, which costs
        nothing but the few bytes already read.
        """
        settings = self._settings
        async with self._redis.pipeline(transaction=False) as pipe:
            for sample_id, sample_json in inline.items():
                pipe.set(sample_key(settings, sample_id), sample_json, ex=settings.sample_ttl_seconds)
            for sample_id in referenced:
                pipe.expire(sample_key(settings, sample_id), settings.sample_ttl_seconds)
            if keys:
                pipe.mget([verdict_key(settings, k) for k in keys])
            if extra is not None:
                pipe.get(extra)
            replies = await pipe.execute()
        found = replies.pop() if extra is not None else None
        touched = replies[len(inline) : len(inline) + len(referenced)]
        raws = replies[-1] if keys else []
        return CacheLookup(
            missing_samples=[sample_id for sample_id, ok in zip(referenced, touched, strict=True) if not ok],
            verdicts=[None if raw is None else CachedVerdict.parse(raw) for raw in raws],
            extra=found,
        )


class SampleStore:
    """Registered samples by digest; the API writes them, workers read them (sync or async client)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    async def put(self, connection: aioredis.Redis, sample_id: str, sample_json: str) -> None:
        await connection.set(sample_key(self._settings, sample_id), sample_json, ex=self._settings.sample_ttl_seconds)

    def load(self, connection: redis.Redis, sample_id: str) -> Sample | None:
        raw = connection.get(sample_key(self._settings, sample_id))
        return None if raw is None else Sample.model_validate_json(raw)

"""Content-addressed records in Redis: verdicts by request key, samples by digest.

Verification is deterministic for a given (candidate, sample, verifier version, config), so its
verdict can be served again without a solve: GRPO groups repeat completions often, and re-running
an evaluation should cost nothing. Infrastructure faults are never cached: they say nothing about
the candidate, and the next attempt may succeed. Workers write verdicts in the same pipeline that
announces the job's end (``queue.publish``); the API reads them before it queues anything.
"""

from __future__ import annotations

import hashlib

import redis
import redis.asyncio as aioredis
from vrpcoder.errors import ErrorKind
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig

from vrpcoder_verifier.settings import Settings


def cache_key(candidate: str, sample_id: str, version: str, config: VerifyConfig) -> str:
    """sha256 over length-prefixed parts, so no two different tuples can produce the same byte stream."""
    digest = hashlib.sha256()
    for part in (candidate, sample_id, version, config.model_dump_json()):
        data = part.encode()
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


def cacheable(verdict: Verdict) -> bool:
    return verdict.error is None or verdict.error.kind is not ErrorKind.INFRASTRUCTURE


def verdict_key(settings: Settings, key: str) -> str:
    return settings.key("verdict", key)


def sample_key(settings: Settings, sample_id: str) -> str:
    return settings.key("sample", sample_id)


class AsyncResultCache:
    """The API's side: look many keys up in one round trip before anything is queued."""

    def __init__(self, connection: aioredis.Redis, settings: Settings) -> None:
        self._redis = connection
        self._settings = settings

    async def get_many(self, keys: list[str]) -> list[Verdict | None]:
        if not keys:
            return []
        raws = await self._redis.mget([verdict_key(self._settings, k) for k in keys])
        return [None if raw is None else Verdict.model_validate_json(raw) for raw in raws]


class SampleStore:
    """Registered samples by digest; the API writes them, workers read them (sync or async client)."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    async def put(self, connection: aioredis.Redis, sample_id: str, sample_json: str) -> None:
        await connection.set(sample_key(self._settings, sample_id), sample_json, ex=self._settings.sample_ttl_seconds)

    async def touch_all(self, connection: aioredis.Redis, sample_ids: list[str]) -> list[str]:
        """Refresh the TTL of each id and return the ids that are not registered."""
        if not sample_ids:
            return []
        async with connection.pipeline(transaction=False) as pipe:
            for sample_id in sample_ids:
                pipe.expire(sample_key(self._settings, sample_id), self._settings.sample_ttl_seconds)
            found = await pipe.execute()
        return [sample_id for sample_id, ok in zip(sample_ids, found, strict=True) if not ok]

    def load(self, connection: redis.Redis, sample_id: str) -> Sample | None:
        raw = connection.get(sample_key(self._settings, sample_id))
        return None if raw is None else Sample.model_validate_json(raw)

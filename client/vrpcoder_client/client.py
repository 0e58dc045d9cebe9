"""Typed Python client of the verifier API (httpx), synchronous and asynchronous.

Samples are registered once per client and then referred to by their content hash, so a GRPO
group sends its sample once, not once per completion (a sample is any pydantic model of
``vrpcoder.samples.Sample``, its JSON object, or the id it was registered under: this package needs
neither gurobipy nor the domain library); if the service lost it (Redis restarted) the
client registers it again and repeats the request. Transient faults (connection errors, 429, 502,
503, 504) are retried with exponential backoff and jitter; anything else is the caller's business
and raises ``VerifierHTTPError`` with the service's own message.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self, TypeAlias, TypeVar

import httpx
from pydantic import BaseModel

from vrpcoder_client.schemas import (
    BatchResponse,
    ReadyReport,
    SampleRegistered,
    VerifyOptions,
    VerifyResult,
    json_digest,
)

ModelT = TypeVar("ModelT", bound=BaseModel)
SampleRef: TypeAlias = BaseModel | Mapping[str, Any] | str
"""A sample (its pydantic model or JSON object), or the id it was registered under."""

URL_ENV = "VRPCODER_VERIFIER_URL"
TOKEN_ENV = "VRPCODER_VERIFIER_TOKEN"
_RETRY_STATUSES = frozenset({429, 502, 503, 504})


def _json_body(payload: Any) -> dict[str, Any]:
    """Request arguments for a JSON body any Python str can travel in. JSON's escapes carry a lone
    surrogate (``"\\ud800"``, which a policy can emit) that UTF-8 cannot encode, and httpx's own
    ``json=`` encodes to UTF-8: one such completion raised for its whole batch. The service judges
    that text as a syntax error instead."""
    if payload is None:
        return {}
    body = json.dumps(payload, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    return {"content": body, "headers": {"Content-Type": "application/json"}}


class VerifierError(Exception):
    """The service could not give an answer."""


class VerifierUnavailable(VerifierError):
    """Still unreachable or overloaded after every retry: an infrastructure fault, not the candidate's."""


class VerifierHTTPError(VerifierError):
    def __init__(self, status: int, detail: object) -> None:
        super().__init__(f"HTTP {status}: {detail}")
        self.status = status
        self.detail = detail


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 5
    backoff: float = 0.1
    """First delay in seconds; doubled per attempt, with full jitter."""
    max_backoff: float = 5.0

    def delay(self, attempt: int) -> float:
        return random.uniform(0.0, min(self.max_backoff, self.backoff * 2**attempt))


@dataclass(frozen=True, slots=True)
class PollPolicy:
    """How a client waits for pending jobs after the service's own bounded wait ran out."""

    timeout: float = 600.0
    first: float = 0.05
    max_interval: float = 1.0


def _detail(response: httpx.Response) -> object:
    try:
        body = response.json()
    except ValueError:
        return response.text[:500]
    return body.get("detail", body) if isinstance(body, dict) else body


def _check(response: httpx.Response) -> None:
    if response.status_code >= 400:
        raise VerifierHTTPError(response.status_code, _detail(response))


def _per_candidate(samples: SampleRef | Sequence[SampleRef], count: int) -> list[SampleRef]:
    if isinstance(samples, (BaseModel, Mapping, str)):
        return [samples] * count
    refs = list(samples)
    if len(refs) != count:
        raise ValueError(f"{count} candidates but {len(refs)} samples; give one sample or one per candidate")
    return refs


def _batch_payload(
    candidates: Sequence[str], sample_ids: Sequence[str], options: VerifyOptions | None, wait: float | None
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "items": [{"candidate": c, "sample_id": s} for c, s in zip(candidates, sample_ids, strict=True)],
        "options": (options or VerifyOptions()).model_dump(mode="json"),
    }
    if wait is not None:
        payload["wait"] = wait
    return payload


def _single_payload(candidate: str, sample_id: str, options: VerifyOptions | None, wait: float | None) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "candidate": candidate,
        "sample_id": sample_id,
        "options": (options or VerifyOptions()).model_dump(mode="json"),
    }
    if wait is not None:
        payload["wait"] = wait
    return payload


def _sample_payload(sample: BaseModel | Mapping[str, Any]) -> Any:
    return sample.model_dump(mode="json") if isinstance(sample, BaseModel) else dict(sample)


def _local_key(sample: BaseModel | Mapping[str, Any]) -> str:
    """What the client remembers a registered sample by.

    For a model it is the service's own id (the digest of its canonical JSON); a plain JSON object's
    canonical text is the server's to produce, so it is remembered by its sorted JSON instead.
    """
    if isinstance(sample, BaseModel):
        return json_digest(sample.model_dump_json())
    return "json:" + json.dumps(sample, sort_keys=True, separators=(",", ":"))


def _unknown_sample(exc: VerifierHTTPError) -> bool:
    return exc.status == 404 and "not registered" in str(exc.detail)


class _Common:
    def __init__(
        self,
        base_url: str,
        token: str | None,
        retry: RetryPolicy,
        poll: PollPolicy,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = retry
        self.poll = poll
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._registered: dict[str, str] = {}
        """Local key of each sample this client registered -> the id the service gave it."""

    @classmethod
    def _env(cls) -> tuple[str, str | None]:
        url = os.environ.get(URL_ENV)
        if not url:
            raise VerifierError(f"set {URL_ENV} (and {TOKEN_ENV}) to reach the verifier service")
        return url, os.environ.get(TOKEN_ENV)

    def _retryable(self, attempt: int, response: httpx.Response | None) -> bool:
        if attempt + 1 >= self.retry.attempts:
            return False
        return response is None or response.status_code in _RETRY_STATUSES


class VerifierClient(_Common):
    """Blocking client; one ``httpx.Client`` (connection pool) per instance."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = 120.0,
        retry: RetryPolicy = RetryPolicy(),
        poll: PollPolicy = PollPolicy(),
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(base_url, token, retry, poll)
        self._http = httpx.Client(base_url=self.base_url, headers=self._headers, timeout=timeout, transport=transport)

    @classmethod
    def from_env(cls, **kwargs: Any) -> VerifierClient:
        url, token = cls._env()
        return cls(url, token, **kwargs)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _request(self, method: str, path: str, json: Any = None) -> httpx.Response:
        for attempt in range(self.retry.attempts):
            try:
                response = self._http.request(method, path, **_json_body(json))
            except httpx.TransportError as exc:
                if not self._retryable(attempt, None):
                    raise VerifierUnavailable(f"{method} {path}: {exc}") from exc
            else:
                if not self._retryable(attempt, response):
                    if response.status_code in _RETRY_STATUSES:
                        raise VerifierUnavailable(f"{method} {path}: HTTP {response.status_code}: {_detail(response)}")
                    _check(response)
                    return response
            time.sleep(self.retry.delay(attempt))
        raise VerifierUnavailable(f"{method} {path}: no attempts configured")

    def _model(self, model: type[ModelT], method: str, path: str, json: Any = None) -> ModelT:
        return model.model_validate_json(self._request(method, path, json).content)

    def healthy(self) -> bool:
        try:
            return self._http.get("/healthz").status_code == 200
        except httpx.HTTPError:
            return False

    def ready(self) -> ReadyReport:
        response = self._http.get("/readyz")
        if response.status_code not in (200, 503):
            _check(response)
        return ReadyReport.model_validate_json(response.content)

    def register_sample(self, sample: BaseModel | Mapping[str, Any]) -> str:
        """Register ``sample`` (POST /v1/samples) and return its id."""
        registered = self._model(SampleRegistered, "POST", "/v1/samples", _sample_payload(sample))
        self._registered[_local_key(sample)] = registered.sample_id
        return registered.sample_id

    def _ids(self, refs: Sequence[SampleRef], *, force: bool = False) -> list[str]:
        ids: list[str] = []
        for ref in refs:
            if isinstance(ref, str):
                ids.append(ref)
                continue
            known = None if force else self._registered.get(_local_key(ref))
            ids.append(known or self.register_sample(ref))
        return ids

    def job(self, job_id: str) -> VerifyResult:
        return self._model(VerifyResult, "GET", f"/v1/jobs/{job_id}")

    def wait(self, results: Sequence[VerifyResult], timeout: float | None = None) -> list[VerifyResult]:
        """Poll pending jobs until every result is done or ``timeout`` (default: the poll policy's) runs out."""
        current = list(results)
        deadline = time.monotonic() + (self.poll.timeout if timeout is None else timeout)
        interval = self.poll.first
        while any(not r.done for r in current) and time.monotonic() < deadline:
            time.sleep(interval)
            interval = min(self.poll.max_interval, interval * 2)
            current = [r if r.done or r.job_id is None else self.job(r.job_id) for r in current]
        return current

    def verify(
        self,
        candidate: str,
        sample: SampleRef,
        *,
        options: VerifyOptions | None = None,
        wait: float | None = None,
        until_done: bool = True,
    ) -> VerifyResult:
        """One candidate through POST /v1/verify; with ``until_done`` a 202 is polled to the end."""
        try:
            result = self._post_one(candidate, self._ids([sample])[0], options, wait)
        except VerifierHTTPError as exc:
            if not _unknown_sample(exc) or isinstance(sample, str):
                raise
            result = self._post_one(candidate, self._ids([sample], force=True)[0], options, wait)
        return self.wait([result])[0] if until_done else result

    def _post_one(self, candidate: str, sample_id: str, options: VerifyOptions | None, wait: float | None) -> VerifyResult:
        return self._model(VerifyResult, "POST", "/v1/verify", _single_payload(candidate, sample_id, options, wait))

    def verify_batch(
        self,
        candidates: Sequence[str],
        samples: SampleRef | Sequence[SampleRef],
        *,
        options: VerifyOptions | None = None,
        wait: float | None = None,
        until_done: bool = True,
    ) -> list[VerifyResult]:
        """Verdicts in candidate order; with ``until_done`` pending jobs are polled to the end."""
        if not candidates:
            return []
        refs = _per_candidate(samples, len(candidates))
        try:
            batch = self._post_batch(candidates, self._ids(refs), options, wait)
        except VerifierHTTPError as exc:
            if not _unknown_sample(exc) or all(isinstance(r, str) for r in refs):
                raise
            batch = self._post_batch(candidates, self._ids(refs, force=True), options, wait)
        results = list(batch.results)
        return self.wait(results) if until_done else results

    def _post_batch(
        self, candidates: Sequence[str], ids: Sequence[str], options: VerifyOptions | None, wait: float | None
    ) -> BatchResponse:
        return self._model(BatchResponse, "POST", "/v1/verify/batch", _batch_payload(candidates, ids, options, wait))


class AsyncVerifierClient(_Common):
    """The same API for asyncio code (e.g. an async trainer loop); one ``httpx.AsyncClient`` per instance."""

    def __init__(
        self,
        base_url: str,
        token: str | None = None,
        *,
        timeout: float = 120.0,
        retry: RetryPolicy = RetryPolicy(),
        poll: PollPolicy = PollPolicy(),
        transport: httpx.AsyncBaseTransport | None = None,
        max_connections: int = 100,
    ) -> None:
        super().__init__(base_url, token, retry, poll)
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            headers=self._headers,
            timeout=timeout,
            transport=transport,
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
        )

    @classmethod
    def from_env(cls, **kwargs: Any) -> AsyncVerifierClient:
        url, token = cls._env()
        return cls(url, token, **kwargs)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def _request(self, method: str, path: str, json: Any = None) -> httpx.Response:
        for attempt in range(self.retry.attempts):
            try:
                response = await self._http.request(method, path, **_json_body(json))
            except httpx.TransportError as exc:
                if not self._retryable(attempt, None):
                    raise VerifierUnavailable(f"{method} {path}: {exc}") from exc
            else:
                if not self._retryable(attempt, response):
                    if response.status_code in _RETRY_STATUSES:
                        raise VerifierUnavailable(f"{method} {path}: HTTP {response.status_code}: {_detail(response)}")
                    _check(response)
                    return response
            await asyncio.sleep(self.retry.delay(attempt))
        raise VerifierUnavailable(f"{method} {path}: no attempts configured")

    async def _model(self, model: type[ModelT], method: str, path: str, json: Any = None) -> ModelT:
        return model.model_validate_json((await self._request(method, path, json)).content)

    async def healthy(self) -> bool:
        try:
            return (await self._http.get("/healthz")).status_code == 200
        except httpx.HTTPError:
            return False

    async def ready(self) -> ReadyReport:
        response = await self._http.get("/readyz")
        if response.status_code not in (200, 503):
            _check(response)
        return ReadyReport.model_validate_json(response.content)

    async def register_sample(self, sample: BaseModel | Mapping[str, Any]) -> str:
        """Register ``sample`` (POST /v1/samples) and return its id."""
        registered = await self._model(SampleRegistered, "POST", "/v1/samples", _sample_payload(sample))
        self._registered[_local_key(sample)] = registered.sample_id
        return registered.sample_id

    async def _ids(self, refs: Sequence[SampleRef], *, force: bool = False) -> list[str]:
        ids: list[str] = []
        for ref in refs:
            if isinstance(ref, str):
                ids.append(ref)
                continue
            known = None if force else self._registered.get(_local_key(ref))
            ids.append(known or await self.register_sample(ref))
        return ids

    async def job(self, job_id: str) -> VerifyResult:
        return await self._model(VerifyResult, "GET", f"/v1/jobs/{job_id}")

    async def wait(self, results: Sequence[VerifyResult], timeout: float | None = None) -> list[VerifyResult]:
        current = list(results)
        deadline = time.monotonic() + (self.poll.timeout if timeout is None else timeout)
        interval = self.poll.first
        while any(not r.done for r in current) and time.monotonic() < deadline:
            await asyncio.sleep(interval)
            interval = min(self.poll.max_interval, interval * 2)
            current = list(
                await asyncio.gather(
                    *(self._same(r) if r.done or r.job_id is None else self.job(r.job_id) for r in current)
                )
            )
        return current

    @staticmethod
    async def _same(result: VerifyResult) -> VerifyResult:
        return result

    async def verify(
        self,
        candidate: str,
        sample: SampleRef,
        *,
        options: VerifyOptions | None = None,
        wait: float | None = None,
        until_done: bool = True,
    ) -> VerifyResult:
        try:
            result = await self._post_one(candidate, (await self._ids([sample]))[0], options, wait)
        except VerifierHTTPError as exc:
            if not _unknown_sample(exc) or isinstance(sample, str):
                raise
            result = await self._post_one(candidate, (await self._ids([sample], force=True))[0], options, wait)
        return (await self.wait([result]))[0] if until_done else result

    async def _post_one(
        self, candidate: str, sample_id: str, options: VerifyOptions | None, wait: float | None
    ) -> VerifyResult:
        return await self._model(VerifyResult, "POST", "/v1/verify", _single_payload(candidate, sample_id, options, wait))

    async def verify_batch(
        self,
        candidates: Sequence[str],
        samples: SampleRef | Sequence[SampleRef],
        *,
        options: VerifyOptions | None = None,
        wait: float | None = None,
        until_done: bool = True,
    ) -> list[VerifyResult]:
        if not candidates:
            return []
        refs = _per_candidate(samples, len(candidates))
        try:
            batch = await self._post_batch(candidates, await self._ids(refs), options, wait)
        except VerifierHTTPError as exc:
            if not _unknown_sample(exc) or all(isinstance(r, str) for r in refs):
                raise
            batch = await self._post_batch(candidates, await self._ids(refs, force=True), options, wait)
        results = list(batch.results)
        return await self.wait(results) if until_done else results

    async def _post_batch(
        self, candidates: Sequence[str], ids: Sequence[str], options: VerifyOptions | None, wait: float | None
    ) -> BatchResponse:
        return await self._model(
            BatchResponse, "POST", "/v1/verify/batch", _batch_payload(candidates, ids, options, wait)
        )

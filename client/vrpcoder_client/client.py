"""Typed Python client of the verifier API (httpx), synchronous and asynchronous.

Samples are registered once per client and then referred to by their content hash, so a GRPO
group sends its sample once, not once per completion (a sample is any pydantic model of
``vrpcoder.samples.Sample``, its JSON object, or the id it was registered under: this package needs
neither gurobipy nor the domain library). The client keeps every sample it registered, so if
the service lost one (a Redis restarted without its data) it registers it again and repeats the
request once, even where the caller refers to it by id.

Transient faults (connection errors, 429, 502, 503, 504) are retried with exponential backoff and
jitter for up to a minute (``RetryPolicy``), honouring ``Retry-After``: long enough to ride out a
restart of the API or of Redis. Retrying a verification is safe: each call sends an
``Idempotency-Key`` that its retries repeat, and the service answers a repeated key with the jobs
it already made (the same job ids; nothing runs twice). A job the service no longer knows comes
back as ``JobState.LOST`` and is submitted once more. Anything else is the caller's business and
raises ``VerifierHTTPError`` with the service's own message.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Self, TypeAlias, TypeVar

import httpx
from pydantic import BaseModel

from vrpcoder_client.schemas import (
    BatchResponse,
    JobState,
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
IDEMPOTENCY_HEADER = "Idempotency-Key"
"""Header naming one logical verify call; its retries send the same value (see the module docstring)."""
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
    """How long a transient fault is retried before it becomes ``VerifierUnavailable``.

    The default keeps trying for a minute: a rolling restart of the API or a restart of Redis takes
    a few seconds, and a trainer must not lose a group's rewards to one. ``attempts`` caps the
    number of tries as well (tests and callers that must fail fast set it).
    """

    attempts: int | None = None
    """At most this many attempts; None: as many as ``give_up_after`` allows."""
    backoff: float = 0.25
    """First delay in seconds; doubled per attempt, drawn from its upper half (jitter)."""
    max_backoff: float = 5.0
    give_up_after: float = 60.0
    """No new attempt starts later than this many seconds after the first."""

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to sleep before attempt ``attempt + 1``; at least the service's ``Retry-After``
        (capped by ``max_backoff``)."""
        ceiling = min(self.max_backoff, self.backoff * 2**attempt)
        wait = random.uniform(ceiling / 2, ceiling)
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_backoff))
        return wait

    def another(self, attempt: int, started: float, delay: float) -> bool:
        """Whether attempt ``attempt + 1`` may start after sleeping ``delay`` (``started``: monotonic
        time of the first attempt)."""
        if self.attempts is not None and attempt + 1 >= self.attempts:
            return False
        return time.monotonic() - started + delay <= self.give_up_after


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


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


def _idempotency() -> dict[str, str]:
    return {IDEMPOTENCY_HEADER: uuid.uuid4().hex}


def _lost(result: VerifyResult, exc: VerifierHTTPError) -> VerifyResult:
    """A job the service answers 404 for: it lost it (its Redis lost the data), or never had it."""
    detail = f"the service no longer knows job {result.job_id} ({exc.detail})"
    return result.model_copy(update={"state": JobState.LOST, "failure": detail, "verdict": None})


def _lost_indices(results: Sequence[VerifyResult]) -> list[int]:
    return [i for i, r in enumerate(results) if r.state is JobState.LOST]


class _Attempt:
    """The state of one request's retries: what failed last, and whether to try again."""

    def __init__(self, policy: RetryPolicy, method: str, path: str) -> None:
        self.policy = policy
        self.what = f"{method} {path}"
        self.started = time.monotonic()
        self.number = 0
        self.failure = f"{self.what}: no attempts configured"

    def failed(self, failure: str, retry_after: float | None = None) -> float | None:
        """Record a transient failure; the delay before the next attempt, or None to give up."""
        self.failure = f"{self.what}: {failure}"
        delay = self.policy.delay(self.number, retry_after)
        if not self.policy.another(self.number, self.started, delay):
            return None
        self.number += 1
        return delay

    def outcome(self, response: httpx.Response) -> httpx.Response | float | None:
        """The response if final (raising for a non-retryable error), else as ``failed``."""
        if response.status_code not in _RETRY_STATUSES:
            _check(response)
            return response
        return self.failed(f"HTTP {response.status_code}: {_detail(response)}", _retry_after(response))


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
        self._samples: dict[str, BaseModel | Mapping[str, Any]] = {}
        """Every sample this client registered, by the id the service gave it: what it sends again
        when the service answers that an id is not registered (its Redis lost it)."""

    @classmethod
    def _env(cls) -> tuple[str, str | None]:
        url = os.environ.get(URL_ENV)
        if not url:
            raise VerifierError(f"set {URL_ENV} (and {TOKEN_ENV}) to reach the verifier service")
        return url, os.environ.get(TOKEN_ENV)

    def _remember(self, sample: BaseModel | Mapping[str, Any], sample_id: str) -> str:
        self._registered[_local_key(sample)] = sample_id
        self._samples[sample_id] = sample
        return sample_id

    def _known(self, ref: SampleRef) -> str | None:
        """The id of ``ref`` if this client registered it, without asking the service."""
        return ref if isinstance(ref, str) else self._registered.get(_local_key(ref))

    def _reregistrable(self, refs: Sequence[SampleRef]) -> bool:
        """Whether an 'unknown sample' answer can be mended: some sample was registered by us (a
        model or JSON object, or an id whose sample we kept)."""
        return any(not isinstance(r, str) or r in self._samples for r in refs)

    def _sample_of(self, ref: SampleRef) -> BaseModel | Mapping[str, Any] | None:
        return self._samples.get(ref) if isinstance(ref, str) else ref


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

    def _request(self, method: str, path: str, json: Any = None, headers: Mapping[str, str] | None = None) -> httpx.Response:
        attempt = _Attempt(self.retry, method, path)
        body = _json_body(json)
        sent = {**body.pop("headers", {}), **(headers or {})}
        while True:
            try:
                outcome: httpx.Response | float | None = attempt.outcome(
                    self._http.request(method, path, headers=sent, **body)
                )
            except httpx.TransportError as exc:
                outcome = attempt.failed(str(exc) or type(exc).__name__)
            if isinstance(outcome, httpx.Response):
                return outcome
            if outcome is None:
                raise VerifierUnavailable(attempt.failure)
            time.sleep(outcome)

    def _model(
        self, model: type[ModelT], method: str, path: str, json: Any = None, headers: Mapping[str, str] | None = None
    ) -> ModelT:
        return model.model_validate_json(self._request(method, path, json, headers).content)

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
        """Register ``sample`` (POST /v1/samples) and return its id; the client keeps the sample."""
        registered = self._model(SampleRegistered, "POST", "/v1/samples", _sample_payload(sample))
        return self._remember(sample, registered.sample_id)

    def _ids(self, refs: Sequence[SampleRef], *, force: bool = False) -> list[str]:
        """Service ids of ``refs``, registering what is new; ``force`` registers again every sample
        this client holds (the service said it lost one)."""
        ids: list[str] = []
        again: dict[str, str] = {}
        for ref in refs:
            known = self._known(ref)
            sample = self._sample_of(ref)
            if known is not None and (not force or sample is None or known in again):
                ids.append(again.get(known, known))
                continue
            assert sample is not None
            fresh = self.register_sample(sample)
            again[known or fresh] = fresh
            ids.append(fresh)
        return ids

    def job(self, job_id: str) -> VerifyResult:
        return self._model(VerifyResult, "GET", f"/v1/jobs/{job_id}")

    def _poll(self, result: VerifyResult) -> VerifyResult:
        if result.done or result.job_id is None:
            return result
        try:
            return self.job(result.job_id)
        except VerifierHTTPError as exc:
            if exc.status != 404:
                raise
            return _lost(result, exc)

    def wait(self, results: Sequence[VerifyResult], timeout: float | None = None) -> list[VerifyResult]:
        """Poll pending jobs until every result is done or ``timeout`` (default: the poll policy's)
        runs out; a job the service no longer knows comes back as ``JobState.LOST``."""
        current = list(results)
        deadline = time.monotonic() + (self.poll.timeout if timeout is None else timeout)
        interval = self.poll.first
        while any(not r.done for r in current) and time.monotonic() < deadline:
            time.sleep(interval)
            interval = min(self.poll.max_interval, interval * 2)
            current = [self._poll(r) for r in current]
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
        """One candidate through POST /v1/verify; with ``until_done`` a 202 is polled to the end
        (and a job the service lost is submitted once more)."""
        result = self._verify_once(candidate, sample, options, wait, until_done)
        if until_done and result.state is JobState.LOST:
            result = self._verify_once(candidate, sample, options, wait, until_done)
        return result

    def _verify_once(
        self, candidate: str, sample: SampleRef, options: VerifyOptions | None, wait: float | None, until_done: bool
    ) -> VerifyResult:
        key = _idempotency()
        try:
            result = self._post_one(candidate, self._ids([sample])[0], options, wait, key)
        except VerifierHTTPError as exc:
            if not _unknown_sample(exc) or not self._reregistrable([sample]):
                raise
            result = self._post_one(candidate, self._ids([sample], force=True)[0], options, wait, key)
        return self.wait([result])[0] if until_done else result

    def _post_one(
        self, candidate: str, sample_id: str, options: VerifyOptions | None, wait: float | None, key: Mapping[str, str]
    ) -> VerifyResult:
        return self._model(VerifyResult, "POST", "/v1/verify", _single_payload(candidate, sample_id, options, wait), key)

    def verify_batch(
        self,
        candidates: Sequence[str],
        samples: SampleRef | Sequence[SampleRef],
        *,
        options: VerifyOptions | None = None,
        wait: float | None = None,
        until_done: bool = True,
    ) -> list[VerifyResult]:
        """Verdicts in candidate order; with ``until_done`` pending jobs are polled to the end (and
        jobs the service lost are submitted once more)."""
        if not candidates:
            return []
        refs = _per_candidate(samples, len(candidates))
        results = self._verify_batch_once(candidates, refs, options, wait, until_done)
        lost = _lost_indices(results) if until_done else []
        if lost:
            again = self._verify_batch_once([candidates[i] for i in lost], [refs[i] for i in lost], options, wait, True)
            for index, result in zip(lost, again, strict=True):
                results[index] = result
        return results

    def _verify_batch_once(
        self, candidates: Sequence[str], refs: Sequence[SampleRef], options: VerifyOptions | None,
        wait: float | None, until_done: bool,
    ) -> list[VerifyResult]:
        key = _idempotency()
        try:
            batch = self._post_batch(candidates, self._ids(refs), options, wait, key)
        except VerifierHTTPError as exc:
            if not _unknown_sample(exc) or not self._reregistrable(refs):
                raise
            batch = self._post_batch(candidates, self._ids(refs, force=True), options, wait, key)
        results = list(batch.results)
        return self.wait(results) if until_done else results

    def _post_batch(
        self, candidates: Sequence[str], ids: Sequence[str], options: VerifyOptions | None, wait: float | None,
        key: Mapping[str, str],
    ) -> BatchResponse:
        return self._model(BatchResponse, "POST", "/v1/verify/batch", _batch_payload(candidates, ids, options, wait), key)


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

    async def _request(
        self, method: str, path: str, json: Any = None, headers: Mapping[str, str] | None = None
    ) -> httpx.Response:
        attempt = _Attempt(self.retry, method, path)
        body = _json_body(json)
        sent = {**body.pop("headers", {}), **(headers or {})}
        while True:
            try:
                outcome: httpx.Response | float | None = attempt.outcome(
                    await self._http.request(method, path, headers=sent, **body)
                )
            except httpx.TransportError as exc:
                outcome = attempt.failed(str(exc) or type(exc).__name__)
            if isinstance(outcome, httpx.Response):
                return outcome
            if outcome is None:
                raise VerifierUnavailable(attempt.failure)
            await asyncio.sleep(outcome)

    async def _model(
        self, model: type[ModelT], method: str, path: str, json: Any = None, headers: Mapping[str, str] | None = None
    ) -> ModelT:
        return model.model_validate_json((await self._request(method, path, json, headers)).content)

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
        """Register ``sample`` (POST /v1/samples) and return its id; the client keeps the sample."""
        registered = await self._model(SampleRegistered, "POST", "/v1/samples", _sample_payload(sample))
        return self._remember(sample, registered.sample_id)

    async def _ids(self, refs: Sequence[SampleRef], *, force: bool = False) -> list[str]:
        ids: list[str] = []
        again: dict[str, str] = {}
        for ref in refs:
            known = self._known(ref)
            sample = self._sample_of(ref)
            if known is not None and (not force or sample is None or known in again):
                ids.append(again.get(known, known))
                continue
            assert sample is not None
            fresh = await self.register_sample(sample)
            again[known or fresh] = fresh
            ids.append(fresh)
        return ids

    async def job(self, job_id: str) -> VerifyResult:
        return await self._model(VerifyResult, "GET", f"/v1/jobs/{job_id}")

    async def _poll(self, result: VerifyResult) -> VerifyResult:
        if result.done or result.job_id is None:
            return result
        try:
            return await self.job(result.job_id)
        except VerifierHTTPError as exc:
            if exc.status != 404:
                raise
            return _lost(result, exc)

    async def wait(self, results: Sequence[VerifyResult], timeout: float | None = None) -> list[VerifyResult]:
        current = list(results)
        deadline = time.monotonic() + (self.poll.timeout if timeout is None else timeout)
        interval = self.poll.first
        while any(not r.done for r in current) and time.monotonic() < deadline:
            await asyncio.sleep(interval)
            interval = min(self.poll.max_interval, interval * 2)
            current = list(await asyncio.gather(*(self._poll(r) for r in current)))
        return current

    async def verify(
        self,
        candidate: str,
        sample: SampleRef,
        *,
        options: VerifyOptions | None = None,
        wait: float | None = None,
        until_done: bool = True,
    ) -> VerifyResult:
        result = await self._verify_once(candidate, sample, options, wait, until_done)
        if until_done and result.state is JobState.LOST:
            result = await self._verify_once(candidate, sample, options, wait, until_done)
        return result

    async def _verify_once(
        self, candidate: str, sample: SampleRef, options: VerifyOptions | None, wait: float | None, until_done: bool
    ) -> VerifyResult:
        key = _idempotency()
        try:
            result = await self._post_one(candidate, (await self._ids([sample]))[0], options, wait, key)
        except VerifierHTTPError as exc:
            if not _unknown_sample(exc) or not self._reregistrable([sample]):
                raise
            result = await self._post_one(candidate, (await self._ids([sample], force=True))[0], options, wait, key)
        return (await self.wait([result]))[0] if until_done else result

    async def _post_one(
        self, candidate: str, sample_id: str, options: VerifyOptions | None, wait: float | None, key: Mapping[str, str]
    ) -> VerifyResult:
        payload = _single_payload(candidate, sample_id, options, wait)
        return await self._model(VerifyResult, "POST", "/v1/verify", payload, key)

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
        results = await self._verify_batch_once(candidates, refs, options, wait, until_done)
        lost = _lost_indices(results) if until_done else []
        if lost:
            again = await self._verify_batch_once(
                [candidates[i] for i in lost], [refs[i] for i in lost], options, wait, True
            )
            for index, result in zip(lost, again, strict=True):
                results[index] = result
        return results

    async def _verify_batch_once(
        self, candidates: Sequence[str], refs: Sequence[SampleRef], options: VerifyOptions | None,
        wait: float | None, until_done: bool,
    ) -> list[VerifyResult]:
        key = _idempotency()
        try:
            batch = await self._post_batch(candidates, await self._ids(refs), options, wait, key)
        except VerifierHTTPError as exc:
            if not _unknown_sample(exc) or not self._reregistrable(refs):
                raise
            batch = await self._post_batch(candidates, await self._ids(refs, force=True), options, wait, key)
        results = list(batch.results)
        return await self.wait(results) if until_done else results

    async def _post_batch(
        self, candidates: Sequence[str], ids: Sequence[str], options: VerifyOptions | None, wait: float | None,
        key: Mapping[str, str],
    ) -> BatchResponse:
        return await self._model(
            BatchResponse, "POST", "/v1/verify/batch", _batch_payload(candidates, ids, options, wait), key
        )

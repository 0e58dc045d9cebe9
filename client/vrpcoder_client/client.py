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
from collections.abc import Generator, Mapping, Sequence
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


@dataclass(frozen=True, slots=True)
class _Send:
    """Effect: send one HTTP request; the driver answers with the response (or throws the
    ``httpx.TransportError`` it raised into the plan)."""

    method: str
    path: str
    body: Mapping[str, Any]
    headers: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class _Sleep:
    seconds: float


@dataclass(frozen=True, slots=True)
class _All:
    """Effect: run several plans and answer with their results in order (the async driver runs
    them concurrently, the blocking one in turn)."""

    plans: tuple[Plan[Any], ...]


_Effect: TypeAlias = "_Send | _Sleep | _All"
T = TypeVar("T")
Plan: TypeAlias = Generator[_Effect, Any, T]
"""What one client operation does, as a generator of effects: the request/response logic (retries,
re-registration, polling, lost jobs) is written once here, and each client only runs the effects
with its own I/O (``VerifierClient._run``, ``AsyncVerifierClient._run``)."""


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


class _Protocol:
    """The client's state and every operation as a ``Plan``; shared by both clients."""

    def __init__(self, base_url: str, token: str | None, retry: RetryPolicy, poll: PollPolicy) -> None:
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
    def from_env(cls, **kwargs: Any) -> Self:
        """A client of the service that ``VRPCODER_VERIFIER_URL`` names, with the token of
        ``VRPCODER_VERIFIER_TOKEN``; ``kwargs`` go to the constructor."""
        url = os.environ.get(URL_ENV)
        if not url:
            raise VerifierError(f"set {URL_ENV} (and {TOKEN_ENV}) to reach the verifier service")
        return cls(url, os.environ.get(TOKEN_ENV), **kwargs)

    # ---- requests ---------------------------------------------------------------------------------

    def _request(self, method: str, path: str, json: Any = None, headers: Mapping[str, str] | None = None) -> Plan[httpx.Response]:
        """One request, transient faults retried under the retry policy."""
        attempt = _Attempt(self.retry, method, path)
        body = _json_body(json)
        sent = {**body.pop("headers", {}), **(headers or {})}
        while True:
            try:
                outcome: httpx.Response | float | None = attempt.outcome((yield _Send(method, path, body, sent)))
            except httpx.TransportError as exc:
                outcome = attempt.failed(str(exc) or type(exc).__name__)
            if isinstance(outcome, httpx.Response):
                return outcome
            if outcome is None:
                raise VerifierUnavailable(attempt.failure)
            yield _Sleep(outcome)

    def _model(
        self, model: type[ModelT], method: str, path: str, json: Any = None, headers: Mapping[str, str] | None = None
    ) -> Plan[ModelT]:
        response = yield from self._request(method, path, json, headers)
        return model.model_validate_json(response.content)

    def _healthy(self) -> Plan[bool]:
        try:
            response = yield _Send("GET", "/healthz", {}, {})
        except httpx.HTTPError:
            return False
        return bool(response.status_code == 200)

    def _ready(self) -> Plan[ReadyReport]:
        response = yield _Send("GET", "/readyz", {}, {})
        if response.status_code not in (200, 503):
            _check(response)
        return ReadyReport.model_validate_json(response.content)

    # ---- samples ----------------------------------------------------------------------------------

    def _register(self, sample: BaseModel | Mapping[str, Any]) -> Plan[str]:
        registered = yield from self._model(SampleRegistered, "POST", "/v1/samples", _sample_payload(sample))
        self._registered[_local_key(sample)] = registered.sample_id
        self._samples[registered.sample_id] = sample
        return registered.sample_id

    def _known(self, ref: SampleRef) -> str | None:
        """The id of ``ref`` if this client registered it, without asking the service."""
        return ref if isinstance(ref, str) else self._registered.get(_local_key(ref))

    def _reregistrable(self, refs: Sequence[SampleRef]) -> bool:
        """Whether an 'unknown sample' answer can be mended: some sample was registered by us (a
        model or JSON object, or an id whose sample we kept)."""
        return any(not isinstance(r, str) or r in self._samples for r in refs)

    def _sample_of(self, ref: SampleRef) -> BaseModel | Mapping[str, Any] | None:
        return self._samples.get(ref) if isinstance(ref, str) else ref

    def _ids(self, refs: Sequence[SampleRef], *, force: bool = False) -> Plan[list[str]]:
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
            fresh = yield from self._register(sample)
            again[known or fresh] = fresh
            ids.append(fresh)
        return ids

    # ---- jobs -------------------------------------------------------------------------------------

    def _job(self, job_id: str) -> Plan[VerifyResult]:
        return (yield from self._model(VerifyResult, "GET", f"/v1/jobs/{job_id}"))

    def _poll(self, result: VerifyResult) -> Plan[VerifyResult]:
        if result.done or result.job_id is None:
            return result
        try:
            return (yield from self._job(result.job_id))
        except VerifierHTTPError as exc:
            if exc.status != 404:
                raise
            return _lost(result, exc)

    def _wait(self, results: Sequence[VerifyResult], timeout: float | None = None) -> Plan[list[VerifyResult]]:
        current = list(results)
        deadline = time.monotonic() + (self.poll.timeout if timeout is None else timeout)
        interval = self.poll.first
        while any(not r.done for r in current) and time.monotonic() < deadline:
            yield _Sleep(interval)
            interval = min(self.poll.max_interval, interval * 2)
            current = list((yield _All(tuple(self._poll(r) for r in current))))
        return current

    # ---- verification -----------------------------------------------------------------------------

    def _verify(
        self, candidate: str, sample: SampleRef, options: VerifyOptions | None, wait: float | None, until_done: bool
    ) -> Plan[VerifyResult]:
        result = yield from self._verify_once(candidate, sample, options, wait, until_done)
        if until_done and result.state is JobState.LOST:
            result = yield from self._verify_once(candidate, sample, options, wait, until_done)
        return result

    def _verify_once(
        self, candidate: str, sample: SampleRef, options: VerifyOptions | None, wait: float | None, until_done: bool
    ) -> Plan[VerifyResult]:
        key = _idempotency()
        try:
            (sample_id,) = yield from self._ids([sample])
            result = yield from self._post_one(candidate, sample_id, options, wait, key)
        except VerifierHTTPError as exc:
            if not _unknown_sample(exc) or not self._reregistrable([sample]):
                raise
            (sample_id,) = yield from self._ids([sample], force=True)
            result = yield from self._post_one(candidate, sample_id, options, wait, key)
        return (yield from self._wait([result]))[0] if until_done else result

    def _post_one(
        self, candidate: str, sample_id: str, options: VerifyOptions | None, wait: float | None, key: Mapping[str, str]
    ) -> Plan[VerifyResult]:
        payload = _single_payload(candidate, sample_id, options, wait)
        return (yield from self._model(VerifyResult, "POST", "/v1/verify", payload, key))

    def _verify_batch(
        self, candidates: Sequence[str], samples: SampleRef | Sequence[SampleRef], options: VerifyOptions | None,
        wait: float | None, until_done: bool,
    ) -> Plan[list[VerifyResult]]:
        if not candidates:
            return []
        refs = _per_candidate(samples, len(candidates))
        results = yield from self._verify_batch_once(candidates, refs, options, wait, until_done)
        lost = _lost_indices(results) if until_done else []
        if lost:
            again = yield from self._verify_batch_once(
                [candidates[i] for i in lost], [refs[i] for i in lost], options, wait, True
            )
            for index, result in zip(lost, again, strict=True):
                results[index] = result
        return results

    def _verify_batch_once(
        self, candidates: Sequence[str], refs: Sequence[SampleRef], options: VerifyOptions | None,
        wait: float | None, until_done: bool,
    ) -> Plan[list[VerifyResult]]:
        key = _idempotency()
        try:
            ids = yield from self._ids(refs)
            batch = yield from self._post_batch(candidates, ids, options, wait, key)
        except VerifierHTTPError as exc:
            if not _unknown_sample(exc) or not self._reregistrable(refs):
                raise
            ids = yield from self._ids(refs, force=True)
            batch = yield from self._post_batch(candidates, ids, options, wait, key)
        results = list(batch.results)
        return (yield from self._wait(results)) if until_done else results

    def _post_batch(
        self, candidates: Sequence[str], ids: Sequence[str], options: VerifyOptions | None, wait: float | None,
        key: Mapping[str, str],
    ) -> Plan[BatchResponse]:
        payload = _batch_payload(candidates, ids, options, wait)
        return (yield from self._model(BatchResponse, "POST", "/v1/verify/batch", payload, key))


class VerifierClient(_Protocol):
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

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def _run(self, plan: Plan[T]) -> T:
        """Carry a plan out with blocking I/O."""
        answer: Any = None
        failure: BaseException | None = None
        while True:
            try:
                effect = plan.throw(failure) if failure is not None else plan.send(answer)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            answer, failure = None, None
            if isinstance(effect, _Sleep):
                time.sleep(effect.seconds)
            elif isinstance(effect, _All):
                answer = [self._run(inner) for inner in effect.plans]
            else:
                try:
                    answer = self._http.request(effect.method, effect.path, headers=effect.headers, **effect.body)
                except httpx.TransportError as exc:
                    failure = exc

    def healthy(self) -> bool:
        return self._run(self._healthy())

    def ready(self) -> ReadyReport:
        return self._run(self._ready())

    def register_sample(self, sample: BaseModel | Mapping[str, Any]) -> str:
        """Register ``sample`` (POST /v1/samples) and return its id; the client keeps the sample."""
        return self._run(self._register(sample))

    def job(self, job_id: str) -> VerifyResult:
        return self._run(self._job(job_id))

    def wait(self, results: Sequence[VerifyResult], timeout: float | None = None) -> list[VerifyResult]:
        """Poll pending jobs until every result is done or ``timeout`` (default: the poll policy's)
        runs out; a job the service no longer knows comes back as ``JobState.LOST``."""
        return self._run(self._wait(results, timeout))

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
        return self._run(self._verify(candidate, sample, options, wait, until_done))

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
        return self._run(self._verify_batch(candidates, samples, options, wait, until_done))


class AsyncVerifierClient(_Protocol):
    """The same API for asyncio code (e.g. an async trainer loop); one ``httpx.AsyncClient`` per
    instance. Its polls of many jobs run concurrently."""

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

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def _run(self, plan: Plan[T]) -> T:
        """Carry a plan out with asyncio I/O."""
        answer: Any = None
        failure: BaseException | None = None
        while True:
            try:
                effect = plan.throw(failure) if failure is not None else plan.send(answer)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
            answer, failure = None, None
            if isinstance(effect, _Sleep):
                await asyncio.sleep(effect.seconds)
            elif isinstance(effect, _All):
                answer = list(await asyncio.gather(*(self._run(inner) for inner in effect.plans)))
            else:
                try:
                    answer = await self._http.request(effect.method, effect.path, headers=effect.headers, **effect.body)
                except httpx.TransportError as exc:
                    failure = exc

    async def healthy(self) -> bool:
        return await self._run(self._healthy())

    async def ready(self) -> ReadyReport:
        return await self._run(self._ready())

    async def register_sample(self, sample: BaseModel | Mapping[str, Any]) -> str:
        """Register ``sample`` (POST /v1/samples) and return its id; the client keeps the sample."""
        return await self._run(self._register(sample))

    async def job(self, job_id: str) -> VerifyResult:
        return await self._run(self._job(job_id))

    async def wait(self, results: Sequence[VerifyResult], timeout: float | None = None) -> list[VerifyResult]:
        """As ``VerifierClient.wait``; the pending jobs are polled concurrently."""
        return await self._run(self._wait(results, timeout))

    async def verify(
        self,
        candidate: str,
        sample: SampleRef,
        *,
        options: VerifyOptions | None = None,
        wait: float | None = None,
        until_done: bool = True,
    ) -> VerifyResult:
        """As ``VerifierClient.verify``."""
        return await self._run(self._verify(candidate, sample, options, wait, until_done))

    async def verify_batch(
        self,
        candidates: Sequence[str],
        samples: SampleRef | Sequence[SampleRef],
        *,
        options: VerifyOptions | None = None,
        wait: float | None = None,
        until_done: bool = True,
    ) -> list[VerifyResult]:
        """As ``VerifierClient.verify_batch``."""
        return await self._run(self._verify_batch(candidates, samples, options, wait, until_done))

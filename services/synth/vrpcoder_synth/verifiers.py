"""Stage 4's judges: the verifier service over HTTP (the default in a deployment) or in-process.

Both answer a list of (script, sample) jobs with one ``Verdict`` (or a failure text) each, in
order. The service backend sends them as one batch (``POST /v1/verify/batch``) through the light
client, so many scripts are judged in parallel by the service's workers and the verifier's
result cache answers a re-run for free. The in-process backend calls ``vrpcoder.verification``
directly: no sandbox, no Redis; it is meant for trusted scripts (the offline coder's) and for
quick local runs and tests that do not want a stack.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig, verify
from vrpcoder_client.client import RetryPolicy, VerifierClient, VerifierError, VerifierHTTPError
from vrpcoder_client.schemas import JobState, VerifyOptions

Answer = Verdict | str
"""A verdict, or why none came back (an infrastructure failure: never a candidate's fault)."""


class VerifierRefused(Exception):
    """The service turned the request down (bad token, a time limit above its cap, ...): asking
    again would not help, so the run stops with the service's reason instead of waiting."""


class Backend(Protocol):
    name: str

    def verify_many(self, jobs: Sequence[tuple[str, Sample]]) -> list[Answer]: ...

    def close(self) -> None: ...


@dataclass
class InProcessBackend:
    """``vrpcoder.verification.verify`` in this process, one job after another."""

    time_limit: float = 60.0
    name: str = "inprocess"

    def verify_many(self, jobs: Sequence[tuple[str, Sample]]) -> list[Answer]:
        config = VerifyConfig(time_limit=self.time_limit)
        # A script's own prints (progress, routes) must not mix with the CLI's output.
        with contextlib.redirect_stdout(io.StringIO()):
            return [verify(code, sample, config) for code, sample in jobs]

    def close(self) -> None:
        return None


@dataclass
class ServiceBackend:
    """The verifier service's batch endpoint through ``vrpcoder_client``."""

    base_url: str
    token: str | None = None
    time_limit: float | None = None
    timeout: float = 600.0
    retry_seconds: float = 60.0
    """How long a transient fault is retried before the items stay pending for the next run."""
    name: str = "service"
    _client: VerifierClient | None = field(default=None, repr=False)

    @property
    def client(self) -> VerifierClient:
        if self._client is None:
            retry = RetryPolicy(give_up_after=self.retry_seconds)
            self._client = VerifierClient(self.base_url, self.token, timeout=self.timeout, retry=retry)
        return self._client

    def verify_many(self, jobs: Sequence[tuple[str, Sample]]) -> list[Answer]:
        if not jobs:
            return []
        options = VerifyOptions(time_limit=self.time_limit)
        try:
            results = self.client.verify_batch([code for code, _ in jobs], [s for _, s in jobs], options=options)
        except VerifierHTTPError as exc:
            if exc.status < 500 and exc.status not in (408, 429):
                raise VerifierRefused(f"the verifier refused the batch: HTTP {exc.status}: {exc.detail}") from None
            return [f"verifier unavailable: {exc}"] * len(jobs)
        except VerifierError as exc:
            return [f"verifier unavailable: {exc}"] * len(jobs)
        answers: list[Answer] = []
        for result in results:
            if result.state is JobState.FINISHED and result.verdict is not None:
                answers.append(result.verdict)
            else:
                answers.append(f"job {result.state.value}: {result.failure or 'no verdict'}")
        return answers

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

"""Wire models of the verifier API: what a caller sends and what it gets back.

The server validates a sample into the domain library's ``Sample`` (its own subclasses of these
requests, in ``vrpcoder_verifier.schemas``); on the wire, and in this package, a sample is a JSON
object, so a caller needs neither gurobipy nor the domain library to send one. A verdict travels as
``Verdict.model_dump(mode="json")``: the client gets back exactly the record the in-process
``verify`` returns.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from vrpcoder_client.numbers import FiniteFloat, NonNegativeFloat
from vrpcoder_client.verdicts import RewardWeights, Verdict

SAMPLE_ID_PATTERN = r"^[0-9a-f]{64}$"

JsonObject = dict[str, Any]
"""A sample as it travels: the JSON object of ``vrpcoder.samples.Sample``."""


def json_digest(sample_json: str) -> str:
    """The id a sample is registered under: sha256 of its canonical JSON (``Sample.model_dump_json()``).

    Content addressing means a caller holding the canonical text can compute the id itself,
    registering twice is harmless, and two different samples never share an id even when their
    human names collide.
    """
    return hashlib.sha256(sample_json.encode()).hexdigest()


class VerifyOptions(BaseModel):
    """What a caller may tune per request; everything else (threads, sandbox limits) is the service's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    time_limit: FiniteFloat | None = Field(
        default=None,
        gt=0.0,
        description=(
            "Gurobi time limit per solve, in seconds; null takes the service's default, a value above its cap "
            "is refused (422). It also bounds the whole job: wall = job_build_seconds + time_limit * (probes + 2) "
            "+ job_grace_seconds, at most the service's sandbox_wall_seconds (one candidate solve, one query per "
            "probe and one control query; defaults 10 s, 5 s and 600 s). A job past it ends as `timeout`."
        ),
    )
    """Gurobi time limit per solve in seconds; None takes the service default, larger values are refused.
    The service derives the job's wall limit from it (see the description)."""
    diff_tolerance: NonNegativeFloat = 1e-3
    weights: RewardWeights = RewardWeights()


class VerifyRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    candidate: str
    sample: JsonObject | None = None
    sample_id: str | None = Field(default=None, pattern=SAMPLE_ID_PATTERN)
    options: VerifyOptions = VerifyOptions()
    wait: NonNegativeFloat | None = None
    """Seconds to hold the request for a verdict before answering 202 with a job id."""

    @model_validator(mode="after")
    def _one_sample(self) -> VerifyRequest:
        if (self.sample is None) == (self.sample_id is None):
            raise ValueError("give exactly one of 'sample' (inline) or 'sample_id' (registered)")
        return self


class BatchItem(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    candidate: str
    sample_id: str | None = Field(default=None, pattern=SAMPLE_ID_PATTERN)
    sample_index: int | None = Field(default=None, ge=0)
    """Index into the request's inline ``samples``."""

    @model_validator(mode="after")
    def _one_sample(self) -> BatchItem:
        if (self.sample_id is None) == (self.sample_index is None):
            raise ValueError("each item needs exactly one of 'sample_id' or 'sample_index'")
        return self


class BatchRequest(BaseModel):
    """A GRPO group: many candidates against one or more samples, answered in request order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    items: tuple[BatchItem, ...] = Field(min_length=1)
    samples: tuple[JsonObject, ...] = ()
    options: VerifyOptions = VerifyOptions()
    wait: NonNegativeFloat | None = None

    @model_validator(mode="after")
    def _indices_in_range(self) -> BatchRequest:
        for position, item in enumerate(self.items):
            if item.sample_index is not None and item.sample_index >= len(self.samples):
                raise ValueError(
                    f"item {position}: sample_index {item.sample_index} but only {len(self.samples)} inline samples"
                )
        return self


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    """The job ended without a verdict (its worker died and no retry was left, or it timed out)."""
    LOST = "lost"
    """The service has no trace of the job any more (a Redis that lost its data): nothing will
    come of waiting; submit the candidate again."""


class VerifyResult(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    job_id: str | None
    """None for an answer straight from the result cache."""
    state: JobState
    cached: bool = False
    verdict: Verdict | None = None
    failure: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def reward(self) -> float | None:
        """The verdict's reward; None while pending, after a failure, or for an infrastructure fault."""
        return None if self.verdict is None else self.verdict.reward

    @property
    def done(self) -> bool:
        return self.state in (JobState.FINISHED, JobState.FAILED, JobState.LOST)


def cached_result_json(verdict_json: bytes, reward: float | None) -> bytes:
    """The JSON of ``VerifyResult(job_id=None, state=FINISHED, cached=True, verdict=...)``, spliced.

    A cache hit is the service's hot path: the stored verdict JSON goes out as it is, instead of being
    parsed into a ``Verdict`` and serialized again. Same fields, same order as the model
    (tests/verifier/test_units.py holds the two to each other).
    """
    reward_json = b"null" if reward is None else json.dumps(reward).encode()
    return b"".join(
        (b'{"job_id":null,"state":"finished","cached":true,"verdict":', verdict_json,
         b',"failure":null,"reward":', reward_json, b"}")
    )


def batch_response_json(results: Sequence[bytes], complete: bool) -> bytes:
    """The JSON of a ``BatchResponse`` from its results' JSON, so spliced cache hits stay unparsed."""
    flag = b"true" if complete else b"false"
    return b"".join((b'{"results":[', b",".join(results), b'],"complete":', flag, b"}"))


class BatchResponse(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    results: tuple[VerifyResult, ...]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def complete(self) -> bool:
        return all(r.done for r in self.results)


class SampleRegistered(BaseModel):
    model_config = ConfigDict(frozen=True)

    sample_id: str
    name: str
    """The sample's own id (``Sample.id``), for humans."""


class SandboxReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    available: bool
    mechanism: str
    detail: str


class WorkerReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    version: str
    sandbox: SandboxReport
    licence: str


class ReadyReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    ready: bool
    version: str
    redis: bool
    sandbox: SandboxReport
    licence: str
    """``full``, ``size-limited``, ``unavailable: ...`` or ``checking`` (start-up probe still running)."""
    queue_depth: int | None
    """Items waiting for a worker (taken items not included); None when Redis did not answer."""
    workers: tuple[WorkerReport, ...]
    draining: bool = False
    """The process is shutting down (SIGTERM): it takes no new request, so it is not ready."""

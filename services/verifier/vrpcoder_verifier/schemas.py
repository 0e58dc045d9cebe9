"""The server's view of the wire models: the same records as ``vrpcoder_client.schemas``, with
inline samples validated into the domain library's ``Sample``.

Callers import the light package; the server needs the typed sample to verify it and to compute its
content id from the canonical JSON (``Sample.model_dump_json()``), so a sample sent inline and one
registered first get the same id.
"""

from __future__ import annotations

from vrpcoder.samples import Sample
from vrpcoder_client.schemas import (
    SAMPLE_ID_PATTERN,
    BatchItem,
    BatchResponse,
    JobState,
    ReadyReport,
    SampleRegistered,
    SandboxReport,
    VerifyOptions,
    VerifyResult,
    WorkerReport,
    batch_response_json,
    cached_result_json,
    json_digest,
)
from vrpcoder_client.schemas import BatchRequest as WireBatchRequest
from vrpcoder_client.schemas import VerifyRequest as WireVerifyRequest

__all__ = [
    "SAMPLE_ID_PATTERN",
    "BatchItem",
    "BatchRequest",
    "BatchResponse",
    "JobState",
    "ReadyReport",
    "SampleRegistered",
    "SandboxReport",
    "VerifyOptions",
    "VerifyRequest",
    "VerifyResult",
    "WorkerReport",
    "batch_response_json",
    "cached_result_json",
    "json_digest",
    "sample_digest",
]


def sample_digest(sample: Sample) -> str:
    """The id a sample is registered under (see ``vrpcoder_client.schemas.json_digest``)."""
    return json_digest(sample.model_dump_json())


class VerifyRequest(WireVerifyRequest):
    sample: Sample | None = None  # type: ignore[assignment]


class BatchRequest(WireBatchRequest):
    samples: tuple[Sample, ...] = ()  # type: ignore[assignment]

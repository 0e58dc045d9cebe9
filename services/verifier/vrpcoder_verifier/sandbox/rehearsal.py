"""What a spare child does while it waits for its job: a first pass over the paths every job takes.

A child is forked from the warm supervisor, so the first write to any page of the inherited heap
(a reference count, a free slot of an allocator pool) makes the kernel copy that page. Every job
pays for these copies; on the protocol alone (decoding its header and sample, encoding its
reports) they are about a millisecond of the job's latency, which a spare that does the same on
canned data while it is idle takes off the job's clock. The data is a tiny sample built when the
sandbox starts, never another job's, so a rehearsal leaves nothing the candidate could use.

Only the protocol is rehearsed: it costs about what it saves. Rehearsing more of a job (compiling,
building a gurobipy model, a whole verification) was measured to cost more CPU than it saves --
compiling is real work rather than page faults, and when jobs arrive back to back a spare still
rehearsing delays its job and takes a core from the job before it.
"""

from __future__ import annotations

from dataclasses import dataclass

from vrpcoder.samples import build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.verification import Verdict, VerifyConfig, verify

from vrpcoder_verifier.sandbox.protocol import (
    Built,
    Disclosure,
    Finished,
    JobHeader,
    WorkerLimits,
    disclosed_sample,
    encode_frame,
)

_NONCE = "0" * 32
_CUSTOMERS = 3


@dataclass(frozen=True, slots=True)
class Rehearsal:
    """Canned messages shaped like a real job's."""

    header_json: bytes
    disclosure_json: bytes
    verdict: Verdict


def prepare_rehearsal() -> Rehearsal:
    """Build the canned job (in the supervisor, once per sandbox: a few tens of milliseconds)."""
    config = VerifyConfig(time_limit=10.0)
    sample = build_samples(sample_instance("CVRP", 1, 0, customers=_CUSTOMERS), time_limit=10.0).samples[0]
    header = JobHeader(
        job_id=_NONCE,
        code=sample.gold_code,
        config=config,
        limits=WorkerLimits(cpu_seconds=1, memory_mb=1, max_processes=1, max_file_mb=1),
        wall_seconds=1.0,
        max_output_bytes=1,
        output_flood_bytes=1,
    )
    disclosure = Disclosure(nonce=_NONCE, sample=disclosed_sample(sample))
    return Rehearsal(
        header_json=header.model_dump_json().encode(),
        disclosure_json=disclosure.model_dump_json().encode(),
        verdict=verify(sample.gold_code, sample, config),
    )


def rehearse(rehearsal: Rehearsal) -> None:
    """Decode and encode once on the canned job; the results are thrown away."""
    JobHeader.model_validate_json(rehearsal.header_json)
    Disclosure.model_validate_json(rehearsal.disclosure_json)
    encode_frame(Built().model_dump_json().encode())
    encode_frame(Finished(nonce=_NONCE, verdict=rehearsal.verdict).model_dump_json().encode())

"""What a spare child does while it waits for its job: a first pass over the paths every job takes.

A child is forked from the warm supervisor, so the first write to any page of the inherited heap
(a reference count, a free slot of an allocator pool) makes the kernel copy that page. Every job
pays for these copies when it decodes its header and sample, compiles its script, builds a
gurobipy model and encodes its reports -- about a millisecond of them on the protocol alone. A
spare that does the same on canned data while it is idle pays them off the job's clock. (Not
compiling: that is real work, not page faults, and would cost every job's CPU for nothing.) The
data is a tiny sample built when the sandbox starts, never another job's, so a rehearsal leaves
nothing in the child that the candidate could use.

The rehearsal is deliberately small (well under the cost of a job): when jobs arrive back to
back, a spare still rehearsing delays its job by what is left of it, and the pages it touched
would have been copied by the job anyway.
"""

from __future__ import annotations

from dataclasses import dataclass

import gurobipy as gp
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
    """Decode, model and encode once on the canned job; the results are thrown away."""
    JobHeader.model_validate_json(rehearsal.header_json)
    Disclosure.model_validate_json(rehearsal.disclosure_json)
    model = gp.Model()
    try:
        model.Params.OutputFlag = 0
        model.Params.Threads = 1
        x = model.addVars(2, ub=1.0, name="x")
        model.addConstr(x[0] + x[1] <= 1)
        model.setObjective(x[0] + 2 * x[1], gp.GRB.MAXIMIZE)
        model.optimize()
    finally:
        model.dispose()
    encode_frame(Built().model_dump_json().encode())
    encode_frame(Finished(nonce=_NONCE, verdict=rehearsal.verdict).model_dump_json().encode())

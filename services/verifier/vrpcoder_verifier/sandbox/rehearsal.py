"""A canned job, run the way a child runs a real one, for the page probe (see ``prefault``).

Which pages of the inherited heap a job writes hardly depends on the job: they belong to the
interpreter, the verifier, gurobipy and the protocol. So a probe forked like a spare runs this
canned job once when the sandbox starts, and the pages it wrote (and the library pages it read)
are what every spare copies (and maps) ahead.
The data is a tiny sample built here, never another job's, and the candidate is its gold script.
"""

from __future__ import annotations

from dataclasses import dataclass

from vrpcoder.candidate import build_candidate
from vrpcoder.samples import build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.verification import Verdict, VerifyConfig, verify, verify_built

from vrpcoder_verifier.sandbox.protocol import (
    Built,
    Disclosure,
    Finished,
    JobHeader,
    Started,
    WorkerLimits,
    disclosed_sample,
    encode_frame,
)
from vrpcoder_verifier.sandbox.tripwire import Guard

_NONCE = "0" * 32
_CUSTOMERS = 3


@dataclass(frozen=True, slots=True)
class Rehearsal:
    """Canned messages shaped like a real job's."""

    header_json: bytes
    disclosure_json: bytes


def prepare_rehearsal() -> Rehearsal:
    """Build the canned job (in the supervisor, once per sandbox: a few tens of milliseconds).

    The job is verified here as well: a canned job that failed would teach the probe the pages of
    a failure path, and running it once in the supervisor leaves every lazily built cache warm for
    the children it forks.
    """
    config = VerifyConfig(time_limit=10.0)
    sample = build_samples(sample_instance("CVRP", 1, 0, customers=_CUSTOMERS), time_limit=10.0).samples[0]
    if not verify(sample.gold_code, sample, config).passed:
        raise RuntimeError("the canned job's gold script does not pass its own probes")
    header = JobHeader(
        job_id=_NONCE,
        code=sample.gold_code,
        config=config,
        limits=WorkerLimits(cpu_seconds=1, memory_mb=1, max_processes=1, max_file_mb=1),
        wall_seconds=1.0,
        max_output_bytes=1,
        output_flood_bytes=1,
        token=_NONCE,
    )
    disclosure = Disclosure(nonce=_NONCE, sample=disclosed_sample(sample))
    return Rehearsal(
        header_json=header.model_dump_json().encode(),
        disclosure_json=disclosure.model_dump_json().encode(),
    )


def rehearse(rehearsal: Rehearsal, guard: Guard) -> Verdict:
    """The child's work on the canned job, in its order: decode the header, build, check, report,
    decode the sample, verify, check, report (the reports are encoded and thrown away)."""
    header = JobHeader.model_validate_json(rehearsal.header_json)
    encode_frame(Started().model_dump_json().encode())
    built = build_candidate(header.code, time_limit=header.config.time_limit, threads=header.config.threads)
    guard.problems(built.model)
    stamps = guard.stamps()
    encode_frame(Built(token=header.token).model_dump_json().encode())
    disclosure = Disclosure.model_validate_json(rehearsal.disclosure_json)
    verdict = verify_built(built, disclosure.sample, header.config)
    guard.problems(built.model)
    guard.written_since(stamps)
    encode_frame(Finished(nonce=disclosure.nonce, verdict=verdict, token=header.token).model_dump_json().encode())
    return verdict

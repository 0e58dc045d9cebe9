"""The messages between the executor, the supervisor inside the sandbox and the candidate's process.

Three pipes, three trust levels. Executor <-> supervisor carries jobs and finished verdicts; the
candidate's process never holds an end of it. Supervisor <-> candidate process carries the build
report, then (only once the build is over) the sample and a fresh nonce, then the verdict; the
supervisor treats everything on it as hostile input. Anything the candidate prints travels on a
third pipe and is never parsed.

Frames are a 4-byte big-endian length and a JSON body; a length over the reader's cap is a
protocol error, so a hostile writer cannot make a reader allocate gigabytes.
"""

from __future__ import annotations

import os
import select
import struct
import time
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from vrpcoder.errors import VerificationError
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig

from vrpcoder_verifier.sandbox.prefault import PageSpans

_HEADER = struct.Struct(">I")
MAX_JOB_FRAME = 256 * 1024 * 1024
"""Executor -> supervisor (the sample): our own data, capped only against our own bugs."""
MAX_REPORT_FRAME = 16 * 1024 * 1024
"""Candidate process -> supervisor: a verdict with a few hundred probes fits many times over."""


class FrameError(ValueError):
    """A frame that is truncated, oversized or not what the protocol expects at this point."""


class WorkerLimits(BaseModel):
    model_config = ConfigDict(frozen=True)

    cpu_seconds: int
    memory_mb: int
    max_processes: int
    max_file_mb: int
    max_open_files: int = 64


class RunnerConfig(BaseModel):
    """How the executor starts a supervisor (passed as its single command-line argument)."""

    model_config = ConfigDict(frozen=True)

    job_fd: int
    result_fd: int
    scratch: str
    isolated: bool
    """True inside bubblewrap's namespaces (own pid namespace: the supervisor may kill every
    process it can see); False for the rlimits-only fallback."""
    drop_uid: int | None = None
    """Host root only: the unprivileged uid the supervisor switches to before anything else."""
    native_roots: tuple[str, ...]
    """Directories native extension modules may be loaded from (the interpreter's and venv's)."""
    prefault: bool = True
    """Learn the pages a job writes at start-up, and have every spare copy them ahead of its job."""


class JobHeader(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["job"] = "job"
    job_id: str
    code: str
    config: VerifyConfig
    limits: WorkerLimits
    wall_seconds: float
    max_output_bytes: int
    output_flood_bytes: int
    token: str = ""
    """A secret of this job, carried by every report that decides its verdict: a report written
    blind (to every descriptor, before the build is over) cannot carry it."""
    prefault_next: bool = False
    """Whether the spare forked after this job copies its pages ahead (a head start; see ``load``)."""


class Probed(BaseModel):
    """Start-up, before ``Ready``: the page probe has run the canned job and waits to be read
    (``prefault``); the executor answers with a ``PageReport`` on the job channel."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["probed"] = "probed"
    pid: int
    """The probe's pid inside the sandbox's pid namespace."""


class PageReport(BaseModel):
    """The executor's answer to ``Probed``: the pages the probe wrote (empty if they could not be read)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["pages"] = "pages"
    pages: PageSpans = PageSpans()


class Ready(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["ready"] = "ready"
    pid: int
    uid: int
    prefault_pages: int = 0
    """Pages each spare copies ahead of its job (0: none were learned)."""


class JobDone(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["done"] = "done"
    job_id: str
    verdict: Verdict
    output: str
    output_bytes: int
    violations: tuple[str, ...]
    worker_exit: str
    cpu_seconds: float | None
    """The child's CPU time where it was reaped before the verdict went out (abnormal ends)."""


SupervisorMessage = Annotated[Probed | Ready | JobDone, Field(discriminator="kind")]
SUPERVISOR_MESSAGE: TypeAdapter[Probed | Ready | JobDone] = TypeAdapter(SupervisorMessage)


class Violation(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["violation"] = "violation"
    detail: str


class BuildFailed(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["build_failed"] = "build_failed"
    token: str = ""
    error: VerificationError
    seconds: float


class Started(BaseModel):
    """The candidate's code is about to run. Sent once, before the script is compiled: an abnormal
    end before it is ours; from then on the process is the candidate's and so is its end."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["started"] = "started"


class Built(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["built"] = "built"
    token: str = ""


class Finished(BaseModel):
    model_config = ConfigDict(frozen=True)

    kind: Literal["finished"] = "finished"
    token: str = ""
    nonce: str
    verdict: Verdict


class Crashed(BaseModel):
    """Our own code failed in the candidate's process while verifying (sent only if the integrity
    check held and no frame of the candidate's code was on the way)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["crashed"] = "crashed"
    token: str = ""
    detail: str


WorkerMessage = Annotated[
    Violation | Started | BuildFailed | Built | Finished | Crashed, Field(discriminator="kind")
]
WORKER_MESSAGE: TypeAdapter[Violation | Started | BuildFailed | Built | Finished | Crashed] = TypeAdapter(WorkerMessage)


class Disclosure(BaseModel):
    """The sample, sent to the candidate's process only after its build has been reported."""

    model_config = ConfigDict(frozen=True)

    nonce: str
    sample: Sample


def disclosed_sample(sample: Sample) -> Sample:
    """The sample without what a candidate could copy: the gold script and the statement.

    ``verify_built`` needs neither, and a candidate that finds the gold script in memory could
    simply run it.
    """
    return sample.model_copy(update={"gold_code": "", "statement": None})


def encode_frame(payload: bytes) -> bytes:
    return _HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Incremental decoder for a stream read in arbitrary chunks (non-blocking pipes)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer.extend(data)
        frames: list[bytes] = []
        while len(self._buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self._buffer)
            if size > self._limit:
                raise FrameError(f"frame of {size} bytes exceeds the cap of {self._limit}")
            end = _HEADER.size + size
            if len(self._buffer) < end:
                break
            frames.append(bytes(self._buffer[_HEADER.size : end]))
            del self._buffer[:end]
        return frames

    @property
    def pending(self) -> int:
        return len(self._buffer)


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def write_frame(fd: int, payload: bytes) -> None:
    write_all(fd, encode_frame(payload))


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes | None:
    chunks: list[bytes] = []
    remaining = size
    while remaining:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError("no answer before the deadline")
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            if remaining == size and not chunks:
                return None
            raise FrameError("stream ended inside a frame")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, limit: int, deadline: float | None = None) -> bytes | None:
    """The next frame from a blocking fd; None at a clean end of stream; TimeoutError past ``deadline``."""
    header = _read_exactly(fd, _HEADER.size, deadline)
    if header is None:
        return None
    (size,) = _HEADER.unpack(header)
    if size > limit:
        raise FrameError(f"frame of {size} bytes exceeds the cap of {limit}")
    body = _read_exactly(fd, size, deadline) if size else b""
    if body is None:
        raise FrameError("stream ended inside a frame")
    return body

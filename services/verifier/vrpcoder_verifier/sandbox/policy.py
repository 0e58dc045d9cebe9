"""The limits of one sandboxed verification, as one typed record.

Every limit is enforced twice where it can be: by the kernel on the process that runs candidate
code (rlimits, namespaces), and by a supervisor that never runs candidate code (wall clock,
captured output). The record is frozen so that a policy handed to an executor cannot change under
a job that is already running.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

HeadStart = Literal["auto", "always", "never"]

OUTPUT_FLOOD_FACTOR = 64
"""Output beyond ``max_output_kb`` is discarded; output beyond this multiple of it ends the job."""

SCRATCH_FILE_FACTOR = 4
"""The private scratch filesystem holds this many files of the maximum file size."""


class SandboxPolicy(BaseModel):
    """Limits per job. ``allow_unsandboxed`` only permits a fallback when no sandbox can be had."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    wall_seconds: float = Field(default=120.0, gt=0.0)
    """Wall clock for one whole verification (candidate build, its solve and every probe)."""
    cpu_seconds: int = Field(default=120, ge=1)
    """RLIMIT_CPU of the candidate's process: SIGXCPU at this many seconds, SIGKILL one later."""
    memory_mb: int = Field(default=2048, ge=1)
    """RLIMIT_AS of the candidate's process. Address space, not resident memory: the warm
    interpreter with gurobipy and numpy already maps about 250 MB of it."""
    max_processes: int = Field(default=64, ge=1)
    """RLIMIT_NPROC: processes *and threads* of the sandbox's user, counted by the kernel per
    user (see the executor module for which user that is in each mode)."""
    max_file_mb: int = Field(default=16, ge=1)
    """RLIMIT_FSIZE: the largest file the candidate can write (writes past it fail with EFBIG)."""
    max_open_files: int = Field(default=64, ge=16)
    """RLIMIT_NOFILE. Besides descriptors, this bounds memory the address-space limit does not
    see: each descriptor can hold an in-memory file (``memfd_create``) of up to ``max_file_mb``."""
    max_output_kb: int = Field(default=256, ge=1)
    """Captured stdout+stderr; the rest is read and discarded (truncation, not an error), unless
    the candidate floods past ``OUTPUT_FLOOD_FACTOR`` times this, which ends the job with
    ``output_limit``."""
    allow_unsandboxed: bool = False
    warm_jobs: int = Field(default=1000, ge=1)
    """Jobs one warm sandbox serves before it is replaced by a fresh one (1: a fresh sandbox, and
    a fresh interpreter start-up, for every job). A sandbox is also replaced after any job that
    ended with a sandbox violation or an infrastructure fault (a timeout is a verdict like any
    other: every process of the job is killed and its files wiped all the same). Starting one
    costs about 0.3 s of CPU (interpreter, gurobipy, the page probe's canned job), which 100 jobs
    per sandbox turned into 3 ms of every job's; the supervisor itself grows by well under a
    kilobyte per job, and no candidate code ever runs in it."""
    prefault: bool = True
    """Learn at start-up which pages of the inherited heap a job writes (see ``prefault``), so a
    spare with a head start can copy them before its job arrives."""
    sandboxes: int = Field(default=2, ge=1)
    """Warm sandboxes an executor keeps. Each is a bubblewrap instance of its own (own pid, network
    and mount namespaces, own scratch): a job in one can neither see nor signal the other. The
    second costs one more warm interpreter (about 65 MB resident, half of it its own) and is what
    a head start uses."""
    head_start: HeadStart = "auto"
    """Whether the next job gets a head start: it goes to the other sandbox while the one that
    served the last job kills its leftovers, wipes its scratch and forks its next child, and that
    child copies its pages ahead (``prefault``). Both move work off the job's clock onto another
    core and cost CPU of their own, so "auto" takes a head start only while the host leaves a core
    idle (``load``)."""

    @property
    def max_output_bytes(self) -> int:
        return self.max_output_kb * 1024

    @property
    def output_flood_bytes(self) -> int:
        return self.max_output_bytes * OUTPUT_FLOOD_FACTOR

    @property
    def scratch_bytes(self) -> int:
        return self.max_file_mb * SCRATCH_FILE_FACTOR * 1024 * 1024

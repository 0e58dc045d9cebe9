"""What a worker runs candidates with: the sandbox, or in-process ``verify`` where that is allowed.

It lives apart from ``queue`` (the rq job function) and ``worker`` (the worker process) so that the
job function can build an executor on first use without importing the worker module, which imports
the queue module: the two no longer import each other.

Each run is given the job's own wall limit (derived from its request, see
``Settings.job_wall_seconds``) and says which sandbox ran it, for the worker's per-job log line.
``verify_candidate`` is the one policy for a candidate, whoever asks: a worker's drain and
``vrpcoder verify`` both call it, so a script gets the same verdict, limit and message from both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from vrpcoder.errors import ErrorKind, VerificationError
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig, failed_verdict, verify

from vrpcoder_verifier.health import sandbox_report
from vrpcoder_verifier.schemas import SandboxReport
from vrpcoder_verifier.settings import ExecutorKind, Settings

IN_PROCESS = "in-process"


class NoSandboxError(RuntimeError):
    """No sandbox is usable and running untrusted code unsandboxed was not allowed."""


@dataclass(frozen=True, slots=True)
class Ran:
    """One candidate's verdict and where it ran (``bubblewrap:<pid>`` of its sandbox, or ``in-process``)."""

    verdict: Verdict
    sandbox: str


class Executor(Protocol):
    """What ``build_executor`` hands out: ``SandboxExecutor`` or ``InProcessExecutor``."""

    def verify(self, candidate_code: str, sample: Sample, config: VerifyConfig) -> Verdict: ...


def text_fault(candidate: str) -> VerificationError | None:
    """A candidate that is not valid Unicode text (a lone surrogate from JSON's ``\\ud800``, or a
    file's invalid UTF-8 bytes read with ``surrogateescape``) cannot be source code: Python cannot
    compile it. It is the candidate's syntax error, judged before it reaches anything that would
    encode it (the sandbox's frames, the verdict's JSON)."""
    try:
        candidate.encode("utf-8")
    except UnicodeEncodeError as exc:
        return VerificationError(
            kind=ErrorKind.SYNTAX_ERROR,
            detail=f"the candidate is not valid Unicode text: {exc.reason} at character {exc.start}",
        )
    return None


def infrastructure_verdict(sample: Sample, detail: str) -> Verdict:
    """A verdict that blames us, not the candidate: no reward at all rather than a silent zero."""
    return failed_verdict(sample, VerificationError(kind=ErrorKind.INFRASTRUCTURE, detail=detail))


class InProcessExecutor:
    """Unsandboxed: the shared ``verify`` in the worker's own process (trusted code only).

    Nothing here can stop a loop in the candidate's code: the wall limit is left to rq's job
    timeout, which is one more reason this mode is for trusted code alone.
    """

    def verify(self, candidate_code: str, sample: Sample, config: VerifyConfig) -> Verdict:
        try:
            return verify(candidate_code, sample, config)
        except Exception as exc:  # noqa: BLE001 - verify classifies candidate faults; anything left is ours
            return infrastructure_verdict(sample, f"in-process verify raised {type(exc).__name__}: {exc}")


def run_candidate(executor: Executor, candidate_code: str, sample: Sample, config: VerifyConfig, wall_seconds: float) -> Ran:
    """Verify with the job's own wall limit where the executor can enforce one (the sandbox)."""
    from vrpcoder_verifier.sandbox import SandboxExecutor

    if isinstance(executor, SandboxExecutor):
        record = executor.execute(candidate_code, sample, config, wall_seconds=wall_seconds)
        where = f"{record.mechanism}:{record.sandbox}" if record.sandbox is not None else record.mechanism
        return Ran(record.verdict, where)
    return Ran(executor.verify(candidate_code, sample, config), IN_PROCESS)


def verify_candidate(executor: Executor, settings: Settings, candidate_code: str, sample: Sample, config: VerifyConfig) -> Ran:
    """One candidate's verdict under the service's policy: text that is not Unicode is the
    candidate's syntax error, and the job's wall limit follows its time limit and probes
    (``Settings.job_wall_seconds``). Never raises: an executor that does is our fault."""
    fault = text_fault(candidate_code)
    if fault is not None:
        return Ran(failed_verdict(sample, fault), "-")
    wall = settings.job_wall_seconds(config.time_limit, len(sample.probes))
    try:
        return run_candidate(executor, candidate_code, sample, config, wall)
    except Exception as exc:  # noqa: BLE001 - the executor must not raise; if it does, the fault is ours
        return Ran(infrastructure_verdict(sample, f"executor raised {type(exc).__name__}: {exc}"), "-")


def build_executor(settings: Settings) -> Executor:
    """The executor ``settings.executor`` asks for; never unsandboxed unless explicitly allowed."""
    if settings.executor is ExecutorKind.IN_PROCESS:
        return InProcessExecutor()
    report = sandbox_report()
    if not report.available:
        if settings.executor is ExecutorKind.AUTO and settings.allow_unsandboxed:
            return InProcessExecutor()
        raise NoSandboxError(f"no sandbox: {report.detail}; refusing untrusted code (use --no-sandbox for trusted code)")
    from vrpcoder_verifier.sandbox import SandboxExecutor, SandboxPolicy

    policy = SandboxPolicy(
        wall_seconds=settings.sandbox_wall_seconds,
        cpu_seconds=settings.sandbox_cpu_seconds,
        memory_mb=settings.sandbox_memory_mb,
        allow_unsandboxed=settings.allow_unsandboxed,
        sandboxes=settings.sandboxes,
        warm_jobs=settings.sandbox_warm_jobs,
        head_start=settings.head_start,
    )
    return SandboxExecutor(policy)


def executor_report(executor: Executor, report: SandboxReport) -> SandboxReport:
    if isinstance(executor, InProcessExecutor):
        return SandboxReport(available=False, mechanism=IN_PROCESS, detail=f"UNSANDBOXED (trusted code only); sandbox: {report.detail}")
    return report

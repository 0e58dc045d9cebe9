"""SandboxExecutor: verify one untrusted candidate against one sample, in a sandbox, and get a Verdict.

Processes, from the outside in::

    executor (this module, in the service's worker)
      └─ bwrap ── new pid/net/ipc/uts/cgroup (+user) namespaces, given root, no /proc
           └─ supervisor (runner.py) ── warm: gurobipy imported once; never runs candidate code
                └─ child (child.py), one per job ── rlimits, tripwires, the candidate's code

The threat model lives in docs/sandbox.md: what the kernel guarantees (host and other jobs), what is
only detected (a better verdict than earned), the known limits, the per-uid process limit and the
warm sandboxes with their head start. What a caller must know: one executor runs one job at a time,
so run one per concurrent job slot, and create it in the process (and thread pool) that uses it,
since its sandboxes are tied to a dedicated spawner thread and a forked copy starts its own.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal, Self

from pydantic import BaseModel, ConfigDict, ValidationError
from vrpcoder.errors import ErrorKind
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig

from vrpcoder_verifier.sandbox.bwrap import (
    SCRATCH,
    bwrap_command,
    bwrap_version,
    find_bwrap,
    host_layout,
    python_roots,
    sandbox_env,
)
from vrpcoder_verifier.sandbox.outcomes import failure_verdict
from vrpcoder_verifier.sandbox.load import SpareCoreWatch
from vrpcoder_verifier.sandbox.policy import SandboxPolicy
from vrpcoder_verifier.sandbox.prefault import PageSpans, host_pid, probed_spans
from vrpcoder_verifier.sandbox.protocol import (
    SUPERVISOR_MESSAGE,
    FrameError,
    JobDone,
    JobHeader,
    PageReport,
    Probed,
    Ready,
    RunnerConfig,
    WorkerLimits,
    disclosed_sample,
    encode_frame,
    read_frame,
)

Mechanism = Literal["bubblewrap", "none"]

START_SECONDS = 120.0
"""A cold sandbox (interpreter, gurobipy, pydantic) must say ready within this; generous because
two cores are shared with solves."""
ANSWER_GRACE_SECONDS = 5.0
"""The supervisor enforces the wall clock itself; the executor waits this much longer."""
MAX_ANSWER_BYTES = 64 * 1024 * 1024
UID_BASE = 1_500_000_000
"""Private uids for host-root mode, far above any real account."""
RETIRING_KINDS = frozenset({ErrorKind.SANDBOX_VIOLATION, ErrorKind.INFRASTRUCTURE})
_PROBE_SCRATCH_BYTES = 16 * 1024 * 1024
_TEARDOWN_SECONDS = 10.0
_CLOSE_SECONDS = 5.0
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
_STDERR_TAIL = 4000

_uids = itertools.count()
DEFAULT_POLICY = SandboxPolicy()


class SandboxUnavailable(RuntimeError):
    """No sandbox can be had here, and the policy does not allow running candidates without one."""


class SandboxStatus(BaseModel):
    model_config = ConfigDict(frozen=True)

    available: bool
    mechanism: Mechanism
    detail: str


class ExecutionRecord(BaseModel):
    """A verdict with what the sandbox saw of the job (for logs and debugging, never for scoring)."""

    model_config = ConfigDict(frozen=True)

    verdict: Verdict
    output: str
    """The first ``max_output_kb`` of the candidate's stdout+stderr, decoded leniently."""
    output_bytes: int
    """Everything it wrote, kept or not."""
    output_truncated: bool
    violations: tuple[str, ...]
    worker_exit: str
    cpu_seconds: float | None
    wall_seconds: float
    mechanism: Mechanism
    warm: bool
    """Whether the job ran in a sandbox that had already served another job."""
    sandbox: int | None = None
    """Which sandbox ran the job (its bubblewrap process id; None when none was started)."""


def uid_for_executor() -> int:
    """A private uid per executor (host-root mode): its RLIMIT_NPROC budget is its own."""
    return UID_BASE + (os.getpid() % 1_000_000) * 64 + next(_uids) % 64


def _running_as_root() -> bool:
    return os.geteuid() == 0


@functools.lru_cache(maxsize=1)
def sandbox_status() -> SandboxStatus:
    """Whether bubblewrap can build our sandbox on this host (probed once per process;
    ``sandbox_status.cache_clear()`` probes again)."""
    bwrap = find_bwrap()
    if bwrap is None:
        return SandboxStatus(
            available=False,
            mechanism="none",
            detail="bwrap not found on PATH (Debian/Ubuntu: apt-get install -y bubblewrap); "
            "untrusted candidates are refused unless running unsandboxed is allowed (rlimits only)",
        )
    root = _running_as_root()
    layout = host_layout(_PROBE_SCRATCH_BYTES, UID_BASE if root else None)
    command = bwrap_command(bwrap, layout, [sys.executable, "-I", "-S", "-c", "pass"])
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxStatus(available=False, mechanism="none", detail=f"bubblewrap probe failed: {exc}")
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return SandboxStatus(available=False, mechanism="none", detail=f"bubblewrap cannot build the sandbox: {why}")
    mode = "host root: private uid, no user namespace" if root else "unprivileged: user namespace"
    return SandboxStatus(
        available=True,
        mechanism="bubblewrap",
        detail=f"{bwrap_version(bwrap)} ({mode}); no network, no /proc, read-only system, private /tmp",
    )


class _StartFailed(RuntimeError):
    pass


class _SessionLost(RuntimeError):
    pass


class _OutOfTurn(RuntimeError):
    """The supervisor answered something other than this job: a bug of ours, not the candidate's."""


@dataclass
class _Session:
    """One running sandbox (bubblewrap + supervisor) and its two pipes."""

    process: subprocess.Popen[bytes]
    job_fd: int
    result_fd: int
    stderr: IO[bytes]
    scratch_dir: str | None
    namespace_init: int | None
    """A pidfd on the pid namespace's init (bubblewrap mode): it ends only once every process in
    the namespace has been killed and reaped."""
    jobs: int = 0
    prefault_pages: int = 0
    """What the supervisor's spares copy ahead of their jobs (see ``prefault``)."""
    closed: bool = field(default=False)

    def alive(self) -> bool:
        return not self.closed and self.process.poll() is None

    def stderr_tail(self) -> str:
        with contextlib.suppress(OSError, ValueError):
            self.stderr.seek(0, os.SEEK_END)
            size = self.stderr.tell()
            self.stderr.seek(max(0, size - _STDERR_TAIL))
            return self.stderr.read().decode("utf-8", errors="replace")
        return ""

    def cpu_seconds(self) -> float:
        """CPU time of every process of this sandbox so far (reaped children included), read
        from /proc: bubblewrap's init does not pass its children's times on to us."""
        total = 0.0
        pending = [self.process.pid]
        while pending:
            pid = pending.pop()
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            except OSError:
                continue
            total += sum(int(value) for value in fields[11:15]) / _CLOCK_TICKS
            pending.extend(int(child) for child in children)
        return total

    def close(self) -> None:
        """End an idle sandbox in order: the supervisor sees the job channel close and exits,
        then bubblewrap does (and the CPU time of all of them reaches our rusage). A sandbox that
        does not go within a few seconds is killed."""
        if self.closed:
            return
        with contextlib.suppress(OSError):
            os.close(self.job_fd)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=_CLOSE_SECONDS)
        self.kill()

    def kill(self) -> None:
        """Kill bubblewrap and the namespace's init, and wait until the namespace is empty: when
        this returns, no process of the sandbox (detached daemons included) is left."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.namespace_init is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                signal.pidfd_send_signal(self.namespace_init, signal.SIGKILL)
            select.select([self.namespace_init], [], [], _TEARDOWN_SECONDS)
            os.close(self.namespace_init)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=_TEARDOWN_SECONDS)
        for fd in (self.job_fd, self.result_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError, ValueError):
            self.stderr.close()
        if self.scratch_dir is not None:
            shutil.rmtree(self.scratch_dir, ignore_errors=True)


def _write_before(fd: int, data: bytes, deadline: float) -> None:
    """Write all of ``data`` to a non-blocking fd, or raise TimeoutError at ``deadline``."""
    view = memoryview(data)
    while view:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([], [fd], [], left)[1]:
            raise TimeoutError("the sandbox did not take the job in time")
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            continue


def _namespace_init(info_fd: int, deadline: float) -> int:
    """A pidfd on the namespace's init, from bubblewrap's ``--info-fd`` JSON."""
    raw = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([info_fd], [], [], left)[0]:
            raise _StartFailed("bubblewrap did not report its sandbox")
        chunk = os.read(info_fd, 4096)
        if not chunk:
            break
        raw += chunk
    try:
        child_pid = int(json.loads(raw)["child-pid"])
    except (ValueError, KeyError, TypeError) as exc:
        raise _StartFailed(f"bubblewrap reported no sandbox pid: {raw[:200]!r}") from exc
    try:
        return os.pidfd_open(child_pid)
    except OSError as exc:
        raise _StartFailed(f"the sandbox ended at once: {exc}") from exc


def _probed_pages(root: int, namespace_pid: int) -> PageSpans:
    """What the supervisor's page probe wrote, read from its /proc entries (the sandbox has no
    /proc of its own); nothing if it cannot be read, which only costs the spares' head start."""
    try:
        pid = host_pid(root, namespace_pid)
        return probed_spans(pid) if pid is not None else PageSpans()
    except (OSError, ValueError):
        return PageSpans()


def _start_session(policy: SandboxPolicy, sandboxed: bool, uid: int | None) -> _Session:
    job_r, job_w = os.pipe()
    result_r, result_w = os.pipe()
    info_r, info_w = os.pipe() if sandboxed else (-1, -1)
    scratch_dir = None if sandboxed else tempfile.mkdtemp(prefix="vrpcoder-sandbox-")
    config = RunnerConfig(
        job_fd=job_r,
        result_fd=result_w,
        scratch=SCRATCH if sandboxed else str(scratch_dir),
        isolated=sandboxed,
        drop_uid=uid,
        native_roots=python_roots(),
        prefault=policy.prefault,
    )
    argv = [sys.executable, "-I", "-B", "-m", "vrpcoder_verifier.sandbox.runner", config.model_dump_json()]
    passed = (job_r, result_w, info_w) if sandboxed else (job_r, result_w)
    if sandboxed:
        bwrap = find_bwrap()
        if bwrap is None:
            raise _StartFailed("bwrap disappeared from PATH")
        command = bwrap_command(bwrap, host_layout(policy.scratch_bytes, uid), argv, info_fd=info_w)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        cwd = "/"
    else:
        command = argv
        env = dict(sandbox_env(str(scratch_dir), dict(os.environ)))
        cwd = str(scratch_dir)
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the session, closed by kill()
    try:
        process = subprocess.Popen(
            command, pass_fds=passed, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=stderr, env=env, cwd=cwd, start_new_session=True,
        )
    except OSError as exc:
        for fd in (job_w, result_r, info_r):
            if fd >= 0:
                os.close(fd)
        raise _StartFailed(f"could not start the sandbox: {exc}") from exc
    finally:
        for fd in passed:
            with contextlib.suppress(OSError):
                os.close(fd)
    os.set_blocking(job_w, False)
    session = _Session(
        process=process, job_fd=job_w, result_fd=result_r, stderr=stderr, scratch_dir=scratch_dir, namespace_init=None
    )
    deadline = time.monotonic() + START_SECONDS
    try:
        if sandboxed:
            session.namespace_init = _namespace_init(info_r, deadline)
        frame = read_frame(result_r, MAX_ANSWER_BYTES, deadline=deadline)
        ready = SUPERVISOR_MESSAGE.validate_json(frame) if frame is not None else None
        if isinstance(ready, Probed):
            report = PageReport(pages=_probed_pages(process.pid, ready.pid))
            _write_before(job_w, encode_frame(report.model_dump_json().encode()), deadline)
            frame = read_frame(result_r, MAX_ANSWER_BYTES, deadline=deadline)
            ready = SUPERVISOR_MESSAGE.validate_json(frame) if frame is not None else None
    except (TimeoutError, FrameError, ValidationError, OSError, _StartFailed) as exc:
        session.kill()
        raise _StartFailed(f"the sandbox did not start ({exc}): {session.stderr_tail()[-500:]}") from exc
    finally:
        if info_r >= 0:
            os.close(info_r)
    if not isinstance(ready, Ready):
        session.kill()
        raise _StartFailed(f"the sandbox did not start: {session.stderr_tail()[-500:] or 'no output'}")
    session.prefault_pages = ready.prefault_pages
    return session


def _fault_of_a_used_sandbox(record: ExecutionRecord) -> bool:
    """Our fault in a sandbox that had served other jobs (say, one whose scratch could not be
    cleaned after the previous job): worth one more try in another sandbox (the fault has retired
    this one and started its replacement) rather than a lost verdict. A fault in a fresh sandbox
    is not retried: it would most likely recur."""
    error = record.verdict.error
    return record.warm and error is not None and error.kind is ErrorKind.INFRASTRUCTURE


class SandboxExecutor:
    """Runs candidates in warm sandboxes, one job at a time (see the module docstring)."""

    def __init__(self, policy: SandboxPolicy = DEFAULT_POLICY) -> None:
        status = sandbox_status()
        if not status.available and not policy.allow_unsandboxed:
            raise SandboxUnavailable(status.detail)
        self.policy = policy
        self._sandboxed = status.available
        self._host_status = status
        self._setup_process_state()

    def _setup_process_state(self) -> None:
        self._owner_pid = os.getpid()
        self._lock = threading.Lock()
        self._spawner = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-spawner")
        self._uid = uid_for_executor() if self._sandboxed and _running_as_root() else None
        self._ring: deque[_Session] = deque()
        """Started sandboxes, the one that served the last job in front."""
        self._starting: list[Future[_Session]] = []
        self._in_use: _Session | None = None
        self._cores = SpareCoreWatch()
        self._closed = False

    @property
    def status(self) -> SandboxStatus:
        if self._sandboxed:
            return self._host_status
        return SandboxStatus(
            available=False,
            mechanism="none",
            detail=f"UNSANDBOXED (allowed by policy): rlimits only, no namespaces; {self._host_status.detail}",
        )

    @property
    def mechanism(self) -> Mechanism:
        return "bubblewrap" if self._sandboxed else "none"

    def verify(self, candidate_code: str, sample: Sample, config: VerifyConfig) -> Verdict:
        """Never raises for anything the candidate does; sandbox faults come back as
        ``infrastructure`` verdicts (reward None)."""
        return self.execute(candidate_code, sample, config).verdict

    def warm_up(self) -> None:
        """Start every sandbox now rather than on the first jobs (and wait until they are up)."""
        with self._lock:
            self._check_fork()
            self._top_up()
            for future in self._starting:
                with contextlib.suppress(_StartFailed):
                    future.result()
            self._harvest()

    @property
    def prefault_pages(self) -> tuple[int, ...]:
        """Per started sandbox, how many pages its spares copy ahead of their jobs (0: none)."""
        with self._lock:
            return tuple(session.prefault_pages for session in self._ring)

    @property
    def sandbox_ids(self) -> tuple[int, ...]:
        """The started sandboxes (bubblewrap process ids), the one that served the last job first."""
        with self._lock:
            return tuple(session.process.pid for session in self._ring)

    def execute(
        self, candidate_code: str, sample: Sample, config: VerifyConfig, *, wall_seconds: float | None = None
    ) -> ExecutionRecord:
        """Run one job; ``wall_seconds`` narrows the policy's wall clock for this job alone (the
        service derives it from the request's time limit), never widens it."""
        with self._lock:
            self._check_fork()
            if self._closed:
                raise RuntimeError("the executor is closed")
            started = time.monotonic()
            try:
                wall = self.policy.wall_seconds if wall_seconds is None else min(wall_seconds, self.policy.wall_seconds)
                record = self._execute(candidate_code, sample, config, started, wall)
                if _fault_of_a_used_sandbox(record):
                    record = self._execute(candidate_code, sample, config, started, wall)
                return record
            except Exception as exc:  # noqa: BLE001 - our own fault must still become a verdict
                self._retire(self._in_use)
                verdict = failure_verdict(sample, ErrorKind.INFRASTRUCTURE, f"sandbox executor failed: {exc!r}")
                return self._record(verdict, started, warm=False)
            except BaseException:
                self._retire(self._in_use)  # interrupted mid-job: the session's channel is out of step
                raise
            finally:
                self._in_use = None

    def sandbox_cpu_seconds(self) -> float:
        """CPU seconds used so far by the started sandboxes' processes (0 without one); a
        diagnostic for overhead measurements and metrics."""
        with self._lock:
            return sum(session.cpu_seconds() for session in self._ring if session.alive())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            while self._ring:
                self._ring.popleft().close()
            starting, self._starting = self._starting, []
            for future in starting:
                with contextlib.suppress(Exception):
                    future.result().close()
            self._spawner.shutdown(wait=False)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check_fork(self) -> None:
        if os.getpid() != self._owner_pid:
            self._setup_process_state()

    def _top_up(self) -> None:
        """Start sandboxes in the background until there are ``policy.sandboxes``."""
        while not self._closed and len(self._ring) + len(self._starting) < self.policy.sandboxes:
            self._starting.append(self._spawner.submit(_start_session, self.policy, self._sandboxed, self._uid))

    def _harvest(self) -> None:
        """Move sandboxes that have finished starting to the back of the ring (failed starts are dropped)."""
        for future in [f for f in self._starting if f.done()]:
            self._starting.remove(future)
            with contextlib.suppress(_StartFailed):
                self._ring.append(future.result())

    def _head_start(self) -> bool:
        mode = self.policy.head_start
        return mode == "always" or (mode == "auto" and self._cores.spare_core())

    def _acquire(self, *, head_start: bool = False) -> tuple[_Session, bool]:
        """The sandbox for the next job: the one that served the last job (the front of the ring),
        or with a head start the next one, which is not busy cleaning up after it; else the first
        sandbox to finish starting."""
        self._harvest()
        while self._ring and not self._ring[0].alive():
            self._ring.popleft().kill()
        self._top_up()
        if not self._ring:
            future = self._starting.pop(0)
            self._ring.append(future.result())
        if head_start and len(self._ring) > 1:
            self._ring.rotate(-1)
        session = self._ring[0]
        self._in_use = session
        return session, session.jobs > 0

    def _retire(self, session: _Session | None, *, graceful: bool = False) -> None:
        """Take ``session`` out of the ring for good, and start its replacement."""
        if session is not None:
            with contextlib.suppress(ValueError):
                self._ring.remove(session)
            if graceful:
                session.close()
            else:
                session.kill()
        self._top_up()

    def _record(
        self, verdict: Verdict, started: float, *, warm: bool, done: JobDone | None = None, session: _Session | None = None
    ) -> ExecutionRecord:
        return ExecutionRecord(
            verdict=verdict,
            output=done.output if done else "",
            output_bytes=done.output_bytes if done else 0,
            output_truncated=done is not None and done.output_bytes > self.policy.max_output_bytes,
            violations=done.violations if done else (),
            worker_exit=done.worker_exit if done else "",
            cpu_seconds=done.cpu_seconds if done else None,
            wall_seconds=time.monotonic() - started,
            mechanism=self.mechanism,
            warm=warm,
            sandbox=session.process.pid if session is not None else None,
        )

    def _execute(self, code: str, sample: Sample, config: VerifyConfig, started: float, wall: float) -> ExecutionRecord:
        head_start = self._head_start()
        try:
            session, warm = self._acquire(head_start=head_start)
        except _StartFailed as exc:
            return self._record(failure_verdict(sample, ErrorKind.INFRASTRUCTURE, str(exc)), started, warm=False)
        policy = self.policy
        header = JobHeader(
            job_id=uuid.uuid4().hex,
            code=code,
            config=config,
            limits=WorkerLimits(
                cpu_seconds=policy.cpu_seconds,
                memory_mb=policy.memory_mb,
                max_processes=policy.max_processes,
                max_file_mb=policy.max_file_mb,
                max_open_files=policy.max_open_files,
            ),
            wall_seconds=wall,
            max_output_bytes=policy.max_output_bytes,
            output_flood_bytes=policy.output_flood_bytes,
            token=secrets.token_hex(16),
            prefault_next=head_start,
        )
        deadline = time.monotonic() + wall + ANSWER_GRACE_SECONDS
        payload = encode_frame(header.model_dump_json().encode()) + encode_frame(
            disclosed_sample(sample).model_dump_json().encode()
        )
        try:
            _write_before(session.job_fd, payload, deadline)
            frame = read_frame(session.result_fd, MAX_ANSWER_BYTES, deadline=deadline)
            if frame is None:
                raise _SessionLost("the sandbox closed its result channel")
            done = SUPERVISOR_MESSAGE.validate_json(frame)
            if not isinstance(done, JobDone) or done.job_id != header.job_id:
                raise _OutOfTurn("the sandbox answered out of turn")
        except TimeoutError:
            self._retire(session)
            detail = f"wall-clock limit of {wall:g} s exceeded (the sandbox stopped answering; killed)"
            return self._record(failure_verdict(sample, ErrorKind.TIMEOUT, detail), started, warm=warm, session=session)
        except (_SessionLost, OSError) as exc:
            verdict = self._lost_verdict(session, sample, exc)
            self._retire(session)
            return self._record(verdict, started, warm=warm, session=session)
        session.jobs += 1
        error = done.verdict.error
        if error is not None and error.kind in RETIRING_KINDS:
            self._retire(session)
        elif session.jobs >= policy.warm_jobs:
            self._retire(session, graceful=True)
        return self._record(done.verdict, started, warm=warm, done=done, session=session)

    @staticmethod
    def _lost_verdict(session: _Session, sample: Sample, exc: Exception) -> Verdict:
        """The supervisor vanished mid-job: our bug if it left a traceback, else the candidate's doing.

        The tail is read before the kill: killing the session closes its stderr file, and a
        traceback read afterwards would never be found (every fault of ours blamed on a candidate)."""
        tail = session.stderr_tail()
        session.kill()
        if "Traceback" in tail:
            last = (tail.strip().splitlines() or [""])[-1]
            return failure_verdict(sample, ErrorKind.INFRASTRUCTURE, f"the sandbox supervisor failed: {last}")
        return failure_verdict(
            sample,
            ErrorKind.SANDBOX_VIOLATION,
            f"the sandbox supervisor was killed during the job ({exc}; exit status {session.process.returncode})",
        )

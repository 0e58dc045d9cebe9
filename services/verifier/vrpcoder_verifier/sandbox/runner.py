"""The process bubblewrap starts: a warm supervisor that forks one fresh child per job.

Start-up (interpreter, ``import gurobipy``, its licence check, pydantic models, the integrity
snapshot) is paid once per sandbox; each job then costs a ``fork``, and even that happens ahead
of time: a spare child is forked and made ready while the previous job's verdict travels back,
and waits for its job header, having copied meanwhile (when the executor gives it a head start)
the pages of the inherited heap a job writes, learned once at start-up from a probe (see
``prefault``). Everything loaded at start-up is moved out of the garbage collector's reach
(``gc.freeze``), so a child's collections do not touch, and thereby copy, the whole inherited
heap. The supervisor itself never runs candidate code. It is made non-dumpable, so the
candidate's process (same uid) can neither ptrace it nor read its memory, and it alone
holds the pipe to the executor. Per job it

1. hands the header to the spare child (limits, tripwires, build; see ``child``) and only then
   reads the sample,
2. enforces the wall clock and the output cap, discards output past the cap,
3. answers the child's build report with the sample (no gold script) and a fresh nonce,
4. accepts a verdict only in that order, with that nonce, consistent with the sample, and sends
   it on at once,
5. then kills every process the job left (inside the pid namespace: all it can see), wipes the
   scratch filesystem (and puts back the mode, extended attributes and times of its root, which
   the job's uid owns unprivileged; see ``ScratchBaseline``) and forks the next spare, from a
   stack that holds nothing of this job.

Run as ``python -I -B -m vrpcoder_verifier.sandbox.runner '<RunnerConfig JSON>'``.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import gc
import hmac
import os
import resource
import secrets
import selectors
import signal
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import gurobipy as gp
from pydantic import ValidationError
from vrpcoder.candidate import watch_optimize_for_good
from vrpcoder.errors import ErrorKind
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict

from vrpcoder_verifier.sandbox.child import ChildChannels, await_job
from vrpcoder_verifier.sandbox.outcomes import (
    EXIT_CRASH,
    Phase,
    WorkerEnd,
    conclude,
    failure_verdict,
    verdict_inconsistency,
)
from vrpcoder_verifier.sandbox.protocol import (
    MAX_JOB_FRAME,
    MAX_REPORT_FRAME,
    WORKER_MESSAGE,
    BuildFailed,
    Built,
    Crashed,
    Finished,
    FrameDecoder,
    FrameError,
    JobDone,
    JobHeader,
    PageReport,
    Probed,
    Ready,
    RunnerConfig,
    Started,
    Violation,
    encode_frame,
    read_frame,
    write_frame,
)
from vrpcoder_verifier.sandbox.prefault import PageSpans
from vrpcoder_verifier.sandbox.rehearsal import Rehearsal, prepare_rehearsal, rehearse
from vrpcoder_verifier.sandbox.tripwire import Guard, install_hook

_PR_SET_DUMPABLE = 4
_READ_CHUNK = 1 << 16
_MAX_VIOLATIONS = 20
_MAX_DETAIL = 4000
MAX_REPORT_BYTES = 4 * MAX_REPORT_FRAME
"""More than a few verdicts' worth on the report pipe is a flood, not a report."""
_SWEEP_ROUNDS = 200
BUILD_FAILURE_KINDS = frozenset(
    {
        ErrorKind.SYNTAX_ERROR,
        ErrorKind.MISSING_BUILD_MODEL,
        ErrorKind.BUILD_ERROR,
        ErrorKind.NOT_A_MODEL,
        ErrorKind.MEMORY_LIMIT,
        ErrorKind.SIZE_LIMITED_LICENCE,
    }
)
"""What ``build_candidate`` can raise; a build report with any other kind is forged."""


def drop_privileges(uid: int) -> None:
    """Become ``uid`` for good (host-root mode) and prove that root cannot be had back."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid):
        raise RuntimeError(f"could not switch to uid {uid}")
    try:
        os.setuid(0)
    except PermissionError:
        return
    raise RuntimeError("root could be regained after dropping privileges")


def forbid_inspection() -> None:
    """Non-dumpable: processes of the same uid cannot ptrace us or open our /proc entries."""
    _set_dumpable(False)


def _set_dumpable(dumpable: bool) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, int(dumpable), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl(PR_SET_DUMPABLE, {int(dumpable)}) failed")


def warm_up_libraries() -> None:
    """What most candidates import, loaded once here instead of in every child, and gurobipy's
    default environment (the licence check), created once instead of by every child's first
    ``Model()``. Gurobi starts no threads for an idle environment, so it survives ``fork``; a
    licence that needs the network (WLS, token server) cannot work in the sandbox anyway. The
    optimize spy goes in for good before the integrity snapshot, so that a build writes no
    watched namespace (see ``tripwire.untouched_check``)."""
    for name in ("numpy", "itertools", "collections", "math", "logging"):
        with contextlib.suppress(ImportError):
            __import__(name)
    gp.Model().dispose()
    watch_optimize_for_good()


def _nonblocking(fd: int) -> None:
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)


def _read_available(fd: int) -> tuple[bytes, bool]:
    """(what can be read now, whether the stream ended)."""
    try:
        data = os.read(fd, _READ_CHUNK)
    except BlockingIOError:
        return b"", False
    except OSError as exc:
        if exc.errno == errno.EINTR:
            return b"", False
        raise
    return data, not data


def _same_device_entries(directory: str, device: int, *, strict: bool = False) -> list[os.DirEntry[str]]:
    """The entries of ``directory`` on filesystem ``device``. What cannot be read is skipped (the
    wipe does what it can), unless ``strict``: then any error is raised, because a directory the
    supervisor cannot read is one whose contents it cannot vouch for."""
    try:
        entries = list(os.scandir(directory))
    except OSError:
        if strict:
            raise
        return []
    found = []
    for entry in entries:
        try:
            if entry.stat(follow_symlinks=False).st_dev == device:
                found.append(entry)
        except OSError:
            if strict:
                raise
    return found


def wipe_tree(directory: str, device: int) -> None:
    """Delete what is inside ``directory`` on filesystem ``device``, never crossing into another.

    Host paths that live under /tmp (a checkout or virtualenv in /tmp, as on CI) are bound
    read-only *into* the scratch tmpfs; a plain ``rmtree`` would walk every file of them on every
    job and fail on each. Their mount points (and the directories bubblewrap made to hold them)
    stay; everything the job wrote goes, locked directories included.

    The walk moves the working directory down and up the tree and uses bare names, so each
    operation costs the same at any depth: with full paths, a job's tree 2,000 directories deep
    made every unlink walk 2,000 components, and wiping its 200,000 empty files took longer than
    the next job's time limit. Iterative, with only names kept per level, so depth costs neither
    recursion nor open descriptors. Called only once every process of the job is dead.

    Only what is *inside* goes: ``directory`` itself, and the directories kept for mount points,
    keep whatever was set on them; ``wipe_scratch`` puts that back (see ``ScratchBaseline``).
    """
    home = os.getcwd()
    try:
        os.chdir(directory)
    except OSError:
        return
    try:
        stack: list[tuple[str, list[str]]] = [("", _clear_level(device))]
        while stack:
            name, pending = stack[-1]
            if pending:
                child = pending.pop()
                try:
                    os.chdir(child)
                except OSError:
                    continue
                stack.append((child, _clear_level(device)))
                continue
            stack.pop()
            if stack:
                os.chdir("..")
                with contextlib.suppress(OSError):
                    os.rmdir(name)
    finally:
        os.chdir(home)


def _clear_level(device: int) -> list[str]:
    """Unlink every non-directory of the working directory on ``device``; return its
    directories on ``device`` (unlocked, so that they can be entered and emptied)."""
    directories: list[str] = []
    for entry in _same_device_entries(".", device):
        if entry.is_dir(follow_symlinks=False):
            with contextlib.suppress(OSError):
                os.chmod(entry.name, 0o700)  # a job may have locked its own directories
            directories.append(entry.name)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.name)
    return directories


def scratch_entries(directory: str, device: int, *, strict: bool = False) -> frozenset[str]:
    """Every path under ``directory`` on ``device`` (mount points and what is under them excluded).
    ``strict``: a directory or entry that cannot be read raises instead of counting as empty."""
    found: set[str] = set()
    pending = [directory]
    while pending:
        for entry in _same_device_entries(pending.pop(), device, strict=strict):
            found.add(entry.path)
            if entry.is_dir(follow_symlinks=False):
                pending.append(entry.path)
    return frozenset(found)


def _xattrs(path: str) -> dict[str, bytes]:
    """Every extended attribute of ``path`` (user ones, POSIX ACLs, security labels), by name; none
    where the filesystem has no extended attributes at all."""
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return {}
        raise
    return {name: os.getxattr(path, name, follow_symlinks=False) for name in names}


@dataclass(frozen=True)
class DirectoryMarks:
    """What can be set on a directory without putting anything in it: its permission bits, its
    extended attributes, its access and modification times. Its owner can set all of them, and in
    the deployed mode (bubblewrap unprivileged) the job's uid owns the scratch root and the
    directories bubblewrap made under it."""

    mode: int
    xattrs: tuple[tuple[str, bytes], ...]
    atime_ns: int
    mtime_ns: int

    @classmethod
    def of(cls, path: str) -> DirectoryMarks:
        info = os.lstat(path)
        return cls(
            mode=stat.S_IMODE(info.st_mode),
            xattrs=tuple(sorted(_xattrs(path).items())),
            atime_ns=info.st_atime_ns,
            mtime_ns=info.st_mtime_ns,
        )


def restore_marks(path: str, marks: DirectoryMarks) -> None:
    """Put ``marks`` back on ``path``, as far as we are allowed to (``scratch_problems`` says
    whether that was far enough). The mode first, so that a directory locked to 000 can be
    entered and its attributes removed (their owner needs write permission for that); then every
    extended attribute that was not there, and every one that was, as it was (a POSIX ACL, removed,
    can leave group bits of its own, hence the mode once more); the times last, since every step
    before changes them."""
    with contextlib.suppress(OSError):
        if stat.S_IMODE(os.lstat(path).st_mode) != marks.mode:
            os.chmod(path, marks.mode)
    wanted = dict(marks.xattrs)
    with contextlib.suppress(OSError):
        present = _xattrs(path)
        for name in present.keys() - wanted.keys():
            with contextlib.suppress(OSError):
                os.removexattr(path, name, follow_symlinks=False)
        for name, value in wanted.items():
            if present.get(name) != value:
                with contextlib.suppress(OSError):
                    os.setxattr(path, name, value, follow_symlinks=False)
    with contextlib.suppress(OSError):
        if stat.S_IMODE(os.lstat(path).st_mode) != marks.mode:
            os.chmod(path, marks.mode)
    with contextlib.suppress(OSError):
        os.utime(path, ns=(marks.atime_ns, marks.mtime_ns), follow_symlinks=False)


@dataclass(frozen=True)
class ScratchBaseline:
    """The scratch as bubblewrap left it, recorded at start-up, before any job: the entries it made
    (the directories holding binds under /tmp) and the marks on the scratch root and on each of
    those directories, the only ones a wipe cannot delete.

    Deleting what is inside is not enough: a job can set an extended attribute on /tmp itself,
    change its mode (1775, or 000 to lock the next job out) or its times, and a later job of the
    same sandbox would read them back. So every wipe restores these marks, and the clean check
    compares them (all but the times, which reading and writing the directory moves anyway)."""

    directory: str
    device: int
    entries: frozenset[str]
    marks: tuple[tuple[str, DirectoryMarks], ...]

    @classmethod
    def record(cls, directory: str) -> ScratchBaseline:
        device = os.lstat(directory).st_dev
        entries = scratch_entries(directory, device, strict=True)
        kept = [directory] + sorted(path for path in entries if stat.S_ISDIR(os.lstat(path).st_mode))
        return cls(
            directory=directory,
            device=device,
            entries=entries,
            marks=tuple((path, DirectoryMarks.of(path)) for path in kept),
        )


def wipe_scratch(baseline: ScratchBaseline) -> None:
    """Empty the scratch (``wipe_tree``) and put back the marks on what stays. The root's marks go
    back first as well: locked to 000, it could be neither entered nor emptied (``wipe_tree`` would
    find nothing to delete). The kept directories' marks go back after the walk, which unlocks
    them to 0700 on its way through."""
    root, root_marks = baseline.marks[0]
    restore_marks(root, root_marks)
    wipe_tree(baseline.directory, baseline.device)
    for path, marks in baseline.marks:
        restore_marks(path, marks)


def scratch_problems(baseline: ScratchBaseline) -> list[str]:
    """Why the scratch is not as ``baseline`` recorded it: entries left, a directory that cannot be
    read (whatever is in it is unknown, so it is not clean), a kept directory whose mode or
    extended attributes differ. Empty when clean."""
    problems: list[str] = []
    try:
        left = scratch_entries(baseline.directory, baseline.device, strict=True) - baseline.entries
    except OSError as exc:
        problems.append(f"cannot be read: {exc.strerror or exc}")
    else:
        if left:
            problems.append(f"{len(left)} entries left")
    for path, marks in baseline.marks:
        try:
            now = DirectoryMarks.of(path)
        except FileNotFoundError:
            if path == baseline.directory:
                problems.append(f"{path}: gone")
            continue  # a kept directory that held no mount point was wiped: nothing is left on it
        except OSError as exc:
            problems.append(f"{path}: cannot be read: {exc.strerror or exc}")
            continue
        if now.mode != marks.mode:
            problems.append(f"{path}: mode {oct(now.mode)}, not {oct(marks.mode)}")
        if now.xattrs != marks.xattrs:
            problems.append(f"{path}: extended attributes {[name for name, _ in now.xattrs]} differ")
    return problems


def sweep_namespace() -> None:
    """Kill every process this uid can see but ourselves and init: inside our own pid namespace,
    that is exactly what the job left behind, detached daemons included."""
    for _ in range(_SWEEP_ROUNDS):
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        time.sleep(0.005)
    raise RuntimeError("processes survived the sweep")


def kill_namespace() -> None:
    """SIGKILL every process this uid can see but ourselves and init, and do not wait for them.

    Once this returns none of them runs another instruction of its own: a fatal signal is acted on
    before any return to user space, the kernel refuses ``fork`` to a process with one pending,
    and a ``fork`` racing the kill passes the signal on to the new child. So the next job's spare
    may be forked at once, while they are still being torn down (which is what waiting for them
    costs: a few milliseconds per job for a process of the supervisor's size)."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(-1, signal.SIGKILL)


def sweep_group(pgid: int) -> None:
    """Outside a pid namespace only the child's process group can be killed safely."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


class _Watch:
    """The supervisor's side of one job, from fork to the child's end."""

    def __init__(
        self, *, pid: int, report_fd: int, sample_fd: int, output_fd: int, header: JobHeader, sample_json: bytes,
        sample: Sample, started: float, sweep: Callable[[], None],
    ) -> None:
        self.pid = pid
        self.report_fd = report_fd
        self.sample_fd = sample_fd
        self.output_fd = output_fd
        self.header = header
        self.sample_json = sample_json
        self.sample = sample
        self.started = started
        self.phase = Phase.BUILDING
        self.decoder = FrameDecoder(MAX_REPORT_FRAME)
        self.violations: list[str] = []
        self.verdict: Verdict | None = None
        self.crash: str | None = None
        self.candidate_ran = False
        self.output = bytearray()
        self.output_bytes = 0
        self.flooded = False
        self.timed_out = False
        self.kill_now = False
        self.nonce = ""
        self.report_bytes = 0
        self.pending = b""
        self.selector = selectors.DefaultSelector()
        self.open_streams = {report_fd, output_fd}
        self.pidfd: int | None = None
        self.status = 0
        self.usage: resource.struct_rusage | None = None
        self.sweep = sweep

    def _violation(self, detail: str) -> None:
        if len(self.violations) < _MAX_VIOLATIONS:
            self.violations.append(detail[:_MAX_DETAIL])

    def _protocol(self, detail: str) -> None:
        self._violation(f"report channel: {detail}")
        self.kill_now = True

    def _on_report(self, raw: bytes) -> None:
        try:
            message = WORKER_MESSAGE.validate_json(raw)
        except ValidationError:
            self._protocol("undecodable message")
            return
        if isinstance(message, Violation):
            self._violation(message.detail)
        elif self.phase is Phase.DONE:
            self._protocol(f"{message.kind} after the job was over")
        elif isinstance(message, Started):
            if self.candidate_ran:
                self._protocol("a second start")
            self.candidate_ran = True
        elif not self.candidate_ran:
            self._protocol(f"{message.kind} before the candidate's code started")
        elif not hmac.compare_digest(message.token, self.header.token):
            self._protocol(f"a {message.kind} report without this job's token")
        elif isinstance(message, Built):
            self._on_built()
        elif isinstance(message, BuildFailed):
            self._on_build_failed(message)
        elif isinstance(message, Finished):
            self._on_finished(message)
        elif isinstance(message, Crashed):
            if self.phase is not Phase.VERIFYING:
                self._protocol("a crash report before the build was reported")  # only verify_built's failures are sent
                return
            self.crash = f"the verifier failed in the sandbox: {message.detail}"
            self.phase = Phase.DONE

    def _on_built(self) -> None:
        if self.phase is not Phase.BUILDING:
            self._protocol("a second build report")
            return
        self.phase = Phase.VERIFYING
        self.nonce = secrets.token_hex(16)
        self.pending = encode_frame(b'{"nonce":"' + self.nonce.encode() + b'","sample":' + self.sample_json + b"}")
        self.selector.register(self.sample_fd, selectors.EVENT_WRITE)

    def _on_build_failed(self, message: BuildFailed) -> None:
        """A failed build, or the child out of memory at any point (its one pre-encoded report)."""
        out_of_memory = self.phase is Phase.VERIFYING and message.error.kind is ErrorKind.MEMORY_LIMIT
        if not out_of_memory and (self.phase is not Phase.BUILDING or message.error.kind not in BUILD_FAILURE_KINDS):
            self._protocol(f"unexpected build failure ({message.error.kind.value})")
            return
        detail = message.error.detail[:_MAX_DETAIL]
        self.verdict = failure_verdict(self.sample, message.error.kind, detail, message.seconds)
        self.phase = Phase.DONE

    def _on_finished(self, message: Finished) -> None:
        if self.phase is not Phase.VERIFYING or not hmac.compare_digest(message.nonce, self.nonce):
            self._protocol("a verdict out of order or with the wrong nonce")
            return
        problem = verdict_inconsistency(message.verdict, self.sample, self.header.config)
        if problem is not None:
            self._protocol(f"inconsistent verdict: {problem}")
            return
        self.verdict = message.verdict
        self.phase = Phase.DONE

    def _read_report(self) -> bool:
        data, ended = _read_available(self.report_fd)
        self.report_bytes += len(data)
        if self.report_bytes > MAX_REPORT_BYTES:
            self._protocol("flooded")
            return True
        if data:
            try:
                frames = self.decoder.feed(data)
            except FrameError as exc:
                self._protocol(str(exc))
                return True
            for frame in frames:
                self._on_report(frame)
        return ended

    def _read_output(self) -> bool:
        data, ended = _read_available(self.output_fd)
        if data:
            room = self.header.max_output_bytes - len(self.output)
            if room > 0:
                self.output.extend(data[:room])
            self.output_bytes += len(data)
            if self.output_bytes > self.header.output_flood_bytes:
                self.flooded = True
                self.kill_now = True
        return ended

    def _write_sample(self) -> None:
        try:
            written = os.write(self.sample_fd, self.pending)
        except BlockingIOError:
            return
        except BrokenPipeError:
            written = len(self.pending)
        self.pending = self.pending[written:]
        if not self.pending:
            self.selector.unregister(self.sample_fd)

    @staticmethod
    def _readable(fd: int) -> bool:
        with selectors.DefaultSelector() as probe:
            probe.register(fd, selectors.EVENT_READ)
            return bool(probe.select(0))

    def run(self) -> WorkerEnd:
        """Watch until the child's final report is accepted, or it dies, floods, breaks the
        protocol or runs out of time. A child that reported is not waited for: its exit and the
        sweep happen in ``finish``, after the verdict has gone out."""
        for fd in (self.report_fd, self.output_fd, self.sample_fd):
            _nonblocking(fd)
        self.pidfd = os.pidfd_open(self.pid)
        for fd in (self.report_fd, self.output_fd, self.pidfd):
            self.selector.register(fd, selectors.EVENT_READ)
        deadline = self.started + self.header.wall_seconds
        exited = False
        while not exited and not self.kill_now and self.phase is not Phase.DONE:
            left = deadline - time.monotonic()
            if left <= 0:
                self.timed_out = True
                break
            for key, _events in self.selector.select(left):
                if key.fd == self.pidfd:
                    exited = True
                elif key.fd == self.sample_fd:
                    self._write_sample()
                elif key.fd in self.open_streams:
                    self._on_readable(key.fd)
        if self.phase is Phase.DONE and not self.kill_now:
            self._drain_stream(self.output_fd)
            return self._end(reaped=False)
        self.finish()
        return self._end(reaped=True)

    def _on_readable(self, fd: int) -> None:
        ended = self._read_report() if fd == self.report_fd else self._read_output()
        if ended:
            self.open_streams.discard(fd)
            self.selector.unregister(fd)

    @property
    def reaped(self) -> bool:
        return self.usage is not None

    def finish(self) -> None:
        """Kill and reap the child, then everything the job left (``sweep``); idempotent."""
        if self.usage is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        _, self.status, self.usage = os.wait4(self.pid, 0)
        self.sweep()
        for fd in list(self.open_streams):
            self._drain_stream(fd)
        self.close()

    def close(self) -> None:
        """Release the watch's own descriptors (not the pipes: the supervisor owns those); idempotent."""
        self.selector.close()
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None

    def _end(self, *, reaped: bool) -> WorkerEnd:
        status, usage = self.status, self.usage
        return WorkerEnd(
            phase=self.phase,
            verdict=self.verdict,
            violations=tuple(self.violations),
            crash=self.crash,
            candidate_ran=self.candidate_ran,
            flooded=self.flooded,
            timed_out=self.timed_out and self.phase is not Phase.DONE,
            exit_code=os.waitstatus_to_exitcode(status) if reaped and os.WIFEXITED(status) else None,
            signal=os.WTERMSIG(status) if reaped and os.WIFSIGNALED(status) else None,
            cpu_seconds=usage.ru_utime + usage.ru_stime if usage is not None else None,
            max_rss_kb=usage.ru_maxrss if usage is not None else 0,
            elapsed=time.monotonic() - self.started,
        )

    def _drain_stream(self, fd: int) -> None:
        """Read what is in a pipe now (after the sweep: everything, since every writer is gone)."""
        for _ in range(1 << 12):
            ended = self._read_report() if fd == self.report_fd else self._read_output()
            if ended or not self._readable(fd):
                return


def _describe_exit(end: WorkerEnd) -> str:
    if end.phase is Phase.DONE and end.exit_code is None and end.signal is None:
        return "reported its result"
    if end.timed_out:
        return "killed at the wall-clock limit"
    if end.flooded:
        return "killed for flooding its output"
    if end.signal is not None:
        return f"killed by {signal.Signals(end.signal).name if end.signal in signal.valid_signals() else end.signal}"
    return f"exit status {end.exit_code}"


@dataclass(frozen=True, slots=True)
class _Spare:
    """A child forked ahead of its job, waiting on ``header_fd``: the fork and the job-independent
    set-up are off the job's critical path."""

    pid: int
    header_fd: int
    report_fd: int
    sample_fd: int
    output_fd: int


class Supervisor:
    def __init__(self, config: RunnerConfig, guard: Guard, pages: PageSpans | None = None) -> None:
        self.config = config
        self.guard = guard
        self.pages = pages if pages is not None else PageSpans()
        self.scratch = Path(config.scratch)
        self.job_dir = self.scratch / "job"
        self._watch: _Watch | None = None
        self._child: int | None = None
        self._open_fds: list[int] = []
        self._spare: _Spare | None = None
        self._populate_next = True
        """Whether the next spare copies its pages ahead (the last job's header says)."""
        self._zombies: list[int] = []
        """Children killed after their verdict went out and not yet reaped."""
        self._scratch_baseline = ScratchBaseline.record(str(self.scratch))
        """What bubblewrap put in the scratch (the directories holding binds under /tmp), and the
        marks on what the wipe keeps (the root's mode and extended attributes included)."""

    def _sweep(self, pgid: int) -> None:
        if self.config.isolated:
            sweep_namespace()
        else:
            sweep_group(pgid)

    def _kill_leftovers(self, pgid: int) -> None:
        """The sweep without waiting (see ``kill_namespace``)."""
        if self.config.isolated:
            kill_namespace()
        else:
            sweep_group(pgid)

    def _reap_zombies(self, *, block: bool = False) -> None:
        flags = 0 if block else os.WNOHANG
        for pid in list(self._zombies):
            try:
                done = os.waitpid(pid, flags)[0] == pid
            except ChildProcessError:
                done = True
            if done:
                self._zombies.remove(pid)

    def _wipe_scratch(self) -> None:
        wipe_scratch(self._scratch_baseline)

    def _check_scratch_clean(self) -> None:
        """A job may leave what no wipe removes (once, a tree deeper than PATH_MAX; a mark on the
        scratch root we were not allowed to take off); rather than let the next job see it, this
        sandbox ends here (with a traceback: our fault, not a candidate's) and the executor starts
        a fresh one with an empty tmpfs. A scratch that cannot be read is not clean: it is
        unknown."""
        problems = scratch_problems(self._scratch_baseline)
        if problems:
            raise RuntimeError(
                f"the scratch directory could not be wiped ({'; '.join(problems)}); replacing the sandbox"
            )

    def _fork_spare(self, *, populate: bool = True) -> _Spare:
        header_r, header_w = os.pipe2(os.O_CLOEXEC)
        report_r, report_w = os.pipe2(os.O_CLOEXEC)
        sample_r, sample_w = os.pipe2(os.O_CLOEXEC)
        output_r, output_w = os.pipe2(os.O_CLOEXEC)
        pid = os.fork()
        if pid == 0:
            try:
                for fd in (self.config.job_fd, self.config.result_fd, header_w, report_r, sample_w, output_r):
                    os.close(fd)
                channels = ChildChannels(
                    header_fd=header_r,
                    report_fd=report_w,
                    sample_fd=sample_r,
                    output_fd=output_w,
                    job_dir=str(self.job_dir),
                    scratch=str(self.scratch),
                    isolated=self.config.isolated,
                    native_roots=self.config.native_roots,
                    pages=self.pages if populate else PageSpans(),
                )
                await_job(channels, self.guard)
            finally:
                os._exit(EXIT_CRASH)
        for fd in (header_r, report_w, sample_r, output_w):
            os.close(fd)
        return _Spare(pid=pid, header_fd=header_w, report_fd=report_r, sample_fd=sample_w, output_fd=output_r)

    def prepare_spare(self, *, populate: bool = True) -> None:
        if self._spare is None:
            self._spare = self._fork_spare(populate=populate)

    def _discard_spare(self) -> None:
        spare, self._spare = self._spare, None
        if spare is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(spare.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(spare.pid, 0)
        for fd in (spare.header_fd, spare.report_fd, spare.sample_fd, spare.output_fd):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _hand_over(self, header_json: bytes) -> _Spare:
        """Give the job to the waiting spare (to a fresh one if that spare is gone)."""
        for _ in range(2):
            self.prepare_spare()
            spare = self._spare
            assert spare is not None
            try:
                write_frame(spare.header_fd, header_json)
            except BrokenPipeError:
                self._discard_spare()
                continue
            self._spare = None
            os.close(spare.header_fd)
            return spare
        raise RuntimeError("no child could be started for the job")

    def run(self, header_json: bytes) -> JobDone:
        """One job up to its verdict; ``finish_job`` must follow (after the verdict is sent)."""
        header = JobHeader.model_validate_json(header_json)
        self._populate_next = header.prefault_next
        self._reap_zombies()
        self._wipe_scratch()
        self.job_dir.mkdir(mode=0o700)
        spare = self._hand_over(header_json)
        started = time.monotonic()
        self._child = spare.pid
        self._open_fds = [spare.report_fd, spare.sample_fd, spare.output_fd]
        sample_json = read_frame(self.config.job_fd, MAX_JOB_FRAME)
        if sample_json is None:
            raise EOFError("the executor closed the job channel mid-job")
        sample = Sample.model_validate_json(sample_json)
        self._watch = _Watch(
            pid=spare.pid, report_fd=spare.report_fd, sample_fd=spare.sample_fd, output_fd=spare.output_fd,
            header=header, sample_json=sample_json, sample=sample, started=started,
            sweep=lambda: self._sweep(spare.pid),
        )
        end = self._watch.run()
        verdict = conclude(
            end, sample, cpu_limit=header.limits.cpu_seconds, memory_mb=header.limits.memory_mb,
            wall_seconds=header.wall_seconds,
        )
        done = JobDone(
            job_id=header.job_id,
            verdict=verdict,
            output=bytes(self._watch.output).decode("utf-8", errors="replace"),
            output_bytes=self._watch.output_bytes,
            violations=end.violations,
            worker_exit=_describe_exit(end),
            cpu_seconds=end.cpu_seconds,
        )
        # Before the verdict goes out: whatever the job's files cost to wipe is on its own clock,
        # not on the next job's (the executor starts that one's as soon as it has this verdict).
        self._release_job()
        self._wipe_scratch()
        return done

    def finish_job(self) -> None:
        """Make sure the job is gone (``run`` already killed and wiped it, unless it failed midway),
        check the scratch is clean, then fork the next job's spare (after a collection, so that not
        even cyclic garbage of this job is inherited by the next).

        A child that reported is killed with everything the job left but not waited for: its
        teardown overlaps the next spare's fork, and it is reaped later (``_reap_zombies``). A
        child that did not report was already reaped and swept in ``run``. ``run`` wipes the
        scratch again before the next job, after any late writer is long gone."""
        self._release_job()
        self._wipe_scratch()
        self._check_scratch_clean()
        gc.collect()
        self.prepare_spare(populate=self._populate_next)
        self._reap_zombies()

    def _release_job(self) -> None:
        """Drop every reference to the job; a frame of its own, so that none is left on the stack
        when the next spare is forked."""
        watch, child = self._watch, self._child
        if child is not None and not (watch is not None and watch.reaped):
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
            self._kill_leftovers(child)
            self._zombies.append(child)
        if watch is not None:
            watch.close()
        for fd in self._open_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._watch, self._child, self._open_fds = None, None, []

    def close(self) -> None:
        self._discard_spare()
        self._reap_zombies(block=True)


def main(argv: list[str]) -> int:
    config = RunnerConfig.model_validate_json(argv[0])
    if config.drop_uid is not None:
        drop_privileges(config.drop_uid)
    forbid_inspection()
    warm_up_libraries()
    rehearsal = _canned_rehearsal()
    guard = Guard.take()
    gc.freeze()
    supervisor = Supervisor(config, guard, _probe_pages(config, rehearsal, guard))
    supervisor.prepare_spare()
    ready = Ready(pid=os.getpid(), uid=os.getuid(), prefault_pages=supervisor.pages.pages)
    write_frame(config.result_fd, ready.model_dump_json().encode())
    while True:
        frame = read_frame(config.job_fd, MAX_JOB_FRAME)
        if frame is None:
            supervisor.close()
            return 0
        try:
            _serve(supervisor, config.result_fd, frame)
        finally:
            del frame
            supervisor.finish_job()


def _canned_rehearsal() -> Rehearsal | None:
    """The probe's canned job (run once here too, which warms every lazily built cache the
    children inherit); without it (it could not be built) spares simply copy nothing ahead."""
    try:
        return prepare_rehearsal()
    except Exception as exc:  # noqa: BLE001 - an optimisation only; say why on stderr, serve jobs anyway
        print(f"sandbox: no canned job, spares will not copy pages ahead: {type(exc).__name__}: {exc}", file=sys.stderr)
        return None


def _probe_pages(config: RunnerConfig, rehearsal: Rehearsal | None, guard: Guard) -> PageSpans:
    """Learn which pages a job writes (see ``prefault``): fork a probe as a spare would be forked,
    let it run the canned job with the tripwires in, and have the executor read its pagemap while
    it waits. The probe makes itself dumpable for that (the supervisor's pagemap is root's), which
    is safe: it runs only our own code and is gone before any spare exists."""
    if rehearsal is None or not config.prefault:
        return PageSpans()
    ready_r, ready_w = os.pipe2(os.O_CLOEXEC)
    release_r, release_w = os.pipe2(os.O_CLOEXEC)
    pid = os.fork()
    if pid == 0:
        status = EXIT_CRASH
        try:
            for fd in (config.job_fd, config.result_fd, ready_r, release_w):
                os.close(fd)
            _set_dumpable(True)  # before the audit hook, which refuses ctypes calls
            install_hook(lambda _detail: None, native_roots=config.native_roots, writable_roots=(config.scratch,))
            if rehearse(rehearsal, guard).passed:
                os.write(ready_w, b"1")
                os.read(release_r, 1)
                status = 0
        except BaseException as exc:  # noqa: BLE001 - reported by the supervisor as "no head start"
            print(f"sandbox: page probe: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        finally:
            os._exit(status)
    os.close(ready_w)
    os.close(release_r)
    try:
        if os.read(ready_r, 1) != b"1":
            print("sandbox: the page probe failed; spares will not copy pages ahead", file=sys.stderr)
            return PageSpans()
        write_frame(config.result_fd, Probed(pid=pid).model_dump_json().encode())
        frame = read_frame(config.job_fd, MAX_JOB_FRAME)
        if frame is None:
            raise EOFError("the executor closed the job channel during start-up")
        return PageReport.model_validate_json(frame).pages
    finally:
        os.close(ready_r)
        os.close(release_w)
        os.waitpid(pid, 0)


def _serve(supervisor: Supervisor, result_fd: int, header_json: bytes) -> None:
    """One job, in a frame of its own: when the next spare is forked, no local of any frame on
    the stack still holds this job's code or verdict."""
    done = supervisor.run(header_json)
    write_frame(result_fd, done.model_dump_json().encode())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

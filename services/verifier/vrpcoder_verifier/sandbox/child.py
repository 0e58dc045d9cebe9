"""The forked process that runs one candidate: limits, tripwires, build, then (only then) verify.

It is forked as a spare before its job exists (``await_job``) and learns the job from its own
pipe. It is untrusted from the moment the candidate's first line runs. Its order of work is
what keeps the sample away from the candidate's own code: the build is reported *before* the
sample (without its gold script) is sent here, so code that runs at import time or inside
``build_model`` has nothing to find. The candidate's code itself (the build, and every solve
where its callback runs) runs on threads of its own (``isolation``), so it finds none of this
module's frames above it. The verdict it sends is checked by the supervisor, never trusted as
such.
"""

from __future__ import annotations

import ctypes
import fcntl
import gc
import logging
import os
import resource
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from pydantic import BaseModel
from vrpcoder.candidate import BuiltCandidate, build_candidate
from vrpcoder.errors import ErrorKind, VerificationError, VerificationFailure
from vrpcoder.verification import verify_built

from vrpcoder_verifier.sandbox.outcomes import EXIT_CRASH, EXIT_OUT_OF_MEMORY, EXIT_REPORT_BROKEN
from vrpcoder_verifier.sandbox.protocol import (
    MAX_JOB_FRAME,
    BuildFailed,
    Built,
    Crashed,
    Disclosure,
    Finished,
    JobHeader,
    Started,
    Violation,
    WorkerLimits,
    encode_frame,
    read_frame,
)
from vrpcoder_verifier.sandbox.isolation import Escaped, Isolation, escaped
from vrpcoder_verifier.sandbox.prefault import PageSpans, populate
from vrpcoder_verifier.sandbox.tripwire import Guard, install_hook

_PR_SET_PDEATHSIG = 1
_MAX_VIOLATION_DETAIL = 300


@dataclass(frozen=True, slots=True)
class ChildChannels:
    """What a spare child is forked with, before it knows its job."""

    header_fd: int
    report_fd: int
    sample_fd: int
    output_fd: int
    job_dir: str
    scratch: str
    isolated: bool
    native_roots: tuple[str, ...]
    pages: PageSpans = PageSpans()
    """The pages of the inherited heap a job is expected to write, and the library pages it reads:
    copied and mapped while the spare waits."""


@dataclass(frozen=True, slots=True)
class ChildSetup:
    header: JobHeader
    channels: ChildChannels


def set_limits(limits: WorkerLimits, *, isolated: bool) -> None:
    """Soft and hard limits alike, so the candidate cannot raise them back.

    RLIMIT_NPROC only inside the sandbox: outside it the count is the service user's processes
    on the whole host, which has nothing to do with this job.
    """
    file_bytes = limits.max_file_mb * 1024 * 1024
    memory_bytes = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.max_open_files, limits.max_open_files))
    if isolated:
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes))


def _close_all_but(keep: set[int]) -> None:
    """Close every other descriptor. Empty ranges are skipped: ``os.closerange(n, n)`` becomes
    ``close_range(n, UINT_MAX)`` in CPython 3.11 and would close everything."""
    highest = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    highest = highest if 0 < highest < 1 << 20 else 4096
    start = 0
    for fd in [*sorted(keep), highest]:
        if start < fd:
            os.closerange(start, fd)
        start = fd + 1


def _redirect_stdio(output_fd: int) -> None:
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(output_fd, 1)
    os.dup2(output_fd, 2)
    os.close(output_fd)


class Reporter:
    """Writes frames to the supervisor with references bound before the candidate runs.

    ``flush_output`` flushes the child's own streams (never the candidate's replacements): it runs
    before the out-of-memory report, after which the process ends at once, so that what the
    candidate printed before it ran out is not lost with the buffer."""

    def __init__(self, fd: int, flush_output: Callable[[], None]) -> None:
        self._fd = fd
        self._flush_output = flush_output
        self._write = os.write
        self._exit = os._exit
        self._encode = encode_frame
        self.token = ""
        self._out_of_memory = b""
        self._started = encode_frame(Started().model_dump_json().encode())

    def arm(self, token: str) -> None:
        """Take the job's token (before the candidate runs) and pre-encode what must be sendable
        without allocating."""
        self.token = token
        self._out_of_memory = encode_frame(
            BuildFailed(
                error=VerificationError(kind=ErrorKind.MEMORY_LIMIT, detail="out of memory"),
                seconds=0.0,
                token=token,
            ).model_dump_json().encode()
        )

    def _raw(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[self._write(self._fd, view) :]
        except OSError:
            self._exit(EXIT_REPORT_BROKEN)

    def send(self, message: BaseModel) -> None:
        try:
            data = self._encode(message.model_dump_json().encode())
        except MemoryError:
            self.out_of_memory()
        self._raw(data)

    def started(self) -> None:
        self._raw(self._started)

    def violation(self, detail: str) -> None:
        self.send(Violation(detail=detail[:_MAX_VIOLATION_DETAIL]))

    def out_of_memory(self) -> NoReturn:
        try:
            self._flush_output()
        except BaseException:  # noqa: BLE001, S110 - best effort: even a flush may fail for memory
            pass
        self._raw(self._out_of_memory)
        self._exit(EXIT_OUT_OF_MEMORY)


def _flush_output() -> None:
    """Flush what the candidate printed (best effort: its streams may be replaced)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001, S110 - the candidate's stream objects may do anything
            pass


def _finish(exit_code: int = 0) -> NoReturn:
    """Leave without running exit handlers the candidate may have registered."""
    _flush_output()
    os._exit(exit_code)


@dataclass(frozen=True, slots=True)
class Closing:
    """What the last report needs besides itself: the streams are flushed first (the supervisor
    answers as soon as the report arrives, taking only the output already in the pipe); they are
    the child's own by then (the candidate's are put back after each of its calls), and the
    interpreter state is put back and the integrity check runs after the flush all the same, so
    that nothing of the candidate's is called between the check and the report."""

    reporter: Reporter
    guard: Guard
    state: InterpreterState
    isolation: Isolation
    watch: CallWatch


def _integrity_problems(closing: Closing, model: object | None, stamps: tuple[int, ...] | None = None) -> list[str]:
    """Put the interpreter state back, then check: the snapshot, and with ``stamps`` (the
    namespaces' version tags when the build passed its check) any write since."""
    closing.state.restore()
    problems = closing.guard.problems(model)
    if not problems and stamps is not None:
        problems = closing.guard.written_since(stamps)
    return problems


def _conclude(
    closing: Closing, message: BaseModel, model: object | None, stamps: tuple[int, ...] | None = None
) -> NoReturn:
    _flush_output()
    problems = _integrity_problems(closing, model, stamps)
    if problems:
        closing.reporter.violation("; ".join(problems))
        os._exit(0)
    closing.reporter.send(message)
    os._exit(0)


class InterpreterState:
    """Process-wide settings the candidate may change and the verifier relies on, as they were
    before the candidate ran, with the functions to put them back bound just as early.

    Put back after every isolated call and before every integrity check: a handler, timer or
    garbage collector callback the candidate armed would otherwise fire inside the verifier
    (where it could patch the verifier after the check and put everything back before the next
    one), a lowered recursion limit would break it, and a pipe made non-blocking
    (``blocking_fds``) would make its read fail. Each of those would end as a crash of *our* code
    (a verdict that blames us), so they are undone rather than judged. The same goes for what
    would run the candidate's code on the verifier's thread: its own ``sys.stdout`` (gurobipy
    logs parameter changes through it), import hooks, and automatic garbage collection, which
    runs the finalizers of whatever cyclic garbage it left (collection stays off in the child;
    a job is short, and its memory is limited anyway).
    """

    def __init__(self, blocking_fds: tuple[int, ...]) -> None:
        self._blocking_fds = blocking_fds
        self._recursion_limit = sys.getrecursionlimit()
        self._set_recursion_limit = sys.setrecursionlimit
        self._handlers = {
            number: handler
            for number in signal.valid_signals()
            if (handler := signal.getsignal(number)) is not None and number not in _UNCATCHABLE
        }
        self._gc_callbacks = gc.callbacks
        self._gc_callbacks_before = list(gc.callbacks)
        self._getsignal = signal.getsignal
        self._signal = signal.signal
        self._setitimer = signal.setitimer
        self._fcntl = fcntl.fcntl
        self._sys = sys
        self._streams = (sys.stdin, sys.stdout, sys.stderr)
        self._import_hooks = (list(sys.meta_path), list(sys.path_hooks))
        self._gc_disable = gc.disable
        self._timers = (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)
        self._fcntl_codes = (fcntl.F_GETFL, fcntl.F_SETFL, os.O_NONBLOCK)
        self._logging = _LoggingState.capture()

    def flush_own_streams(self) -> None:
        for stream in self._streams[1:]:
            try:
                stream.flush()
            except (OSError, ValueError):
                continue

    def restore(self) -> None:
        self._gc_disable()
        self._sys.stdin, self._sys.stdout, self._sys.stderr = self._streams
        self._sys.meta_path, self._sys.path_hooks = (list(hooks) for hooks in self._import_hooks)
        self._set_recursion_limit(self._recursion_limit)
        self._gc_callbacks[:] = self._gc_callbacks_before
        for timer in self._timers:
            self._setitimer(timer, 0)
        for number, handler in self._handlers.items():
            if self._getsignal(number) is not handler:
                self._signal(number, handler)
        get_flags, set_flags, nonblocking = self._fcntl_codes
        for fd in self._blocking_fds:
            flags = self._fcntl(fd, get_flags)
            if flags & nonblocking:
                self._fcntl(fd, set_flags, flags & ~nonblocking)
        self._logging.restore()


@dataclass(frozen=True, slots=True)
class _LoggingState:
    """The ``logging`` configuration as the child found it, as far as a record of gurobipy's meets
    it: the attributes of gurobipy's loggers, the root logger and their handlers (with the contents
    of their handler and filter lists), and the registry of loggers.

    gurobipy logs through ``logging`` (parameter changes included, which the verifier makes on its
    own thread); a handler or filter the candidate added, or a logger it swapped in, would run its
    code there."""

    registry: dict[str, object]
    registry_items: tuple[tuple[str, object], ...]
    attributes: tuple[tuple[dict[str, object], tuple[tuple[str, object], ...]], ...]
    lists: tuple[tuple[list[object], tuple[object, ...]], ...]

    @classmethod
    def capture(cls) -> _LoggingState:
        manager = logging.Logger.manager
        gurobi = [
            v
            for name, v in manager.loggerDict.items()
            if isinstance(v, logging.Logger) and (name == "gurobipy" or name.startswith("gurobipy."))
        ]
        loggers = [logging.root, *gurobi]  # the loggers a record of gurobipy's passes through
        handlers = [h for logger in loggers for h in logger.handlers]
        if logging.lastResort is not None:
            handlers.append(logging.lastResort)
        owners = [manager, *loggers, *handlers]
        attributes = tuple((vars(owner), tuple(vars(owner).items())) for owner in owners)
        lists = tuple(
            (value, tuple(value)) for _, items in attributes for _, value in items if type(value) is list
        )
        return cls(
            registry=manager.loggerDict,
            registry_items=tuple(manager.loggerDict.items()),
            attributes=attributes,
            lists=lists,
        )

    def restore(self) -> None:
        logging.Logger.manager.loggerDict = self.registry
        self.registry.clear()
        self.registry.update(self.registry_items)
        for space, items in self.attributes:
            space.clear()
            space.update(items)
        for values, contents in self.lists:
            values[:] = contents


_UNCATCHABLE = frozenset({signal.SIGKILL, signal.SIGSTOP})


def _abandon(reporter: Reporter, state: InterpreterState, detail: str) -> NoReturn:
    """Report a violation and leave at once: a thread of the candidate's may still be at work, so
    nothing of its own is called (only the streams the child started with are flushed)."""
    state.flush_own_streams()
    reporter.violation(detail)
    os._exit(0)


_PATCHED = "the candidate's code replaced a built-in or a name of the verifier's while it ran"


@dataclass(frozen=True, slots=True)
class CallWatch:
    """What runs on the verifier's thread the moment each isolated call is back (``after``, and
    ``abandon`` for a tampered hand-back), and ``arm`` to hand it the model and the namespaces'
    stamps once the build has passed its check.

    Both start with ``Guard.untouched``: until it has passed, a replaced built-in, module global or
    class attribute would run the candidate's code on this thread, where the report writer is; if
    it fails, a violation encoded in advance is written and the process ends, with nothing looked
    up on the way. Then the interpreter state is put back, and the model checked against gurobipy's
    shapes (a callback gets the model object itself and could plant an entry that gurobipy calls)."""

    after: Callable[[], None]
    abandon: Callable[[str], NoReturn]
    arm: Callable[[object, tuple[int, ...]], None]

    @classmethod
    def build(cls, guard: Guard, state: InterpreterState, reporter: Reporter, report_fd: int) -> CallWatch:
        untouched, model_problems, restore = guard.untouched, guard.model_problems, state.restore
        flushes = tuple(stream.flush for stream in (sys.stdout, sys.stderr))
        patched = encode_frame(Violation(detail=_PATCHED).model_dump_json().encode())
        write, exit_, fd, base = os.write, os._exit, report_fd, BaseException
        watch: list[object] = [None, None]

        def leave_if_patched() -> None:
            if untouched(watch[1]):  # type: ignore[arg-type]
                return
            for flush in flushes:
                try:
                    flush()
                except base:  # noqa: BLE001, S110 - best effort; the violation is what matters
                    pass
            try:
                write(fd, patched)
            finally:
                exit_(0)

        def after() -> None:
            leave_if_patched()
            restore()
            model = watch[0]
            if model is not None:
                problems = model_problems(model)
                if problems:
                    _abandon(reporter, state, "; ".join(problems))

        def abandon(detail: str) -> NoReturn:
            leave_if_patched()
            _abandon(reporter, state, detail)

        def arm(model: object, stamps: tuple[int, ...]) -> None:
            watch[0], watch[1] = model, stamps

        return cls(after=after, abandon=abandon, arm=arm)


def _prepare_idle(channels: ChildChannels) -> None:
    """Everything that does not depend on the job, done while the spare waits for one (the pages
    are copied before the audit hook goes in: it refuses ``ctypes`` calls)."""
    os.setpgid(0, 0)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    populate(channels.pages)
    _redirect_stdio(channels.output_fd)
    _close_all_but({0, 1, 2, channels.header_fd, channels.report_fd, channels.sample_fd})
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def _prepare_job(setup: ChildSetup) -> None:
    os.chdir(setup.channels.job_dir)
    os.environ["HOME"] = setup.channels.job_dir
    os.environ["TMPDIR"] = setup.channels.job_dir
    set_limits(setup.header.limits, isolated=setup.channels.isolated)


def _build_phase(setup: ChildSetup, closing: Closing) -> tuple[BuiltCandidate, tuple[int, ...]]:
    """The candidate's model, checked, and the namespaces' version tags at that check."""
    config = setup.header.config
    reporter = closing.reporter
    reporter.started()
    started = time.perf_counter()
    try:
        built = closing.isolation(build_candidate, setup.header.code, config.time_limit, config.threads)
    except VerificationFailure as failure:
        failed = BuildFailed(error=failure.error, seconds=time.perf_counter() - started, token=reporter.token)
        _conclude(closing, failed, None)
    except MemoryError:
        reporter.out_of_memory()
    except Escaped as exc:  # e.g. a KeyboardInterrupt raised by the candidate
        error = VerificationError(kind=ErrorKind.BUILD_ERROR, detail=f"build_model() raised {exc.type_name}")
        failed = BuildFailed(error=error, seconds=time.perf_counter() - started, token=reporter.token)
        _conclude(closing, failed, None)
    problems = _integrity_problems(closing, built.model)
    if problems:
        reporter.violation("; ".join(problems))
        _finish()
    stamps = closing.guard.stamps()
    closing.watch.arm(built.model, stamps)
    reporter.send(Built(token=reporter.token))
    return built, stamps


def await_job(channels: ChildChannels, guard: Guard) -> NoReturn:
    """A spare child's whole life: get ready, wait for a job header (or for the end of the
    channel, then leave), run that one job. Forked before the job exists, it never holds any
    of it in memory beyond what arrives on its own pipes. The tripwires go in while it waits:
    they depend on nothing of the job, and what the spare itself does next (read, decode, set
    limits) sets none of them off."""
    try:
        _prepare_idle(channels)
        state = InterpreterState(blocking_fds=(channels.sample_fd,))
        reporter = Reporter(channels.report_fd, state.flush_own_streams)
        watch = CallWatch.build(guard, state, reporter, channels.report_fd)
        isolation = Isolation(after=watch.after, abandon=watch.abandon)
        gc.disable()
        install_hook(reporter.violation, native_roots=channels.native_roots, writable_roots=(channels.scratch,))
        frame = read_frame(channels.header_fd, MAX_JOB_FRAME)
        if frame is None:
            os._exit(0)
        os.close(channels.header_fd)
        setup = ChildSetup(header=JobHeader.model_validate_json(frame), channels=channels)
        reporter.arm(setup.header.token)
        _prepare_job(setup)
    except BaseException:  # noqa: BLE001 - nothing of the candidate's has run yet: our fault
        traceback.print_exc()
        _finish(EXIT_CRASH)
    _run(setup, Closing(reporter=reporter, guard=guard, state=state, isolation=isolation, watch=watch))


def _receive_sample(setup: ChildSetup, reporter: Reporter) -> Disclosure:
    """The disclosure, or a violation: the candidate's code had the pipe in its hands and may have
    closed, replaced or drained it."""
    try:
        frame = read_frame(setup.channels.sample_fd, MAX_JOB_FRAME)
        if frame is None:
            _finish()
        return Disclosure.model_validate_json(frame)
    except Exception as exc:  # noqa: BLE001 - our read only fails on a pipe the candidate tampered with
        reporter.violation(f"the sample channel was tampered with ({type(exc).__name__})")
        _finish()


def _run(setup: ChildSetup, closing: Closing) -> NoReturn:
    """Never returns: the process ends with ``os._exit`` whatever the candidate does."""
    verify = verify_built  # bound before the candidate's code runs: it cannot rebind the name for us
    reporter = closing.reporter
    built, stamps = _build_phase(setup, closing)
    disclosure = _receive_sample(setup, reporter)
    try:
        verdict = verify(built, disclosure.sample, setup.header.config, isolate=closing.isolation)
    except MemoryError:
        reporter.out_of_memory()
    except Exception as exc:  # noqa: BLE001 - verify_built classifies candidate faults itself
        fault = escaped(exc)
        problems = _integrity_problems(closing, built.model, stamps)
        if problems:
            reporter.violation("; ".join(problems))
        elif fault.by_candidate or fault.base:
            reporter.violation(f"the candidate's code raised {fault.type_name} inside the verifier")
        else:
            _conclude(closing, Crashed(detail=fault.trace, token=reporter.token), built.model, stamps)
        _finish()
    except BaseException as exc:  # noqa: BLE001 - raised through the verifier by candidate callbacks
        reporter.violation(f"{type(exc).__name__} raised through the verifier")
        _finish()
    _conclude(closing, Finished(nonce=disclosure.nonce, verdict=verdict, token=reporter.token), built.model, stamps)

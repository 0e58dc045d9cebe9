"""The candidate's code on a thread of its own, out of reach of the verifier's frames.

Python lets any code walk up the stack it runs on (``sys._getframe().f_back`` is not even an
audited event) and read or mutate what the frames above it hold. Run on the child's main thread,
the candidate's ``build_model`` or callback finds the verifier's own frames there: the report
writer, the job token, the INJ answers collected so far. A hostile script rewired the report
writer that way and turned a wrong model's verdict into a clean pass that the supervisor's
recomputation could not tell from a real one.

So every call that may run the candidate's code (the build, and each INJ solve, where its
callback runs) goes to a fresh thread whose stack holds nothing but that call: the candidate's
frames walk up to a small trampoline and stop. The main thread waits, and takes back only:

* a return value, which the trampoline stores after the candidate's code is done;
* an exception, rebuilt as plain data (``detach``): the candidate's exception object, its
  traceback (which holds frames) and its finalizer stay on the thread that raised it.

What the candidate could still reach from the trampoline (the call, the lock, the outcome slot)
is checked: a lock released before the call ended, or a thread of the candidate's still running
once the call returns (from which it could act while the verifier works, or replace the
outcome) ends the job at once as a sandbox violation (``abandon``), decided on the main thread
without running anything more of the verifier's or the candidate's. The child also keeps automatic garbage collection
off (``InterpreterState``), so no finalizer of the candidate's runs on the main thread mid-verify.

Cost: a thread start and two lock hand-offs per call, about 60 microseconds.
"""

from __future__ import annotations

import _thread
import time
import traceback
from collections.abc import Callable
from typing import NoReturn, TypeVar

import gurobipy as gp
from vrpcoder.candidate import CANDIDATE_FILE
from vrpcoder.errors import ErrorKind, VerificationFailure

_T = TypeVar("_T")
_THREADS_GONE_SECONDS = 2.0
"""How long a thread the candidate's code started may take to end once the call is back."""


class Escaped(Exception):  # noqa: N818 - it is what escaped, not an error of ours
    """An exception that came out of an isolated call and is not one of the verifier's own
    failures, as plain data."""

    def __init__(self, type_name: str, *, by_candidate: bool, base: bool, trace: str) -> None:
        super().__init__(type_name)
        self.type_name = type_name
        self.by_candidate = by_candidate
        """It came out of, or went through, a frame of the candidate's code."""
        self.base = base
        """A ``BaseException`` that is not an ``Exception`` (``KeyboardInterrupt``, say)."""
        self.trace = trace
        """The formatted traceback, for our own crashes."""


def raised_by_candidate(exc: BaseException) -> bool:
    """The exception came out of, or went through, a frame of the candidate's code."""
    return any(frame.filename == CANDIDATE_FILE for frame in traceback.extract_tb(exc.__traceback__))


def describe(exc: BaseException) -> str:
    """The last frames of its traceback, for reports of our own crashes."""
    try:
        return "".join(traceback.format_exception(exc, limit=-3))[-2000:]
    except Exception:  # noqa: BLE001 - the candidate's __str__ may raise
        return _plain_text(type(exc).__name__)


def detach(exc: BaseException) -> BaseException:
    """A fresh exception carrying what the verifier needs of ``exc`` and nothing of its objects.

    The verifier's own failures keep their types (exact types only: a subclass is someone
    else's); a MemoryError stays a MemoryError, so that it is judged as one."""
    if type(exc) is VerificationFailure:
        return VerificationFailure(ErrorKind(str.__str__(exc.error.kind.value)), _plain_text(exc.error.detail))
    if type(exc) is gp.GurobiError:
        return gp.GurobiError(int.__int__(exc.errno), _plain_text(str(exc)))
    if isinstance(exc, MemoryError):
        return MemoryError()
    return escaped(exc)


def _plain_text(value: object) -> str:
    """An exact ``str``: a subclass handed to the main thread would run its own ``__format__``
    or ``__eq__`` there the first time the verifier formats or compares it (a class can even be
    given a name that is a ``str`` subclass of the candidate's)."""
    return str.__str__(value) if isinstance(value, str) else "?"


def escaped(exc: BaseException) -> Escaped:
    """``exc`` as plain data (an ``Escaped`` is returned as it is)."""
    if isinstance(exc, Escaped):
        return exc
    return Escaped(
        _plain_text(type(exc).__name__),
        by_candidate=raised_by_candidate(exc),
        base=not isinstance(exc, Exception),
        trace=describe(exc),
    )


_EMPTY = object()
"""The slot before the trampoline fills it: still there when the main thread wakes, the lock was
released by someone else."""
_OUT_OF_MEMORY = object()
"""The outcome could not even be stored (the candidate cut the memory limit)."""
_THREAD_LEFT = object()
"""A thread of the candidate's was still running when the call returned."""


def _trampoline(
    func: Callable[..., object],
    args: tuple[object, ...],
    has_started: Callable[[], None],
    release: Callable[[], None],
    slot: list[object],
    threads: int,
) -> Callable[[], None]:
    """The thread's whole stack below the candidate's code.

    Its closure is all that code can reach by walking up: the call and its arguments (an immutable
    tuple), two lock releases, the slot and built-in functions. Nothing in it leads back to the
    ``Isolation`` object or anything the child holds (a method bound to the isolation once did: from
    it, two attribute reads reached the report writer), and no cell of it is shared with the caller's
    frame, so the candidate cannot rebind what the main thread reads."""
    count, monotonic, sleep, detach_ = _thread._count, time.monotonic, time.sleep, detach

    def trampoline() -> None:
        try:
            has_started()
            try:
                outcome: tuple[bool, object] = (True, func(*args))
            except BaseException as exc:  # noqa: BLE001 - handed back as data
                outcome = (False, detach_(exc))
            deadline = monotonic() + _THREADS_GONE_SECONDS
            while count() > threads + 1 and monotonic() <= deadline:
                sleep(0.0002)
            slot[0] = outcome if count() <= threads + 1 else _THREAD_LEFT
        except BaseException:  # noqa: BLE001 - out of memory while storing: nothing else can fail here
            slot[0] = _OUT_OF_MEMORY
        finally:
            release()

    return trampoline


class Isolation:
    """Runs calls on threads of their own (see the module docstring). ``after`` runs on the main
    thread once each call is back, to check and put back what the candidate may have changed;
    ``abandon`` reports a tampered hand-back and ends the process. Both are called before
    anything else runs on the main thread, so they must be safe to call in that state (the
    child's start with a check that no namespace was patched)."""

    def __init__(self, after: Callable[[], None], abandon: Callable[[str], NoReturn]) -> None:
        self._run = _runner(after, abandon)

    def __call__(self, func: Callable[..., _T], /, *args: object) -> _T:
        """``func(*args)``'s result, or its exception rebuilt by ``detach``."""
        return self._run(func, args)  # type: ignore[no-any-return]


def _runner(after: Callable[[], None], abandon: Callable[[str], NoReturn]) -> Callable[[Callable[..., object], tuple[object, ...]], object]:
    """The isolated call as a closure over built-ins bound now.

    Once the candidate's code has run, it may have replaced a built-in, a module global or a class
    attribute of ours; code that looks any of them up would run the candidate's code on the main
    thread. So until ``after`` (or ``abandon``) has checked for that, the caller's side uses only
    what this closure holds: no global, no attribute of an object of ours, no built-in name.

    The trampoline stores the outcome only once the candidate's code is over and no thread of its
    own is left, so nothing of the candidate's can replace it afterwards. Each trampoline is kept
    until the process ends, with everything its closure holds (the arguments, the slot): whatever
    the candidate's code hung on them would otherwise be freed on the main thread, and reference
    counting runs finalizers even with collection off.
    """
    start, allocate, count = _thread.start_new_thread, _thread.allocate_lock, _thread._count
    monotonic, sleep, trampoline_for = time.monotonic, time.sleep, _trampoline
    gone_seconds, empty, out_of_memory, thread_left = _THREADS_GONE_SECONDS, _EMPTY, _OUT_OF_MEMORY, _THREAD_LEFT
    memory_error, runtime_error, length, tuple_type, type_of = MemoryError, RuntimeError, len, tuple, type
    kept: list[Callable[[], None]] = []
    keep = kept.append

    def alone(threads: int) -> bool:
        """No more than ``threads`` threads besides the main one (an ending thread gets a moment)."""
        deadline = monotonic() + gone_seconds
        while count() > threads:
            if monotonic() > deadline:
                return False
            sleep(0.0002)
        return True

    def await_start(started: _thread.LockType, threads: int) -> None:
        """Wait until the trampoline runs. A new thread needs memory for its first frame before any
        of our code runs in it; with the limit cut it dies there, holding nothing, and waiting on
        ``done`` would hang the job (seen twice gone, so as not to mistake a slow start)."""
        gone = 0
        while not started.acquire(timeout=0.5):
            gone = gone + 1 if count() <= threads else 0
            if gone >= 2:
                raise memory_error("the thread for the candidate's code died before it ran")

    def run(func: Callable[..., object], args: tuple[object, ...]) -> object:
        started, done = allocate(), allocate()
        started.acquire()
        done.acquire()
        slot: list[object] = [empty]
        threads = count()
        trampoline = trampoline_for(func, args, started.release, done.release, slot, threads)
        try:
            start(trampoline, ())
        except runtime_error:  # no room for a thread's stack: the candidate cut the memory limit
            raise memory_error("no thread could be started for the candidate's code") from None
        keep(trampoline)
        await_start(started, threads)
        done.acquire()
        if length(slot) != 1:
            abandon("the candidate's code tampered with the hand-back of its call")
        outcome = slot[0]
        if outcome is thread_left:
            abandon("the candidate's code left a thread running")
        if outcome is empty or (outcome is not out_of_memory and type_of(outcome) is not tuple_type):
            abandon("the candidate's code tampered with the hand-back of its call")
        if not alone(threads):
            abandon("the thread that ran the candidate's code did not end")
        after()
        if outcome is out_of_memory:
            raise memory_error("the outcome of the candidate's code could not be stored")
        ok, value = outcome  # type: ignore[misc]
        if not ok:
            raise value
        return value

    return run

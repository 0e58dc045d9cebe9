"""Run a candidate script's ``build_model`` in this process and classify what goes wrong.

Candidate scripts follow the output protocol of the code-regeneration prompt: ``import gurobipy``,
a ``build_model()`` that builds the model, optimizes it and returns it. The verifier needs the
*model object* (status and objective are read from it, never from printed text) and, for
candidates that add subtour cuts lazily, the *callback* they optimized with: a model judged
without its callback silently loses those cuts. Both are recovered by watching
``gurobipy.Model.optimize`` while ``build_model`` runs, which is also the one place where our
thread and time caps can be applied to a solve the candidate starts itself.

This module is the in-process core; the sandboxed service calls the same code inside its
sandbox, so wall-clock, memory and output limits are that service's business, not this one's.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
import traceback
import types
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import gurobipy as gp
from gurobipy import GRB
from pydantic import BaseModel, ConfigDict

from vrpcoder.errors import ErrorKind, VerificationFailure

SIZE_LIMIT_ERRNO = 10010
"""GurobiError code of the size-limited (pip) licence: the model exceeds 2000 variables or rows."""

_TRACEBACK_CAP = 2000
CANDIDATE_FILE = "<candidate>"
"""The file name of the candidate's code objects: how a traceback shows where its code ran."""

Callback = Callable[[gp.Model, int], None]
TraceEvent = Literal["call", "line", "return", "exception", "opcode"]

_STATUS_NAMES: dict[int, str] = {
    getattr(GRB.Status, name): name.lower() for name in dir(GRB.Status) if name.isupper()
}


def status_name(status: int) -> str:
    """Gurobi's status constant as a lower-case name (``optimal``, ``time_limit``, ...)."""
    return _STATUS_NAMES.get(status, f"status_{status}")


class Outcome(BaseModel):
    """What a solved model says about itself."""

    model_config = ConfigDict(frozen=True)

    status: str
    objective: float | None
    has_solution: bool


def model_outcome(model: gp.Model) -> Outcome:
    """Status and objective read from the model object, the only trustworthy source."""
    has_solution = model.SolCount > 0
    return Outcome(
        status=status_name(model.Status),
        objective=primary_objective(model) if has_solution else None,
        has_solution=has_solution,
    )


def primary_objective(model: gp.Model) -> float:
    """The value the statement's objective corresponds to.

    For a multi-objective model Gurobi's ``ObjVal`` is objective 0 alone, unweighted; a script
    that blends cost terms as several objectives of one priority means their weighted sum, and a
    hierarchical one means its highest priority (blended the same way when shared).
    """
    count = int(model.NumObj)
    if count <= 1:
        return float(model.ObjVal)
    saved = int(model.Params.ObjNumber)
    terms: list[tuple[int, float, float]] = []
    for number in range(count):
        model.Params.ObjNumber = number
        terms.append((int(model.ObjNPriority), float(model.ObjNWeight), float(model.ObjNVal)))
    model.Params.ObjNumber = saved
    top = max(priority for priority, _, _ in terms)
    return sum(weight * value for priority, weight, value in terms if priority == top)


@dataclass(frozen=True)
class BuiltCandidate:
    """A candidate's model after its own ``build_model`` ran, with what INJ needs to reuse it."""

    model: gp.Model
    callback: Callback | None
    """The callback the candidate optimized with (its lazy cuts are part of its model)."""
    namespace: dict[str, object]
    """The script's module globals overlaid with ``build_model``'s final locals, so that
    ``node_ids`` / ``id2idx`` are found wherever the candidate defined them."""
    build_seconds: float


@dataclass
class _OptimizeSpy:
    """Per-build record of the optimize calls made by one candidate (one thread)."""

    time_limit: float | None
    threads: int | None
    callbacks: dict[int, Callback] = field(default_factory=dict)
    optimized: set[int] = field(default_factory=set)
    keep_alive: list[gp.Model] = field(default_factory=list)
    """Strong references, so that ``id()`` keys cannot be reused by another model mid-build."""
    size_limited: bool = False

    def optimize(
        self, original: Callable[..., None], model: gp.Model, callback: Any, args: Any, kwargs: Any
    ) -> None:
        key = id(model)
        self.keep_alive.append(model)
        self.optimized.add(key)
        if callback is not None:
            self.callbacks[key] = callback
        apply_caps(model, time_limit=self.time_limit, threads=self.threads)
        try:
            original(model, callback, *args, **kwargs)
        except gp.GurobiError as exc:
            if exc.errno == SIZE_LIMIT_ERRNO:
                self.size_limited = True
            raise


_SPIES: dict[int, _OptimizeSpy] = {}
_SPY_LOCK = threading.Lock()
_ORIGINAL_OPTIMIZE: Callable[..., None] | None = None


def _spying_optimize(self: gp.Model, callback: Any = None, *args: Any, **kwargs: Any) -> None:
    original = _ORIGINAL_OPTIMIZE
    if original is None:  # unpatched between lookup and call by another thread's exit
        return gp.Model.optimize(self, callback, *args, **kwargs)
    spy = _SPIES.get(threading.get_ident())
    if spy is None:
        return original(self, callback, *args, **kwargs)
    return spy.optimize(original, self, callback, args, kwargs)


@contextlib.contextmanager
def _watch_optimize(spy: _OptimizeSpy) -> Iterator[None]:
    """Route this thread's ``Model.optimize`` calls through ``spy``; always unpatch afterwards.

    The patch is process-wide, but other threads fall through to the original method, and a
    nested build in the same thread gets its own spy and hands the outer one back on exit.
    """
    global _ORIGINAL_OPTIMIZE
    tid = threading.get_ident()
    with _SPY_LOCK:
        if not _SPIES:
            _ORIGINAL_OPTIMIZE = gp.Model.optimize
            gp.Model.optimize = _spying_optimize  # type: ignore[method-assign]
        outer = _SPIES.get(tid)
        _SPIES[tid] = spy
    try:
        yield
    finally:
        with _SPY_LOCK:
            if outer is None:
                del _SPIES[tid]
            else:
                _SPIES[tid] = outer
            if not _SPIES and _ORIGINAL_OPTIMIZE is not None:
                gp.Model.optimize = _ORIGINAL_OPTIMIZE  # type: ignore[method-assign]
                _ORIGINAL_OPTIMIZE = None


def apply_caps(model: gp.Model, *, time_limit: float | None, threads: int | None) -> None:
    """Tighten (never loosen) the candidate's own thread count and time limit."""
    if threads is not None:
        own = int(model.Params.Threads)
        if own <= 0 or own > threads:
            model.Params.Threads = threads
    if time_limit is not None:
        model.Params.TimeLimit = min(float(model.Params.TimeLimit), time_limit)


def candidate_traceback(exc: BaseException, code: str) -> str:
    """The exception with only the candidate's own frames, capped so that reports stay small."""
    lines = code.splitlines()
    frames = [fr for fr in traceback.extract_tb(exc.__traceback__) if fr.filename == CANDIDATE_FILE]
    parts = []
    for fr in frames:
        lineno = fr.lineno or 0
        source = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
        parts.append(f"  line {lineno}, in {fr.name}: {source}")
    parts.append("".join(traceback.format_exception_only(type(exc), exc)).strip())
    text = "\n".join(parts)
    return text if len(text) <= _TRACEBACK_CAP else "..." + text[-_TRACEBACK_CAP:]


def _failure_for(
    exc: BaseException, code: str, where: str, *, size_limited: bool = False
) -> VerificationFailure:
    """Classify an exception from candidate code; a size-limit error seen earlier wins, because
    scripts often catch the GurobiError and fail later for an unrelated-looking reason.

    Only a size-limit error that Gurobi itself raised counts (``size_limited``: seen by the optimize
    spy, or raised by our own optimize call). Anyone can construct ``GurobiError(10010, ...)``, and
    a broken script that raised one would otherwise be scored as "too large for our licence" (no
    reward at all) instead of as a failed build."""
    if size_limited:
        return VerificationFailure(ErrorKind.SIZE_LIMITED_LICENCE, f"{where}: {exc}")
    if isinstance(exc, MemoryError):
        return VerificationFailure(ErrorKind.MEMORY_LIMIT, f"{where}: out of memory")
    return VerificationFailure(ErrorKind.BUILD_ERROR, f"{where}:\n{candidate_traceback(exc, code)}")


def _call_capturing_locals(func: Callable[[], object]) -> tuple[object, dict[str, object]]:
    """Call ``func()`` and keep its local variables as they were when it returned.

    Scripts may define ``node_ids`` / ``id2idx`` inside ``build_model``; they vanish with its
    frame, so a tracer is attached to that one frame only (line events off, so loops in the
    body cost nothing extra). Any tracer already installed (coverage, debugger) is chained.

    The first call after the tracer goes in is ``func``'s own frame; only that one is looked at.
    Every other call the model building makes (thousands) passes straight through: reading
    ``frame.f_code`` is an audited event, and under the sandbox's audit hook checking it on
    every call cost several percent of a verification.
    """
    code = getattr(func, "__code__", None)
    captured: dict[str, object] = {}
    if not isinstance(code, types.CodeType):
        return func(), captured
    previous = sys.gettrace()
    first = [True]

    def on_frame_event(frame: types.FrameType, event: TraceEvent, arg: object) -> Any:
        if event == "return":
            captured.update(frame.f_locals)
        return on_frame_event

    def on_call(frame: types.FrameType, event: TraceEvent, arg: object) -> Any:
        if first[0]:
            first[0] = False
            if frame.f_code is code:
                frame.f_trace_lines = False
                return on_frame_event
        return previous(frame, event, arg) if previous is not None else None

    sys.settrace(on_call)
    try:
        result = func()
    finally:
        sys.settrace(previous)
    return result, captured


def _compile(code: str) -> types.CodeType:
    try:
        return compile(code, CANDIDATE_FILE, "exec")
    except SyntaxError as exc:
        raise VerificationFailure(ErrorKind.SYNTAX_ERROR, f"line {exc.lineno}: {exc.msg}") from None
    except ValueError as exc:  # e.g. null bytes in the source
        raise VerificationFailure(ErrorKind.SYNTAX_ERROR, str(exc)) from None


def build_candidate(code: str, *, time_limit: float | None = None, threads: int | None = 1) -> BuiltCandidate:
    """Execute a candidate script and return its optimized model, or raise a classified failure.

    ``time_limit`` and ``threads`` cap every solve the candidate starts (its own settings win
    only where they are tighter). A model the candidate returns without optimizing is optimized
    here, with its captured callback, so that its status is always known.
    """
    compiled = _compile(code)
    module_name = f"vrpcoder_candidate_{uuid.uuid4().hex}"
    module = types.ModuleType(module_name)
    module.__file__ = CANDIDATE_FILE
    namespace = module.__dict__
    spy = _OptimizeSpy(time_limit=time_limit, threads=threads)
    started = time.perf_counter()
    sys.modules[module_name] = module
    try:
        with _watch_optimize(spy):
            try:
                exec(compiled, namespace)
            except (Exception, SystemExit) as exc:
                raise _failure_for(
                    exc, code, "error while importing the script", size_limited=spy.size_limited
                ) from None
            build_model = namespace.get("build_model")
            if not callable(build_model):
                raise VerificationFailure(
                    ErrorKind.MISSING_BUILD_MODEL, "the script defines no callable build_model()"
                )
            try:
                result, local_vars = _call_capturing_locals(build_model)
            except (Exception, SystemExit) as exc:
                raise _failure_for(exc, code, "build_model() raised", size_limited=spy.size_limited) from None
        if spy.size_limited:
            raise VerificationFailure(
                ErrorKind.SIZE_LIMITED_LICENCE, "the model exceeds the size-limited Gurobi licence"
            )
        if not isinstance(result, gp.Model):
            raise VerificationFailure(
                ErrorKind.NOT_A_MODEL, f"build_model() returned {type(result).__name__}, not a gurobipy.Model"
            )
        _require_alive(result)
        callback = spy.callbacks.get(id(result))
        if id(result) not in spy.optimized:
            _optimize_ourselves(result, callback, code, time_limit=time_limit, threads=threads)
    finally:
        sys.modules.pop(module_name, None)
    merged = dict(namespace)
    merged.update(local_vars)
    return BuiltCandidate(
        model=result,
        callback=callback,
        namespace=merged,
        build_seconds=time.perf_counter() - started,
    )


def _require_alive(model: gp.Model) -> None:
    """A model freed before it was returned (``dispose()``, or built inside ``with gp.Model() as m``)
    is a common slip, not a fault of the verifier that reads it next."""
    try:
        model.getAttr("NumVars")
    except gp.GurobiError as exc:
        raise VerificationFailure(
            ErrorKind.NOT_A_MODEL, f"build_model() returned a model that can no longer be read ({exc})"
        ) from None


def _optimize_ourselves(
    model: gp.Model, callback: Callback | None, code: str, *, time_limit: float | None, threads: int | None
) -> None:
    try:
        apply_caps(model, time_limit=time_limit, threads=threads)
        model.optimize(callback)
    except Exception as exc:
        # gurobipy swallows what a callback raises, so an error out of this call is Gurobi's own
        genuine = isinstance(exc, gp.GurobiError) and exc.errno == SIZE_LIMIT_ERRNO
        raise _failure_for(exc, code, "optimizing the returned model failed", size_limited=genuine) from None

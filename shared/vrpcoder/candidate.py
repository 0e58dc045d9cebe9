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
import re
import sys
import threading
import time
import traceback
import types
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import gurobipy as gp
import numpy as np
from gurobipy import GRB
from pydantic import BaseModel, ConfigDict

from vrpcoder.errors import ErrorKind, VerificationError, VerificationFailure

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
    bound: float | None = None
    """The MIP's best bound (``ObjBound``); None for a continuous or multi-objective model."""
    gap: float | None = None
    """The relative gap reached (``MIPGap`` attribute), alongside ``bound``."""
    minimize: bool = True


def model_outcome(model: gp.Model) -> Outcome:
    """Status and objective read from the model object, the only trustworthy source."""
    has_solution = model.SolCount > 0
    bound, gap = _bound_and_gap(model) if has_solution else (None, None)
    return Outcome(
        status=status_name(model.Status),
        objective=primary_objective(model) if has_solution else None,
        has_solution=has_solution,
        bound=bound,
        gap=gap,
        minimize=int(model.ModelSense) != GRB.MAXIMIZE,
    )


def _bound_and_gap(model: gp.Model) -> tuple[float | None, float | None]:
    """A single-objective MIP's bound and gap; (None, None) where Gurobi has none to give."""
    if int(model.NumObj) > 1 or not int(model.IsMIP):
        return None, None
    try:
        bound = float(model.ObjBound)
    except (gp.GurobiError, AttributeError):
        return None, None
    try:
        gap: float | None = float(model.MIPGap)
    except (gp.GurobiError, AttributeError):
        gap = None
    return bound, gap


def bound_admits(outcome: Outcome, reference: float, tolerance: float) -> bool:
    """Whether the solve stopped short of a proof and its bound still allows the reference: the
    objective is off by more than ``tolerance``, but the reference lies between the bound and the
    objective (minimisation: ObjBound <= reference <= ObjVal; mirrored for maximisation)."""
    if outcome.objective is None or outcome.bound is None:
        return False
    if abs(outcome.objective - reference) <= tolerance:
        return False
    low, high = (outcome.bound, outcome.objective) if outcome.minimize else (outcome.objective, outcome.bound)
    return low - tolerance <= reference <= high + tolerance


def continue_solve(model: gp.Model, callback: Callback | None, time_limit: float, threads: int | None) -> Outcome:
    """Continue the candidate's solve with its gap closed (``MIPGap`` 0) for at most ``time_limit``
    seconds, with the callback it optimized with (its lazy cuts are part of its model), and read
    the outcome again. The parameters it changes are put back afterwards. The call may run the
    candidate's code (its callback): the sandbox runs it through its isolation."""
    saved = {name: model.getParamInfo(name)[2] for name in ("MIPGap", "MIPGapAbs", "TimeLimit")}
    try:
        model.Params.MIPGap = 0.0
        model.Params.MIPGapAbs = 0.0
        model.Params.TimeLimit = time_limit
        apply_caps(model, time_limit=None, threads=threads)
        model.optimize(callback)
        return model_outcome(model)
    finally:
        for name, value in saved.items():
            model.setParam(name, value)


def primary_objective(model: gp.Model) -> float:
    """The value the statement's objective corresponds to.

    For a multi-objective model Gurobi's ``ObjVal`` is objective 0 alone, unweighted; a script
    that blends cost terms as several objectives of one priority means their weighted sum, and a
    hierarchical one means its highest priority (blended the same way when shared).
    """
    count = int(model.NumObj)
    if count <= 1:
        return float(model.ObjVal)
    saved = int(model.Params.ObjNumber), int(model.Params.SolutionNumber)
    model.Params.SolutionNumber = 0  # ObjNVal is read off this solution: the best, not whichever the script last looked at
    terms: list[tuple[int, float, float]] = []
    for number in range(count):
        model.Params.ObjNumber = number
        terms.append((int(model.ObjNPriority), float(model.ObjNWeight), float(model.ObjNVal)))
    model.Params.ObjNumber, model.Params.SolutionNumber = saved
    top = max(priority for priority, _, _ in terms)
    return sum(weight * value for priority, weight, value in terms if priority == top)


# ---- the script's own objects, read while its code may still run -------------------------------


def label(value: object) -> str:
    """A node id as the text it is compared by (an exact ``str``: a subclass would run its own
    ``__eq__`` and ``__hash__`` wherever the label is looked up later)."""
    return str.__str__(str(value)).strip()


def _position(value: object, what: str) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise VerificationFailure(ErrorKind.INDEX_MISMATCH, f"{what} holds a non-integer position {value!r}")
    return int.__int__(int(value))  # type: ignore[arg-type]


class NodeTable(BaseModel):
    """The script's id -> position table (``id2idx``, else ``idx2id``, else ``node_ids``) as plain
    data, or why it could not be read; ``table`` None when the script defines none."""

    model_config = ConfigDict(frozen=True)

    table: dict[str, int] | None = None
    error: VerificationError | None = None


def read_node_table(namespace: Mapping[str, object]) -> NodeTable:
    """Copy the script's node-id table. Reading the script's objects runs the script's code (a dict
    subclass's ``items``, a key's ``__str__``), so it happens during the build, never later."""
    try:
        return NodeTable(table=_node_table(namespace))
    except VerificationFailure as failure:
        return NodeTable(error=failure.error)
    except Exception as exc:  # noqa: BLE001 - the table is the script's object; reading it runs its code
        detail = f"the script's node-id table could not be read ({type(exc).__name__})"
        return NodeTable(error=VerificationError(kind=ErrorKind.INDEX_MISMATCH, detail=detail))


def _node_table(namespace: Mapping[str, object]) -> dict[str, int] | None:
    id2idx = namespace.get("id2idx")
    if isinstance(id2idx, Mapping):
        return {label(k): _position(v, "id2idx") for k, v in id2idx.items()}
    idx2id = namespace.get("idx2id")
    if isinstance(idx2id, Mapping):
        return {label(v): _position(k, "idx2id") for k, v in idx2id.items()}
    node_ids = namespace.get("node_ids")
    if isinstance(node_ids, Sequence) and not isinstance(node_ids, str):
        table = {label(b): i for i, b in enumerate(node_ids)}
        if len(table) != len(node_ids):
            raise VerificationFailure(ErrorKind.INDEX_MISMATCH, "node_ids contains the same id twice")
        return table
    return None


PythonVariable = tuple[tuple[tuple[str, ...], gp.Var], ...]
"""(index tokens, variable) pairs of the script's Python variable ``x``."""


def read_python_variable(model: gp.Model, value: object) -> PythonVariable:
    """The script's ``x`` as (index tokens, variable) pairs, or () when it is not an arc variable
    of ``model``: only a dict (``tupledict`` included) from integer index tuples, or an array of
    the matrix API, of variables of this model. Read during the build, like the node table."""
    try:
        model.update()
        live = model.getVars()

        def belongs(var: gp.Var) -> bool:
            index = var.index
            return 0 <= index < len(live) and live[index].sameAs(var)

        if isinstance(value, gp.MVar):
            raw = _array_entries(value.tolist(), ())
        elif isinstance(value, dict):
            entries = list(dict.items(value))
            if not all(_arc_key(key) and type(var) is gp.Var for key, var in entries):
                return ()
            raw = [(tuple(str(int.__int__(int(token))) for token in key), var) for key, var in entries]
        else:
            return ()
        return tuple(raw) if all(belongs(var) for _, var in raw) else ()
    except Exception:  # noqa: BLE001 - reading the script's object runs its code; unreadable means no match
        return ()


def _arc_key(key: object) -> bool:
    return type(key) is tuple and all(type(token) is int or isinstance(token, np.integer) for token in key)


def _array_entries(nested: object, prefix: tuple[str, ...]) -> list[tuple[tuple[str, ...], gp.Var]]:
    """The variables of an MVar's nested lists, keyed by their array positions."""
    if type(nested) is gp.Var:
        return [(prefix, nested)] if prefix else []
    if type(nested) is not list:
        return []
    found: list[tuple[tuple[str, ...], gp.Var]] = []
    for position, item in enumerate(nested):
        entries = _array_entries(item, (*prefix, str(position)))
        if not entries:
            return []
        found += entries
    return found


@dataclass(frozen=True)
class BuiltCandidate:
    """A candidate's model after its own ``build_model`` ran, with what INJ needs to reuse it.

    Everything the verifier needs of the script's own objects (its node table, its Python ``x``,
    the model's outcome) is read here, during the build: in the sandbox the build runs on a thread
    of the candidate's own, and whatever code those objects carry runs there, not later on the
    verifier's thread. ``namespace`` is kept for tools and tests; the verifier never reads it.
    """

    model: gp.Model
    callback: Callback | None
    """The callback the candidate optimized with (its lazy cuts are part of its model)."""
    namespace: dict[str, object]
    """The script's module globals overlaid with ``build_model``'s final locals."""
    build_seconds: float
    outcome: Outcome
    node_table: NodeTable
    python_x: PythonVariable


@dataclass
class _OptimizeSpy:
    """Per-build record of the optimize calls made by one candidate (one thread)."""

    time_limit: float | None
    threads: int | None
    callbacks: dict[int, Callback] = field(default_factory=dict)
    optimized: set[int] = field(default_factory=set)
    keep_alive: list[gp.Model] = field(default_factory=list)
    """Strong references, so that ``id()`` keys cannot be reused by another model mid-build."""
    size_limited: set[int] = field(default_factory=set)
    """Models whose solve the licence refused as too large."""
    size_errors: list[gp.GurobiError] = field(default_factory=list)
    """The refusals themselves, as Gurobi raised them."""

    def caused_by_size_limit(self, exc: BaseException) -> bool:
        """Whether ``exc`` is one of the licence's refusals, or was raised while handling one
        (``raise ... from``, or a failure inside the ``except`` block). A refusal the script
        caught and left behind says nothing about why it failed later: a throwaway model solved
        only to be refused would otherwise turn any failure into "no reward" instead of a low one."""
        seen: list[BaseException] = []
        current: BaseException | None = exc
        while current is not None and len(seen) < 50 and not any(current is s for s in seen):
            if any(current is error for error in self.size_errors):
                return True
            seen.append(current)
            current = current.__cause__ or current.__context__
        return False

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
                self.size_limited.add(key)
                self.size_errors.append(exc)
            raise


_SPIES: dict[int, _OptimizeSpy] = {}
_SPY_LOCK = threading.Lock()
_ORIGINAL_OPTIMIZE: Callable[..., None] | None = None
_FOR_GOOD: list[bool] = [False]
"""Whether the spy stays installed between builds (``watch_optimize_for_good``); a list, so that
setting it writes no module global."""


def watch_optimize_for_good() -> None:
    """Install the optimize spy once and for all (the sandbox's supervisor does, before its
    integrity snapshot). A build then writes no namespace of ours or of gurobipy's, so the sandbox
    can take any such write during the candidate's call as the candidate's."""
    global _ORIGINAL_OPTIMIZE
    with _SPY_LOCK:
        if _ORIGINAL_OPTIMIZE is None:
            _ORIGINAL_OPTIMIZE = gp.Model.optimize
            gp.Model.optimize = _spying_optimize  # type: ignore[method-assign]
        _FOR_GOOD[0] = True


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
    """Route this thread's ``Model.optimize`` calls through ``spy``; unpatch afterwards (unless the
    spy is installed for good).

    The patch is process-wide, but other threads fall through to the original method, and a
    nested build in the same thread gets its own spy and hands the outer one back on exit.
    """
    global _ORIGINAL_OPTIMIZE
    tid = threading.get_ident()
    with _SPY_LOCK:
        if not _SPIES and _ORIGINAL_OPTIMIZE is None:
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
            if not _SPIES and _ORIGINAL_OPTIMIZE is not None and not _FOR_GOOD[0]:
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
    """Classify an exception from candidate code; ``size_limited`` (the failure is, or came out of
    handling, a size-limit refusal) wins over the exception's own kind, because scripts often
    catch the GurobiError and fail for an unrelated-looking reason while handling it.

    Only a size-limit error that Gurobi itself raised counts (seen by the optimize spy, or raised
    by our own optimize call). Anyone can construct ``GurobiError(10010, ...)``, and
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


def build_candidate(code: str, time_limit: float | None = None, threads: int | None = 1) -> BuiltCandidate:
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
                    exc, code, "error while importing the script", size_limited=spy.caused_by_size_limit(exc)
                ) from None
            build_model = namespace.get("build_model")
            if not callable(build_model):
                raise VerificationFailure(
                    ErrorKind.MISSING_BUILD_MODEL, "the script defines no callable build_model()"
                )
            try:
                result, local_vars = _call_capturing_locals(build_model)
            except (Exception, SystemExit) as exc:
                raise _failure_for(
                    exc, code, "build_model() raised", size_limited=spy.caused_by_size_limit(exc)
                ) from None
        if id(result) in spy.size_limited:
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
    node_table = read_node_table(merged)
    _require_alive(result)
    outcome, names = _read_outcome(result)
    pattern = routing_name_pattern("x")
    named = any(pattern.match(name) for name in names)
    python_x = () if named else read_python_variable(result, merged.get("x"))  # only read when names fail
    _require_alive(result)
    return BuiltCandidate(
        model=result,
        callback=callback,
        namespace=merged,
        build_seconds=time.perf_counter() - started,
        outcome=outcome,
        node_table=node_table,
        python_x=python_x,
    )


def routing_name_pattern(name: str) -> re.Pattern[str]:
    """How a variable of the routing variable ``name`` is named in the model: ``name[<index>]``."""
    return re.compile(rf"^{re.escape(name)}\[(.*)\]$")


def _read_objective_names(model: gp.Model) -> None:
    """INJ sets a multi-objective model's objectives aside and puts them back, names included."""
    count = int(model.NumObj)
    if count <= 1:
        return
    saved = int(model.Params.ObjNumber)
    try:
        for number in range(count):
            model.Params.ObjNumber = number
            model.getAttr("ObjNName")
    finally:
        model.Params.ObjNumber = saved


def _read_outcome(model: gp.Model) -> tuple[Outcome, list[str]]:
    """The model's outcome and its variable names, and a check that gurobipy can read its other
    names (the verifier reads them to find ``x`` and its own rows): a model it cannot read is the
    script's fault, said now. The outcome is read before the update that the names need."""
    try:
        outcome = model_outcome(model)
        model.update()
        variables = model.getVars()
        names: list[str] = model.getAttr("VarName", variables) if variables else []
        model.getAttr("ConstrName", model.getConstrs())
        _read_objective_names(model)
    except (gp.GurobiError, AttributeError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        raise VerificationFailure(
            ErrorKind.NOT_A_MODEL, f"build_model() returned a model that cannot be read ({type(exc).__name__}: {exc})"
        ) from None
    return outcome, names


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

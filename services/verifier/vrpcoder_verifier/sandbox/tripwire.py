"""Tripwires inside the candidate's process: an audit hook and an integrity snapshot.

The candidate's code runs in the same interpreter as the verifier that judges it (INJ needs the
candidate's own model and callbacks), so nothing in that process is a security boundary; the
namespaces and rlimits around it are. What this module adds is *detection* of the routes by which
a candidate would subvert its own verdict, each reported to the supervisor the moment it happens
(a report that cannot be taken back) and then, for the dangerous ones, refused:

* memory introspection (``gc.get_objects`` / ``get_referrers`` / ``get_referents``,
  ``sys._current_frames``), profilers, tracers and audit hooks other than the verifier's own,
  reassigned ``__code__`` / ``__defaults__`` / ``__class__`` of the verifier's code, ``ctypes``,
  native extension modules loaded from outside the interpreter's own directories, ``/proc``
  (``/proc/self/mem`` rewrites the interpreter) and writes outside the scratch directory:
  reported and refused;
* new processes, signals and sockets: reported and allowed (the namespaces contain them; the
  verdict is a violation either way, and the supervisor kills every process the job left);
* monkeypatching of gurobipy, the verifier or the builtins (e.g. ``Model.Status`` replaced by a
  property), shadowing attributes on the returned model, a subclass of ``Model`` and threads
  left running: found by comparing against a snapshot taken before the candidate ran.

Frame walking (``sys._getframe().f_back`` is not an audited event, and ``collections.namedtuple``
needs ``sys._getframe``) is not refused here: the candidate's code runs on threads of its own
(``isolation``), where no frame of the verifier's is above it.
"""

from __future__ import annotations

import _thread
import ctypes
import gc
import operator
import os
import sys
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.machinery import EXTENSION_SUFFIXES

import gurobipy as gp
from vrpcoder import candidate as candidate_module

WATCHED_PACKAGES: tuple[str, ...] = (
    "gurobipy",
    "vrpcoder",
    "vrpcoder_verifier.sandbox.child",
    "vrpcoder_verifier.sandbox.protocol",
    "vrpcoder_verifier.sandbox.outcomes",
    "vrpcoder_verifier.sandbox.tripwire",
    "pydantic.main",
    "builtins",
    "os",
    "math",
    "_thread",
    "time",
    "re",
    "traceback",
    "functools",
    "collections",
    "enum",
    "json",
    "struct",
    "itertools",
    "operator",
    "dataclasses",
    "contextlib",
)
"""Modules whose namespaces (and classes) the verifier's code in the child relies on once the
candidate has run. Every entry checked costs the child a copy-on-write page, so this is the
list of what is *used*, not of everything imported: of pydantic only ``BaseModel``'s module (the
models the verifier builds are vrpcoder classes, watched with all their pydantic machinery), the
standard modules the verifier calls into (a ``time.perf_counter`` replaced by a builtin that
raises would make the verifier fail with no frame of the candidate's on the way: our fault, on
the face of it); not ``threading`` (a fork legitimately replaces its locks in the child) and not
``sys`` (scripts legitimately swap ``sys.stdout``)."""

LAZY_NAMES = frozenset({"_defaultenv"})
"""Names set on first use by the libraries themselves (gurobipy's default environment, created
by the first ``Model()`` of each child), so not comparable with the snapshot."""

BLOCKED_EVENTS = frozenset(
    {
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "sys._current_frames",
        "sys.setprofile",
        "sys.addaudithook",
    }
)
"""Refused outright. ``sys.addaudithook`` among them: a hook of the candidate's would run inside
the verifier at every audited event after the build (re-arming what was just put back, say)."""
BEHAVIOUR_ATTRIBUTES = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__class__"})
"""Attributes whose assignment changes what an existing object *does* while it stays the same
object: the integrity check compares identities, so swapping the code of a verifier function
the child holds would go unseen. Refused on functions and objects of the watched modules only:
libraries the candidate imports (scipy, through gurobipy's matrix API) set ``__defaults__`` on
their own functions."""
RECORDED_EVENTS = frozenset(
    {
        "os.fork",
        "os.forkpty",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "subprocess.Popen",
        "pty.spawn",
        "os.kill",
        "os.killpg",
        "signal.pthread_kill",
        "socket.connect",
        "socket.bind",
        "socket.sendto",
        "socket.sendmsg",
    }
)
_IMMUTABLE_TYPE = 1 << 8
"""Py_TPFLAGS_IMMUTABLETYPE: built-in and extension types whose attributes cannot be set at all."""
_CHECKED_EVENTS = BLOCKED_EVENTS | RECORDED_EVENTS | {"sys.settrace", "import", "open", "object.__setattr__"}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_DEVICES_OK = ("/dev/null",)


class Blocked(PermissionError):
    """Raised into candidate code that tried something the verifier sandbox refuses."""


def _is_within(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _open_is_write(mode: object, flags: object) -> bool:
    if isinstance(mode, str):
        return any(c in mode for c in "wax+")
    return isinstance(flags, int) and bool(flags & _WRITE_FLAGS)


def make_hook(
    report: Callable[[str], None],
    *,
    native_roots: tuple[str, ...],
    writable_roots: tuple[str, ...],
    own_tracer: types.CodeType,
) -> Callable[[str, tuple[object, ...]], None]:
    """The audit hook; ``report`` is called once per offending event before it is refused.

    Everything the hook needs is bound here, before the candidate runs, so that patching a
    module afterwards does not change how the hook behaves.
    """
    realpath = os.path.realpath
    fsdecode = os.fsdecode
    getframe = sys._getframe
    checked = _CHECKED_EVENTS
    blocked = BLOCKED_EVENTS
    recorded = RECORDED_EVENTS
    rewritten = BEHAVIOUR_ATTRIBUTES
    extension_suffixes = tuple(EXTENSION_SUFFIXES)

    function_type = types.FunctionType
    globals_of = types.FunctionType.__globals__.__get__  # type: ignore[attr-defined]
    dict_get = dict.get
    type_attribute = type.__getattribute__
    watched = _watched

    def module_of(owner: object) -> object:
        """The module of a function or of an object's class, read without running its code."""
        if type(owner) is function_type:
            return dict_get(globals_of(owner), "__name__")
        return type_attribute(type(owner), "__module__")

    def owned_by_watched(owner: object) -> bool:
        module = module_of(owner)
        return type(module) is str and watched(module)

    def refuse(event: str, detail: str) -> None:
        report(f"{event}: {detail}" if detail else event)
        raise Blocked(f"refused by the verifier sandbox: {event}")

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event not in checked:
            if event.startswith("ctypes."):
                refuse(event, "")
            return
        if event in blocked:
            refuse(event, "")
        elif event in recorded:
            report(f"{event}: {str(args)[:200]}")
        elif event == "object.__setattr__":
            name = args[1] if len(args) > 1 else None
            if type(name) is not str:  # a str subclass would run its own __eq__ here
                refuse(event, f"an attribute named by a {type(name).__name__}")
            elif name in rewritten and owned_by_watched(args[0]):
                refuse(event, f"{name} of {module_of(args[0])} code reassigned")
        elif event == "sys.settrace":
            caller = getframe(1)
            if caller.f_code is not own_tracer:
                refuse(event, "only the verifier may trace")
        elif event == "import":
            filename = args[1] if len(args) > 1 else None
            if (
                isinstance(filename, str)
                and filename.endswith(extension_suffixes)
                and not _is_within(realpath(filename), native_roots)
            ):
                refuse(event, f"native module from {filename}")
        elif event == "open":
            path = args[0]
            if isinstance(path, int):
                return
            if not isinstance(path, str | bytes | os.PathLike):
                return
            resolved = realpath(fsdecode(path))
            if _is_within(resolved, ("/proc",)):
                refuse(event, resolved)
            mode = args[1] if len(args) > 1 else None
            flags = args[2] if len(args) > 2 else None
            if _open_is_write(mode, flags) and not _is_within(resolved, writable_roots + _DEVICES_OK):
                refuse(event, f"write outside the scratch directory: {resolved}")

    return hook


_DICT_VERSION_OFFSET = 3 * ctypes.sizeof(ctypes.c_ssize_t)
"""Where CPython keeps a dict's version tag (PEP 509): after the object header and ``ma_used``."""


def _version_reader(space: object) -> ctypes.c_uint64:
    return ctypes.c_uint64.from_address(id(space) + _DICT_VERSION_OFFSET)


def dict_versions_work() -> bool:
    """Whether this interpreter keeps PEP 509 version tags where we read them: a modified dict
    must show a new tag, an untouched one the same. Without them every entry is compared."""
    if sys.implementation.name != "cpython":
        return False
    probe: dict[str, object] = {"a": 1}
    reader = _version_reader(probe)
    before = reader.value
    probe["a"] = 2
    changed = reader.value
    _ = probe["a"]
    return changed != before and reader.value == changed


def _real_dict(owner: object) -> dict[str, object] | None:
    """The dict behind ``vars(owner)`` (a class's is wrapped in a read-only proxy)."""
    try:
        space = vars(owner)
    except TypeError:
        return None
    if isinstance(space, dict):
        return space
    inner = [ref for ref in gc.get_referents(space) if isinstance(ref, dict)]
    return inner[0] if len(inner) == 1 else None


@dataclass(frozen=True, slots=True)
class _Namespace:
    owner: object
    names: tuple[str, ...]
    values: tuple[object, ...]
    is_class: bool
    """New names count for classes (a ``Status`` property shadows the model's attribute lookup);
    for modules they do not (importing a submodule adds one)."""
    version: ctypes.c_uint64 | None
    """Reads the namespace dict's version tag; unchanged means nothing in it was written."""
    stamp: int


def _watched(name: str) -> bool:
    return any(name == root or name.startswith(root + ".") for root in WATCHED_PACKAGES)


def snapshot_namespaces(modules: Iterable[types.ModuleType], *, use_versions: bool) -> tuple[_Namespace, ...]:
    """Every name in the watched modules and in the (watched) classes reachable from them."""
    found: list[_Namespace] = []
    seen: set[int] = set()
    pending: list[object] = list(modules)
    while pending:
        owner = pending.pop()
        if id(owner) in seen:
            continue
        seen.add(id(owner))
        real = _real_dict(owner)
        if real is None:
            continue
        space = {name: value for name, value in real.items() if name not in LAZY_NAMES}
        version = _version_reader(real) if use_versions else None
        found.append(
            _Namespace(
                owner=owner,
                names=tuple(space),
                values=tuple(space.values()),
                is_class=isinstance(owner, type),
                version=version,
                stamp=version.value if version is not None else 0,
            )
        )
        pending.extend(
            value
            for value in space.values()
            if isinstance(value, type)
            and not value.__flags__ & _IMMUTABLE_TYPE
            and _watched(getattr(value, "__module__", "") or "")
        )
    return tuple(found)


def watched_modules() -> list[types.ModuleType]:
    return [m for name, m in list(sys.modules.items()) if isinstance(m, types.ModuleType) and _watched(name)]


_MISSING = object()
_MODEL_OWN = frozenset({"Params", "params"})
"""Public names gurobipy itself caches on a model instance (its parameter proxy)."""


def _param_class() -> type | None:
    """gurobipy's parameter proxy class (private module; None when a gurobipy release moves it)."""
    found = getattr(sys.modules.get("gurobipy._core"), "ParamClass", None)
    return found if isinstance(found, type) else None


@dataclass(frozen=True, slots=True)
class _Tools:
    """Builtins the check uses, bound when the snapshot is taken: patching ``builtins.vars``
    afterwards must not blind the check that would notice it."""

    namespace_of: Callable[[object], dict[str, object]]
    type_of: Callable[[object], type]
    sort: Callable[..., list[str]]
    modules: dict[str, types.ModuleType]
    thread_count: Callable[[], int]
    model_class: type
    is_: Callable[[object, object], bool]
    param_class: type | None
    dict_items: Callable[[dict[str, object]], Iterable[tuple[str, object]]]
    startswith: Callable[[str, str], bool]
    contains: Callable[[frozenset[str], str], bool]


@dataclass(frozen=True, slots=True)
class Guard:
    """The state to compare against once the candidate's code has had its turn.

    Taken once in the warm supervisor and inherited by every child. Checking touches what it
    reads, and in a forked child every object touched costs a copy-on-write page; so where the
    interpreter keeps dict version tags, a namespace whose tag is unchanged is skipped without
    reading any of its entries, and only the few that were written (the verifier's own
    optimize spy writes two) are compared entry by entry.
    """

    namespaces: tuple[_Namespace, ...]
    modules: tuple[tuple[str, types.ModuleType], ...]
    modules_version: ctypes.c_uint64 | None
    modules_stamp: int
    threads: int
    tools: _Tools

    @classmethod
    def take(cls) -> Guard:
        modules = watched_modules()
        use_versions = dict_versions_work()
        tools = _Tools(
            namespace_of=vars, type_of=type, sort=sorted, modules=sys.modules, thread_count=_thread._count, model_class=gp.Model,
            is_=operator.is_,
            param_class=_param_class(),
            dict_items=dict.items,
            startswith=str.startswith,
            contains=frozenset.__contains__,
        )
        modules_version = _version_reader(sys.modules) if use_versions else None
        return cls(
            namespaces=snapshot_namespaces(modules, use_versions=use_versions),
            modules=tuple((m.__name__, m) for m in modules),
            modules_version=modules_version,
            modules_stamp=modules_version.value if modules_version is not None else 0,
            threads=tools.thread_count(),
            tools=tools,
        )

    def problems(self, model: object | None) -> list[str]:
        """What changed since the snapshot, as readable findings (empty when nothing did).

        ``model`` is what ``build_model`` returned (None when the build failed). It is looked at
        first and only through exact types: a key of its ``__dict__`` that is a ``str`` subclass
        would otherwise run the candidate's code (``startswith``, ``__eq__``) inside this check,
        after the namespaces had been found clean.
        """
        tools = self.tools
        found: list[str] = []
        if model is not None:
            found += self._model_problems(model)
        for space in self.namespaces:
            if space.version is not None and space.version.value == space.stamp:
                continue
            namespace = tools.namespace_of(space.owner)
            get = namespace.get
            current = [get(name, _MISSING) for name in space.names]
            label = getattr(space.owner, "__qualname__", None) or getattr(space.owner, "__name__", "?")
            if not all(map(tools.is_, current, space.values)):
                changed = [n for n, now, then in zip(space.names, current, space.values, strict=True) if now is not then]
                found.append(f"{label}.{', '.join(changed[:5])} replaced")
            if space.is_class and len(namespace) != len(space.names):
                added = tools.sort(set(namespace) - set(space.names) - LAZY_NAMES)
                if added:
                    found.append(f"{label}.{', '.join(added[:5])} added")
        if self.modules_version is None or self.modules_version.value != self.modules_stamp:
            for name, module in self.modules:
                if tools.modules.get(name) is not module:
                    found.append(f"sys.modules[{name!r}] was replaced")
        extra = tools.thread_count() - self.threads
        if extra > 0:
            found.append(f"{extra} thread(s) left running after build_model() returned")
        return found


    def stamps(self) -> tuple[int, ...]:
        """The namespaces' version tags now (taken once the build has passed its check)."""
        return tuple(space.version.value if space.version is not None else 0 for space in self.namespaces)

    def written_since(self, stamps: tuple[int, ...]) -> list[str]:
        """Namespaces written at all since ``stamps``, even if every value was put back since.

        After the build has been checked, nothing of ours writes a watched namespace while it
        verifies (measured on every variant's gold script); a write then is the candidate's code
        (a callback, a finaliser, a booby-trapped object the verifier reads) patching the verifier
        for the length of the verification and restoring it before the final check.
        """
        written = [
            getattr(space.owner, "__qualname__", None) or getattr(space.owner, "__name__", "?")
            for space, stamp in zip(self.namespaces, stamps, strict=True)
            if space.version is not None and space.version.value != stamp
        ]
        return [f"written during the verification: {', '.join(written[:5])}"] if written else []

    def _model_problems(self, model: object) -> list[str]:
        tools = self.tools
        if tools.type_of(model) is not tools.model_class:
            return [f"build_model() returned a {tools.type_of(model).__name__}, not gurobipy.Model itself"]
        entries = list(tools.dict_items(tools.namespace_of(model)))
        if not all(tools.is_(tools.type_of(key), str) for key, _ in entries):
            return ["attributes with non-string names set on the model"]
        shadows = tools.sort(
            key
            for key, value in entries
            if not tools.startswith(key, "_")
            and not (tools.contains(_MODEL_OWN, key) and tools.is_(tools.type_of(value), tools.param_class))
        )
        return [f"attributes shadowed on the model: {', '.join(shadows)[:200]}"] if shadows else []


def own_tracer_code() -> types.CodeType:
    """The code object of the only function allowed to install a tracer (the locals capture)."""
    code: types.CodeType = candidate_module._call_capturing_locals.__code__
    return code


def install_hook(
    report: Callable[[str], None], *, native_roots: tuple[str, ...], writable_roots: tuple[str, ...]
) -> None:
    """Install the audit hook (it cannot be removed); call just before the candidate's code runs."""
    sys.addaudithook(
        make_hook(report, native_roots=native_roots, writable_roots=writable_roots, own_tracer=own_tracer_code())
    )

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
import functools
import gc
import operator
import os
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from importlib.machinery import EXTENSION_SUFFIXES

import gurobipy as gp
from vrpcoder import candidate as candidate_module

WATCHED_PACKAGES: tuple[str, ...] = (
    "gurobipy",
    "vrpcoder",
    "vrpcoder_client.verdicts",
    "vrpcoder_verifier.sandbox.child",
    "vrpcoder_verifier.sandbox.protocol",
    "vrpcoder_verifier.sandbox.outcomes",
    "vrpcoder_verifier.sandbox.tripwire",
    "vrpcoder_verifier.sandbox.isolation",
    "pydantic.main",
    "pydantic._internal._model_construction",
    "abc",
    "random",
    "logging",
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
list of what is *used*, not of everything imported (a profile of ``verify_built`` over the variants
lists the Python modules whose code runs on the verifier's thread): of pydantic ``BaseModel``'s
module and its metaclass's (the models the verifier builds are vrpcoder classes, watched with all
their pydantic machinery), ``abc`` (every ``isinstance`` against an abstract class), ``random``
(the order of INJ's queries), ``logging`` (gurobipy logs through it), the standard modules the
verifier calls into (a ``time.perf_counter`` replaced by a builtin that
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
    real: dict[str, object]
    """The dict itself (a class's is behind a read-only proxy), for checks that may not use ``vars``."""
    label: str = "?"
    """How findings name it (read at the snapshot: reading ``__qualname__`` off a module later
    would call a ``__getattr__`` the candidate added to it)."""
    absent: tuple[str, ...] = ()
    """For a module: the global names its code looks up that it does not define (built-ins,
    mostly). A module global of that name would shadow the built-in for all of its code."""


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
        is_module = isinstance(owner, types.ModuleType)
        found.append(
            _Namespace(
                owner=owner,
                names=tuple(space),
                values=tuple(space.values()),
                is_class=not is_module,
                version=version,
                stamp=version.value if version is not None else 0,
                real=real,
                label=str(getattr(owner, "__qualname__", None) or getattr(owner, "__name__", None) or type(owner).__name__),
                absent=_globals_looked_up(owner, real) if is_module else (),
            )
        )
        pending.extend(value for value in space.values() if _followed(value))
    return tuple(found)


_STATEFUL_DESCRIPTORS: tuple[type, ...] = (functools.cached_property,)
"""Descriptors whose behaviour lives in their own attributes (a ``cached_property``'s ``func``,
which the verifier's thread calls): in a watched class, their namespaces are watched too."""


def _followed(value: object) -> bool:
    """A watched class, or a stateful descriptor held by one."""
    if isinstance(value, type):
        return not value.__flags__ & _IMMUTABLE_TYPE and _watched(getattr(value, "__module__", "") or "")
    return type(value) in _STATEFUL_DESCRIPTORS


def _code_objects(space: dict[str, object]) -> Iterator[types.CodeType]:
    """The code of the functions, methods and properties defined in a namespace, nested code too."""
    pending: list[object] = list(space.values())
    seen: set[int] = set()
    while pending:
        value = pending.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, types.CodeType):
            yield value
            pending.extend(const for const in value.co_consts if isinstance(const, types.CodeType))
        elif isinstance(value, types.FunctionType):
            pending.append(value.__code__)
        elif isinstance(value, staticmethod | classmethod):
            pending.append(value.__func__)
        elif isinstance(value, property):
            pending.extend(f for f in (value.fget, value.fset, value.fdel) if f is not None)
        elif isinstance(value, type) and not value.__flags__ & _IMMUTABLE_TYPE:
            pending.extend(vars(value).values())


def _globals_looked_up(module: types.ModuleType, space: dict[str, object]) -> tuple[str, ...]:
    """Names the module's own code may look up as globals and that it does not define (attribute
    names are among them too: harmless, none of them becomes a global of the module)."""
    name = module.__name__
    own = {
        code
        for code in _code_objects(space)
        if code.co_filename == getattr(module, "__file__", None) or name == "builtins"
    }
    names = {n for code in own for n in code.co_names if n not in space and not n.startswith("__")}
    if "__getattr__" not in space:
        names.add("__getattr__")  # would answer every lookup of a name the module lacks
    return tuple(sorted(names))


def watched_modules() -> list[types.ModuleType]:
    return [m for name, m in list(sys.modules.items()) if isinstance(m, types.ModuleType) and _watched(name)]


_MISSING = object()
_LIST_SLOTS = frozenset({"_internal_vars", "_constrs", "_sos", "_qconstrs", "_genconstrs"})
"""gurobipy's caches of wrapper objects on a model: lists (None on a read or copied model)."""


@dataclass(frozen=True, slots=True)
class _Shape:
    """What gurobipy itself keeps in the ``__dict__`` of one of its classes, read off fresh instances.

    gurobipy's methods look up their private helpers (``self._setup()``, ``self._owns(...)``) and
    its state (``self._env``, ``self.Params``) through the instance, so an instance entry named
    like a class attribute, or a state entry of another type, runs whatever the candidate put
    there the next time the verifier calls the method on its own thread. Entries of the script's
    own (``m._x = x``, the idiom for callbacks) are left alone: gurobipy never reads them."""

    cls: type
    class_names: frozenset[str]
    own: dict[str, frozenset[type]]
    """gurobipy's own entries and the exact types their values may have."""


def _shape(cls: type, *instances: object, extra: dict[str, tuple[type, ...]] | None = None) -> _Shape:
    """None is allowed in every state entry: it runs no code, and gurobipy itself sets some to None
    (a disposed environment's handle, a read model's caches), which scripts do as a cleanup habit."""
    own: dict[str, set[type]] = {}
    for instance in instances:
        for key, value in vars(instance).items():
            own.setdefault(key, {type(None)}).add(type(value))
    for key, types_ in (extra or {}).items():
        own.setdefault(key, set()).update(types_)
    return _Shape(cls=cls, class_names=frozenset(dir(cls)), own={k: frozenset(v) for k, v in own.items()})


@dataclass(frozen=True, slots=True)
class _GurobiShapes:
    """The shapes of a model, an environment and a parameter proxy, and the classes whose objects
    gurobipy's wrapper caches may hold (taken with the snapshot, from gurobipy's own modules)."""

    model: _Shape
    env: _Shape
    params: _Shape | None
    wrappers: frozenset[type]

    @classmethod
    def take(cls) -> _GurobiShapes:
        core, model_module = sys.modules.get("gurobipy._core"), sys.modules.get("gurobipy._model")
        param_class = getattr(core, "ParamClass", None)
        callback_class = getattr(model_module, "CallbackClass", None)
        fresh = gp.Model()
        copied = fresh.copy()
        try:
            list_extra = {key: (list,) for key in _LIST_SLOTS}
            callback_extra = {"_callback": (callback_class,)} if isinstance(callback_class, type) else {}
            model = _shape(gp.Model, fresh, copied, extra={**list_extra, **callback_extra})
            env = _shape(type(fresh._env), fresh._env)
            params = _shape(param_class, fresh.Params) if isinstance(param_class, type) else None
        finally:
            copied.dispose()
            fresh.dispose()
        wrappers = frozenset(
            value
            for name, module in list(sys.modules.items())
            if name.startswith("gurobipy") and isinstance(module, types.ModuleType)
            for value in vars(module).values()
            if isinstance(value, type)
        )
        return cls(model=model, env=env, params=params, wrappers=wrappers)


@dataclass(frozen=True, slots=True)
class _Tools:
    """Builtins the check uses, bound when the snapshot is taken: patching ``builtins.vars``
    afterwards must not blind the check that would notice it."""

    namespace_of: Callable[[object], dict[str, object]]
    type_of: Callable[[object], type]
    sort: Callable[..., list[str]]
    modules: dict[str, types.ModuleType]
    thread_count: Callable[[], int]
    is_: Callable[[object, object], bool]
    dict_items: Callable[[dict[str, object]], Iterable[tuple[str, object]]]
    startswith: Callable[[str, str], bool]
    contains: Callable[[frozenset[object], object], bool]
    shapes: _GurobiShapes


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
    untouched: Untouched
    """See ``untouched_check``."""

    @classmethod
    def take(cls) -> Guard:
        modules = watched_modules()
        use_versions = dict_versions_work()
        tools = _Tools(
            namespace_of=vars,
            type_of=type,
            sort=sorted,
            modules=sys.modules,
            thread_count=_thread._count,
            is_=operator.is_,
            dict_items=dict.items,
            startswith=str.startswith,
            contains=frozenset.__contains__,
            shapes=_GurobiShapes.take(),
        )
        modules_version = _version_reader(sys.modules) if use_versions else None
        namespaces = snapshot_namespaces(modules, use_versions=use_versions)
        return cls(
            namespaces=namespaces,
            modules=tuple((m.__name__, m) for m in modules),
            modules_version=modules_version,
            modules_stamp=modules_version.value if modules_version is not None else 0,
            threads=tools.thread_count(),
            tools=tools,
            untouched=untouched_check(namespaces),
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
            found += self.model_problems(model)
        for space in self.namespaces:
            if space.version is not None and space.version.value == space.stamp:
                continue
            namespace = tools.namespace_of(space.owner)
            get = namespace.get
            current = [get(name, _MISSING) for name in space.names]
            label = space.label
            if not all(map(tools.is_, current, space.values)):
                changed = [n for n, now, then in zip(space.names, current, space.values, strict=True) if now is not then]
                found.append(f"{label}.{', '.join(changed[:5])} replaced")
            if space.is_class and len(namespace) != len(space.names):
                added = tools.sort(set(namespace) - set(space.names) - LAZY_NAMES)
                if added:
                    found.append(f"{label}.{', '.join(added[:5])} added")
            shadowing = [name for name in space.absent if name in namespace]
            if shadowing:
                found.append(f"{label}.{', '.join(shadowing[:5])} added (shadowing a built-in)")
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
            space.label
            for space, stamp in zip(self.namespaces, stamps, strict=True)
            if space.version is not None and space.version.value != stamp
        ]
        return [f"written during the verification: {', '.join(written[:5])}"] if written else []

    def model_problems(self, model: object) -> list[str]:
        """The returned model, its environments and its parameter proxy, each against its shape
        (checked after every isolated call too: a callback reaches the model object itself)."""
        tools = self.tools
        shapes = tools.shapes
        if tools.type_of(model) is not shapes.model.cls:
            return [f"build_model() returned a {tools.type_of(model).__name__}, not gurobipy.Model itself"]
        found = self._shape_problems(model, shapes.model, "model")
        if found:
            return found
        state = tools.namespace_of(model)
        for key in ("_env", "_uenv"):
            env = state.get(key)
            if env is not None:
                found += self._shape_problems(env, shapes.env, f"model.{key}")
        for key in ("Params", "params"):
            proxy = state.get(key)
            if proxy is not None and shapes.params is not None:
                found += self._shape_problems(proxy, shapes.params, f"model.{key}")
                env = tools.namespace_of(proxy).get("_ParamClass__env")
                if env is not None and not found:
                    found += self._shape_problems(env, shapes.env, f"model.{key}'s environment")
        for key in _LIST_SLOTS:
            cached = state.get(key)
            if tools.type_of(cached) is list and not all(
                tools.contains(shapes.wrappers, tools.type_of(item)) for item in cached
            ):
                found.append(f"objects of the script's own in gurobipy's cache model.{key}")
        return found

    def _shape_problems(self, instance: object, shape: _Shape, label: str) -> list[str]:
        """Only exact types are looked at: a key of a ``__dict__`` that is a ``str`` subclass would
        otherwise run the candidate's code (``startswith``, ``__eq__``) inside this check."""
        tools = self.tools
        if tools.type_of(instance) is not shape.cls:
            return [f"{label} is a {tools.type_of(instance).__name__}, not gurobipy's {shape.cls.__name__}"]
        entries = list(tools.dict_items(tools.namespace_of(instance)))
        if not all(tools.is_(tools.type_of(key), str) for key, _ in entries):
            return [f"attributes with non-string names set on the {label}"]
        own = shape.own
        replaced = tools.sort(
            key for key, value in entries if key in own and not tools.contains(own[key], tools.type_of(value))
        )
        shadows = tools.sort(
            key
            for key, value in entries
            if key not in own and (tools.contains(shape.class_names, key) or not tools.startswith(key, "_"))
        )
        found = [f"gurobipy's own state replaced on the {label}: {', '.join(replaced)[:200]}"] if replaced else []
        if shadows:
            found.append(f"attributes shadowed on the {label}: {', '.join(shadows)[:200]}")
        return found


Untouched = Callable[[tuple[int, ...] | None], bool]


def untouched_check(namespaces: tuple[_Namespace, ...]) -> Untouched:
    """A check that no watched namespace (builtins included) was written, safe to run on the
    verifier's thread the moment a call of the candidate's code returns, before anything else.

    Until it has passed, nothing may run there that a patched namespace could redirect: the
    verifier's own code looks up builtins, module globals and class attributes at every call, and
    a candidate that replaced one of them (``builtins.len``, ``Reporter.send``) would run its code
    on the verifier's thread, where the report writer is within reach. So the check is a closure
    over plain tuples, bound built-in methods and the dict version tags' C getter: no global, no
    attribute of a class of ours, no built-in name is looked up while it runs.

    ``untouched(None)`` (after the build) compares each namespace written since the snapshot entry
    by entry, as the integrity check does (a write put back is no finding; a class that gained a
    name is); ``untouched(stamps)`` (after a call during the verification) allows no write at all
    since the ``stamps`` of ``Guard.stamps``.
    """
    read = ctypes._SimpleCData.__dict__["value"].__get__
    missing = _MISSING
    entries = tuple(
        (
            space.version,
            space.stamp,
            tuple(zip(space.names, space.values, strict=True)),
            space.real.get,
            space.real.__len__ if space.is_class else None,
            len(space.names),
            len(space.names) + (len(LAZY_NAMES) if LAZY_NAMES & space.real.keys() else 0),
            space.absent,
        )
        for space in namespaces
    )

    def untouched(stamps: tuple[int, ...] | None) -> bool:
        index = -1
        for version, stamp, items, lookup, size, fewest, most, absent in entries:
            index += 1
            if version is not None:
                now = read(version)
                if stamps is not None:
                    if now != stamps[index]:
                        return False
                    continue
                if now == stamp:
                    continue
            for name, value in items:
                if lookup(name, missing) is not value:
                    return False
            if size is not None and not fewest <= size() <= most:  # a class that gained a name
                return False
            for name in absent:  # a module global that shadows a built-in
                if lookup(name, missing) is not missing:
                    return False
        return True

    return untouched


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

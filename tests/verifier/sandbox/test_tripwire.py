"""Tripwires: the audit hook's decisions (called directly, never installed in the test process)
and the integrity snapshot's findings."""

from __future__ import annotations

import os
import sys
import threading
import types
from collections.abc import Callable

import gurobipy as gp
from gurobipy import GRB
import pytest
import vrpcoder.verification
from vrpcoder_verifier.sandbox.tripwire import Blocked, Guard, dict_versions_work, make_hook

SCRATCH = "/tmp/job-scratch"
NATIVE = (os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix))


def _untraced() -> None:
    """Stands in for the verifier's tracer in these tests (any code object works)."""


@pytest.fixture
def hook_and_reports() -> tuple[Callable[[str, tuple[object, ...]], None], list[str]]:
    reports: list[str] = []
    hook = make_hook(reports.append, native_roots=NATIVE, writable_roots=(SCRATCH,), own_tracer=_untraced.__code__)
    return hook, reports


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("gc.get_objects", (-1,)),
        ("gc.get_referrers", ((),)),
        ("sys._current_frames", ()),
        ("sys.setprofile", ()),
        ("ctypes.dlopen", (None,)),
        ("ctypes.call_function", (0, ())),
        ("open", ("/proc/self/mem", "r+b", 0)),
        ("open", ("/proc/1/environ", "rb", 0)),
        ("open", ("/etc/passwd-new", "w", 0)),
        ("open", (b"/work/elsewhere.txt", None, os.O_WRONLY | os.O_CREAT)),
        ("import", ("evil", f"{SCRATCH}/evil.cpython-311-x86_64-linux-gnu.so", [], [], [])),
        ("sys.settrace", ()),
    ],
)
def test_dangerous_events_are_reported_and_refused(
    event: str, args: tuple[object, ...], hook_and_reports: tuple[Callable[..., None], list[str]]
) -> None:
    hook, reports = hook_and_reports
    with pytest.raises(Blocked):
        hook(event, args)
    assert len(reports) == 1 and reports[0].startswith(event)


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("os.fork", ()),
        ("subprocess.Popen", ("sh", ["sh"], None, None)),
        ("os.kill", (1, 9)),
        ("socket.connect", (None, ("1.1.1.1", 53))),
    ],
)
def test_contained_events_are_reported_and_allowed(
    event: str, args: tuple[object, ...], hook_and_reports: tuple[Callable[..., None], list[str]]
) -> None:
    hook, reports = hook_and_reports
    hook(event, args)
    assert len(reports) == 1 and reports[0].startswith(event)


@pytest.mark.parametrize(
    ("event", "args"),
    [
        ("open", (f"{SCRATCH}/model.lp", "w", 0)),
        ("open", ("/dev/null", "w", 0)),
        ("open", ("/etc/hostname", "r", 0)),
        ("open", (3, "rb", 0)),
        ("import", ("json", None, [], [], [])),
        ("import", ("_decimal", os.path.join(os.path.realpath(sys.base_prefix), "lib", "x.so"), [], [], [])),
        ("exec", (None,)),
        ("compile", (b"1", "<x>")),
        ("sys._getframe", (None,)),
    ],
)
def test_ordinary_events_pass_silently(
    event: str, args: tuple[object, ...], hook_and_reports: tuple[Callable[..., None], list[str]]
) -> None:
    hook, reports = hook_and_reports
    hook(event, args)
    assert reports == []


def test_only_the_verifiers_own_tracer_may_trace() -> None:
    reports: list[str] = []

    def tracer_installer(hook: Callable[[str, tuple[object, ...]], None]) -> None:
        hook("sys.settrace", ())

    hook = make_hook(reports.append, native_roots=NATIVE, writable_roots=(SCRATCH,), own_tracer=tracer_installer.__code__)
    tracer_installer(hook)
    assert reports == []


@pytest.fixture
def guard() -> Guard:
    return Guard.take()


@pytest.fixture
def model() -> gp.Model:
    m = gp.Model()
    m.Params.OutputFlag = 0
    return m


def test_untouched_state_has_no_findings(guard: Guard, model: gp.Model) -> None:
    assert guard.problems(model) == []


def test_a_new_property_on_model_is_found(guard: Guard, model: gp.Model, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gp.Model, "Status", property(lambda self: 2), raising=False)
    assert any("Model.Status added" in p for p in guard.problems(model))


def test_a_replaced_verifier_function_is_found(guard: Guard, model: gp.Model, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vrpcoder.verification, "reward", lambda *args: 1.0)
    assert any("reward" in p for p in guard.problems(model))


def test_a_replaced_builtin_is_found(guard: Guard, model: gp.Model, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("builtins.abs", lambda value: 0)
    assert any("abs" in p for p in guard.problems(model))


def test_a_replaced_module_is_found(guard: Guard, model: gp.Model, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vrpcoder.verification", types.ModuleType("vrpcoder.verification"))
    assert any("sys.modules['vrpcoder.verification']" in p for p in guard.problems(model))


def test_shadowed_model_attributes_are_found(guard: Guard, model: gp.Model) -> None:
    model.__dict__["ObjVal"] = 1.0
    assert any("ObjVal" in p for p in guard.problems(model))


def _with_every_kind_of_row(m: gp.Model) -> gp.Model:
    x = m.addVars(3, name="x")
    m.addConstr(x[0] <= 1)
    m.addQConstr(x[0] * x[0] <= 1)
    m.addGenConstrMax(x[0], [x[1], x[2]])
    m.addSOS(GRB.SOS_TYPE1, [x[0], x[1]])
    m.setObjectiveN(x[0], 0)
    m.setObjectiveN(x[1], 1)
    return m


LEGITIMATE_MODELS: dict[str, Callable[[gp.Model], gp.Model]] = {
    "fresh": lambda m: m,
    "every kind of row, two objectives": _with_every_kind_of_row,
    "data of the script's own": lambda m: (setattr(m, "_x", m.addVars(2)), setattr(m, "_data", {"n": 2}), m)[-1],
    "optimized with a callback": lambda m: (m.addVar(), m.optimize(lambda model, where: None), m)[-1],
    "a copy": lambda m: m.copy(),
    "relaxed": lambda m: (m.addVar(vtype=GRB.BINARY), m.update(), m.relax())[-1],
    "on an environment of its own": lambda m: gp.Model(env=gp.Env(params={"OutputFlag": 0})),
}


@pytest.mark.parametrize("make", LEGITIMATE_MODELS.values(), ids=LEGITIMATE_MODELS.keys())
def test_models_as_scripts_build_them_have_no_findings(
    guard: Guard, model: gp.Model, make: Callable[[gp.Model], gp.Model]
) -> None:
    built = make(model)
    built.update()
    assert guard.problems(built) == []


class _Hook:
    """What a script would plant: any callable of its own."""

    def __call__(self, *args: object) -> None:
        return None


TAMPERED: dict[str, tuple[Callable[[gp.Model], None], str]] = {
    "a private helper shadowed": (lambda m: vars(m).__setitem__("_setup", _Hook()), "shadowed on the model: _setup"),
    "a method shadowed": (lambda m: vars(m).__setitem__("update", _Hook()), "shadowed on the model: update"),
    "the environment replaced": (lambda m: vars(m).__setitem__("_env", _Hook()), "state replaced on the model: _env"),
    "the parameters replaced": (lambda m: vars(m).__setitem__("Params", _Hook()), "state replaced on the model: Params"),
    "a helper of the environment shadowed": (
        lambda m: vars(m._env).__setitem__("_cenv_check", _Hook()) or vars(m._env).__setitem__("dispose", _Hook()),
        "shadowed on the model._env: dispose",
    ),
    "an object in a wrapper cache": (lambda m: m._constrs.append(_Hook()), "own in gurobipy's cache model._constrs"),
}


@pytest.mark.parametrize(("tamper", "finding"), TAMPERED.values(), ids=TAMPERED.keys())
def test_what_gurobipy_calls_through_the_instance_is_checked(
    guard: Guard, tamper: Callable[[gp.Model], None], finding: str
) -> None:
    """gurobipy's methods reach their helpers and state through the instance: an entry planted
    there would run on the verifier's thread the next time it calls the method."""
    victim = gp.Model(env=gp.Env(params={"OutputFlag": 0}))
    victim.update()
    tamper(victim)
    assert any(finding in problem for problem in guard.problems(victim)), guard.problems(victim)


def test_a_model_subclass_is_found(guard: Guard) -> None:
    class Fake(gp.Model):
        pass

    fake = Fake()
    try:
        assert any("Fake" in p for p in guard.problems(fake))
    finally:
        fake.dispose()


def test_threads_left_running_are_found(guard: Guard, model: gp.Model) -> None:
    release = threading.Event()
    thread = threading.Thread(target=release.wait)
    thread.start()
    try:
        assert any("thread" in p for p in guard.problems(model))
    finally:
        release.set()
        thread.join()


def test_this_interpreter_offers_the_version_fast_path() -> None:
    assert dict_versions_work()


def test_a_patch_undone_before_the_check_is_no_finding(guard: Guard, model: gp.Model) -> None:
    """The namespace's version tag moved, so its entries are compared one by one: all original."""
    original = vrpcoder.verification.reward
    vrpcoder.verification.reward = lambda *args: 1.0  # type: ignore[assignment]
    vrpcoder.verification.reward = original
    assert guard.problems(model) == []


def test_the_untouched_check_sees_a_replaced_builtin_and_a_patched_class(
    guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After the build (no stamps) a patch put back is no finding; during the verification
    (stamps) any write is."""
    stamps = guard.stamps()
    assert guard.untouched(None) and guard.untouched(stamps)
    original = vrpcoder.verification.reward
    vrpcoder.verification.reward = lambda *args: 1.0  # type: ignore[assignment]
    assert not guard.untouched(None) and not guard.untouched(stamps)
    vrpcoder.verification.reward = original
    assert guard.untouched(None) and not guard.untouched(stamps)
    monkeypatch.setattr("builtins.len", lambda value: 0)
    assert not guard.untouched(None)
    monkeypatch.undo()
    monkeypatch.setattr(Guard, "problems", lambda self, model: [], raising=True)
    assert not guard.untouched(None)


def test_a_module_global_that_shadows_a_builtin_is_found(guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:
    """Module globals come before the built-ins: a new ``all`` in the verifier's module would run
    for every ``all(...)`` its code makes."""
    monkeypatch.setattr(vrpcoder.verification, "all", lambda values: True, raising=False)
    assert not guard.untouched(None)
    assert any("all added (shadowing a built-in)" in p for p in guard.problems(None))


def test_the_state_of_a_cached_property_is_watched(guard: Guard, monkeypatch: pytest.MonkeyPatch) -> None:
    import vrpcoder.injection

    descriptor = vrpcoder.injection.RoutingVariable.__dict__["_by_arc"]
    monkeypatch.setattr(descriptor, "func", lambda self: {})
    assert not guard.untouched(None)
    assert any("func replaced" in p for p in guard.problems(None))

"""Isolated calls: what they hand back, what their code can reach, and tampering with the hand-back."""

from __future__ import annotations

import sys
import threading
import time
from collections import deque
from typing import NoReturn

import pytest
from vrpcoder.errors import ErrorKind, VerificationFailure
from vrpcoder_verifier.sandbox.isolation import Escaped, Isolation


class Abandoned(Exception):
    pass


def _abandon(detail: str) -> NoReturn:
    raise Abandoned(detail)


@pytest.fixture
def after_calls() -> list[int]:
    return []


@pytest.fixture
def isolation(after_calls: list[int]) -> Isolation:
    return Isolation(after=lambda: after_calls.append(1), abandon=_abandon)


def test_a_result_comes_back_and_after_runs(isolation: Isolation, after_calls: list[int]) -> None:
    assert isolation(lambda: 6 * 7) == 42
    assert after_calls == [1]


def _locals_above() -> set[str]:
    names: set[str] = set()
    frame = sys._getframe().f_back
    while frame is not None:
        names.update(frame.f_locals)
        frame = frame.f_back
    return names


def test_the_callers_frames_are_out_of_reach(isolation: Isolation) -> None:
    secret_token = "s3cret"
    assert "secret_token" in _locals_above()
    assert "secret_token" not in isolation(_locals_above)
    assert secret_token


def _reachable_from_the_stack(limit: int = 20000) -> list[object]:
    """Every object reachable from the frames above (their locals, then attributes, bound
    methods' owners, closure cells, partials' parts and container items), as a walking script
    would find them."""
    frame = sys._getframe().f_back
    pending: deque[object] = deque()
    while frame is not None:
        pending += list(frame.f_locals.values())
        frame = frame.f_back
    seen: dict[int, object] = {}
    while pending and len(seen) < limit:
        item = pending.popleft()  # nearest frames first: a test runner's own graph is far above
        if id(item) in seen or isinstance(item, (str, bytes, int, float, type(sys))):
            continue
        seen[id(item)] = item
        pending += [getattr(item, name, None) for name in ("__self__", "func", "args", "keywords", "__wrapped__")]
        pending += [cell.cell_contents for cell in getattr(item, "__closure__", None) or () if cell.cell_contents is not None]
        pending += list(getattr(item, "__dict__", {}).values()) if not isinstance(item, type) else []
        if isinstance(item, (list, tuple, set)):
            pending += list(item)
        elif isinstance(item, dict):
            pending += list(item.values())
    return list(seen.values())


def test_nothing_above_the_candidates_code_leads_back_to_the_isolation() -> None:
    """A hostile build once read the trampoline's ``alone`` (a method bound to the isolation) and
    from there reached the report writer; now the call's stack holds only its own arguments."""

    class Writer:
        token = "job-token"

    writer = Writer()
    isolation = Isolation(after=lambda: None, abandon=lambda detail, _writer=writer: _abandon(detail))
    assert writer in _reachable_from_the_stack()
    found = isolation(_reachable_from_the_stack)
    assert not [item for item in found if item is isolation or item is writer]


def test_the_verifiers_failures_come_back_fresh(isolation: Isolation) -> None:
    def fail() -> None:
        try:
            raise KeyError("inner")
        except KeyError:
            raise VerificationFailure(ErrorKind.NOT_A_MODEL, "no model") from None

    with pytest.raises(VerificationFailure) as caught:
        isolation(fail)
    assert caught.value.error.kind is ErrorKind.NOT_A_MODEL
    assert (caught.value.__context__, caught.value.__cause__) == (None, None)


@pytest.mark.parametrize(("raised", "base"), [(ValueError("x"), False), (KeyboardInterrupt(), True)])
def test_other_exceptions_come_back_as_data(isolation: Isolation, raised: BaseException, base: bool) -> None:
    def fail() -> None:
        raise raised

    with pytest.raises(Escaped) as caught:
        isolation(fail)
    assert (caught.value.type_name, caught.value.base, caught.value.by_candidate) == (type(raised).__name__, base, False)
    assert type(raised).__name__ in caught.value.trace


def test_a_thread_left_running_is_abandoned(isolation: Isolation) -> None:
    stop = threading.Event()

    def leave_a_thread() -> None:
        threading.Thread(target=stop.wait, daemon=True).start()

    try:
        with pytest.raises(Abandoned, match="left a thread running"):
            isolation(leave_a_thread)
    finally:
        stop.set()


def test_a_lock_released_early_is_abandoned(isolation: Isolation) -> None:
    """The call finds the trampoline's lock in its caller's frame and releases it mid-call."""

    def release_and_linger() -> None:
        frame = sys._getframe().f_back
        assert frame is not None
        frame.f_locals["release"]()
        time.sleep(0.2)

    with pytest.raises(Abandoned, match="tampered"):
        isolation(release_and_linger)


def test_what_comes_back_is_exact_text(isolation: Isolation) -> None:
    """A class may be named by a ``str`` subclass whose ``__format__`` is the candidate's: the name
    handed back must be a plain ``str``, or formatting it on the main thread runs that code."""

    class Name(str):
        def __format__(self, spec: str) -> str:
            raise AssertionError("the candidate's code ran")

    boom = type(Name("Boom"), (BaseException,), {})

    def fail() -> None:
        raise boom()

    with pytest.raises(Escaped) as caught:
        isolation(fail)
    assert type(caught.value.type_name) is str
    assert f"{caught.value.type_name}" == "Boom"

"""The demo's verdict table: what it counts as caught, surviving and equivalent."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from vrpcoder_verifier import demo
from vrpcoder_verifier.demo import DemoRow


def _row(candidate: str, kind: str, *, caught: tuple[str, ...] = (), equivalence: str | None = None, passed: int = 2,
         errors: tuple[str, ...] = ()) -> DemoRow:
    return DemoRow(variant="CVRP", candidate=candidate, kind=kind, samples=2, passed=passed, base_reward=1.0,
                   caught_by=caught, errors=errors, equivalence=equivalence, seconds=0.1)


def _printed(rows: list[DemoRow], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    buffer = io.StringIO()
    monkeypatch.setattr(demo, "Console", lambda **_: Console(file=buffer, width=300))
    demo.print_rows(rows)
    return buffer.getvalue().strip().splitlines()


def _summary(rows: list[DemoRow], monkeypatch: pytest.MonkeyPatch) -> str:
    return _printed(rows, monkeypatch)[-1]


def test_equivalent_mutants_are_counted_apart_from_the_ones_to_catch(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [
        _row("gold", "gold"),
        _row("omit:capacity", "omit", caught=("s-:capacity_overload",), passed=1),
        _row("relax:capacity_pooled", "relax"),
        _row("spurious:every_vehicle_used", "spurious", equivalence="the fleet is the fewest vehicles that fit"),
    ]
    summary = _summary(rows, monkeypatch)
    assert "gold scripts passing every sample: 1/1" in summary
    assert "mutants caught: 1/2 (+1 equivalent" in summary
    assert "infrastructure faults: 0" in summary


def test_a_gold_failure_or_our_fault_is_not_as_expected() -> None:
    assert not _row("gold", "gold", passed=1).as_expected
    assert not _row("omit:capacity", "omit", errors=("infrastructure",)).as_expected
    assert _row("relax:capacity_pooled", "relax").as_expected


def test_every_equivalent_survivor_is_printed_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [
        _row("gold", "gold"),
        _row("spurious:every_vehicle_used", "spurious", equivalence="the fleet is the fewest vehicles that fit"),
        _row("relax:capacity_pooled", "relax"),
    ]
    lines = _printed(rows, monkeypatch)
    assert "  CVRP spurious:every_vehicle_used: the fleet is the fewest vehicles that fit" in lines
    assert not any(line.startswith("  CVRP relax:capacity_pooled") for line in lines), "not equivalent: no reason"

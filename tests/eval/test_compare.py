"""Run-to-run comparison: each benchmark's Pass@1 change is measured on that benchmark's own items."""

from __future__ import annotations

import pytest
from vrpcoder_eval.benchmark import BenchmarkName
from vrpcoder_eval.metrics import compare
from vrpcoder_eval.results import ItemResult, ItemStatus


def _item(item: str, bench: BenchmarkName, passed: bool) -> ItemResult:
    return ItemResult(
        item_id=item, benchmark=bench, variant="CVRP", source="synthetic", reference_objective=10.0,
        status=ItemStatus.SCORED, outcome="pass" if passed else "wrong_objective", build=True, diff=passed,
        inj=True, pass_at_1=passed, dual_pass=passed, objective=10.0 if passed else 11.0,
    )


def test_pass_delta_per_benchmark_divides_by_that_benchmarks_items() -> None:
    b1 = [_item(f"b1-{i}", BenchmarkName.B1, passed=i < 2) for i in range(6)]
    b3 = [_item(f"b3-{i}", BenchmarkName.B3, passed=False) for i in range(2)]
    improved = [*b1[:5], _item("b1-5", BenchmarkName.B1, passed=True), _item("b3-0", BenchmarkName.B3, passed=True), b3[1]]
    comparison = compare("base", [*b1, *b3], "other", improved)
    assert comparison.common == 8
    assert comparison.pass_delta["b1"] == pytest.approx(1 / 6)
    assert comparison.pass_delta["b3"] == pytest.approx(1 / 2)
    assert comparison.pass_delta["all"] == pytest.approx(2 / 8)
    assert {f.item_id for f in comparison.gained} == {"b1-5", "b3-0"} and not comparison.lost


def test_items_scored_in_only_one_run_are_left_out() -> None:
    base = [_item("a", BenchmarkName.B1, passed=False), _item("b", BenchmarkName.B1, passed=False)]
    other = [_item("a", BenchmarkName.B1, passed=True)]
    comparison = compare("base", base, "other", other)
    assert comparison.common == 1 and comparison.pass_delta == {"all": 1.0, "b1": 1.0}

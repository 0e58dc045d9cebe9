"""Metrics on hand-made results (every number derivable by hand) and the self-contained HTML report."""

from __future__ import annotations

import base64
import re
from pathlib import Path

from vrpcoder_eval.benchmark import BenchmarkName
from vrpcoder_eval.metrics import FEASIBLE_PROBE, bootstrap_rate, compare, compute
from vrpcoder_eval.report import write_reports
from vrpcoder_eval.results import ItemResult, ItemStatus, ProbeOutcome


def _probe(name: str, family: str | None, label: str, verdict: str, judged: bool = True) -> ProbeOutcome:
    expected = label
    return ProbeOutcome(name=name, family=family, label=label, verdict=verdict, passed=judged and verdict == expected, judged=judged)


def _result(item: str, *, passed: bool, bench: BenchmarkName = BenchmarkName.B1, variant: str = "CVRP",
            probes: tuple[ProbeOutcome, ...] = (), outcome: str | None = None, status: ItemStatus = ItemStatus.SCORED,
            objective: float | None = 10.0) -> ItemResult:
    inj = all(p.passed for p in probes if p.judged) if probes else None
    return ItemResult(
        item_id=item, benchmark=bench, variant=variant, source="synthetic", reference_objective=10.0, status=status,
        outcome=outcome or ("pass" if passed and inj is not False else "wrong_objective" if not passed else "inj_failed"),
        build=objective is not None, diff=passed, inj=inj, pass_at_1=passed, dual_pass=passed and inj is not False,
        objective=objective, probes=probes,
    )


def sample_results() -> list[ItemResult]:
    good = (_probe("s+", None, "feasible", "feasible"), _probe("s-:cap", "capacity", "infeasible", "infeasible"))
    missing_capacity = (_probe("s+", None, "feasible", "feasible"), _probe("s-:cap", "capacity", "infeasible", "feasible"))
    too_tight = (_probe("s+", None, "feasible", "infeasible"), _probe("s-:sub", "subtour", "infeasible", "infeasible"),
                 _probe("s-:tw", "time_window", "infeasible", "feasible", judged=False))
    return [
        _result("a", passed=True, probes=good),
        _result("b", passed=True, probes=missing_capacity),
        _result("c", passed=False, probes=too_tight, variant="VRPHTW"),
        _result("d", passed=False, bench=BenchmarkName.B3, objective=None, outcome="syntax_error"),
        _result("e", passed=False, bench=BenchmarkName.B3, status=ItemStatus.UNSCORED, outcome="verifier_unavailable"),
    ]


def test_rates_families_and_error_kinds() -> None:
    metrics = compute("m", sample_results())
    assert (metrics.scored, metrics.unscored, metrics.unscored_reasons) == (4, 1, {"verifier_unavailable": 1})
    assert (metrics.overall.pass_at_1.passed, metrics.overall.pass_at_1.total) == (2, 4)
    assert metrics.overall.dual_pass.passed == 1 and metrics.overall.build.passed == 3
    assert (metrics.overall.inj.passed, metrics.overall.inj.total) == (1, 3)
    assert [(g.key, g.pass_at_1.passed, g.items) for g in metrics.benchmarks] == [("b1", 2, 3), ("b3", 0, 1)]
    rows = {f.family: f for f in metrics.families}
    assert (rows[FEASIBLE_PROBE].judged, rows[FEASIBLE_PROBE].false_rejects) == (3, 1)
    assert (rows["capacity"].judged, rows["capacity"].passed, rows["capacity"].false_accepts) == (2, 1, 1)
    assert (rows["time_window"].judged, rows["time_window"].unjudgeable) == (0, 1)
    assert metrics.error_kinds == {"inj_failed": 1, "wrong_objective": 1, "syntax_error": 1}
    assert set(metrics.family_by_variant) == {"CVRP", "VRPHTW"}


def test_bootstrap_interval_brackets_the_rate() -> None:
    outcomes = [True] * 30 + [False] * 10
    rate = bootstrap_rate(outcomes)
    assert rate.rate == 0.75 and rate.low is not None and rate.high is not None
    assert 0.55 < rate.low < 0.75 < rate.high < 0.9
    assert bootstrap_rate(outcomes) == rate, "seeded: the same results give the same interval"
    assert bootstrap_rate([True] * 5).low == 1.0
    assert bootstrap_rate([]).rate is None


def test_compare_lists_flips() -> None:
    base = sample_results()
    other = [r.model_copy(update={"pass_at_1": not r.pass_at_1, "dual_pass": not r.dual_pass}) if r.item_id in ("a", "c") else r
             for r in base]
    comparison = compare("base", base, "other", other)
    assert comparison.common == 4
    assert [f.item_id for f in comparison.gained] == ["c"] and [f.item_id for f in comparison.lost] == ["a"]
    assert comparison.pass_delta["all"] == 0.0


def test_audited_labels_are_reported_beside_published() -> None:
    results = [_result("x", passed=False, objective=12.0, bench=BenchmarkName.B4)]
    metrics = compute("m", results, audited={"x": 12.0})
    assert metrics.benchmarks[0].pass_at_1.passed == 0
    assert metrics.audited[0].pass_at_1.passed == 1


def test_html_report_is_self_contained_with_plots(tmp_path: Path) -> None:
    metrics = compute("m", sample_results())
    paths = write_reports(tmp_path, metrics, compare("base", sample_results(), "m", sample_results()))
    page = paths["html"].read_text()
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 3
    assert all(base64.b64decode(data).startswith(b"\x89PNG") for data in images)
    assert "http://" not in page and "https://" not in page and "<script" not in page
    markdown = paths["markdown"].read_text()
    assert "| b1 | 3 |" in markdown and "Comparison: m vs base" in markdown
    assert '"metrics"' in paths["metrics"].read_text()


def _checked(item: str, checks: tuple[str, ...], variant: str = "CVRP", bench: BenchmarkName = BenchmarkName.B1) -> ItemResult:
    return _result(item, passed="diff" not in checks, variant=variant, bench=bench,
                   outcome="wrong_objective" if "diff" in checks else "inj_failed").model_copy(update={"failed_checks": checks})


def test_every_check_that_names_a_family_is_counted(tmp_path: Path) -> None:
    """INJ, the optimum check, DIFF through the families the item's own plan breaks, and any later
    ``<check>:<family>`` entry (a cost check) count; a DIFF failure with a feasible plan names no family."""
    results = [
        _checked("inj", ("inj:capacity",)),
        _checked("plan", ("diff", "optimum:time_window"), variant="VRPHTW"),
        _checked("priced", ("cost:time_window",), variant="VRPHTW"),
        _checked("objective", ("diff",)),
        _checked("tight", ("inj:feasible",)),
        _result("ok", passed=True),
    ]
    metrics = compute("m", results)
    caught = {f.family: (f.items, f.by_check) for f in metrics.caught}
    assert caught == {"capacity": (1, {"inj": 1}), "time_window": (2, {"cost": 1, "diff": 1, "optimum": 1}),
                      FEASIBLE_PROBE: (1, {"inj": 1})}
    assert metrics.heatmap["CVRP"]["capacity"].caught == 1 and metrics.heatmap["CVRP"]["capacity"].built == 4
    assert "time_window" not in metrics.heatmap["CVRP"], "CVRP states no windows: the cell stays blank"
    assert metrics.heatmap["VRPHTW"]["time_window"].caught == 2 and metrics.heatmap["VRPHTW"]["capacity"].caught == 0
    failures = {f.item_id: f.families for f in metrics.failures}
    assert failures == {"inj": ("capacity",), "plan": ("time_window",), "priced": ("time_window",), "objective": (),
                        "tight": (FEASIBLE_PROBE,)}
    markdown = write_reports(tmp_path, metrics)["markdown"].read_text()
    assert "| time_window | 2 | 1 | 1 | 0 | 1 |" in markdown
    assert "| plan | b1 | VRPHTW | wrong_objective | diff, optimum:time_window | time_window |" in markdown


def test_bootstrap_interval_ignores_the_order_results_arrived_in() -> None:
    grouped = [True] * 6 + [False] * 6
    assert bootstrap_rate(grouped) == bootstrap_rate([True, False] * 6) == bootstrap_rate([False, True] * 6)


def test_audited_labels_only_for_the_benchmarks_the_audit_covered() -> None:
    results = [_result("x", passed=False, objective=12.0, bench=BenchmarkName.B4), _result("a", passed=True)]
    metrics = compute("m", results, audited={"x": 12.0}, audit_covered={"x", "y"})
    assert [g.key for g in metrics.audited] == ["b4"]
    assert "| b1 |" not in markdown_section(metrics)


def markdown_section(metrics: object) -> str:
    from vrpcoder_eval.report import markdown

    text = markdown(metrics)  # type: ignore[arg-type]
    return text.split("## Pass@1 against audited labels")[1].split("## Per source")[0]

"""Label audit: published answers that differ from an exact re-solve are flagged with both values and
the rule they appear to ignore; agreeing ones are not flagged; sandboxed script re-solves vote."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from vrpcoder.gold import remove_family, render_gold, solve_gold, solve_script
from vrpcoder.importers import import_instance
from vrpcoder.instances import Instance
from vrpcoder_client.client import AsyncVerifierClient
from vrpcoder_verifier.stack import LocalStack

from tests.eval.support import LIBRARY
from vrpcoder_eval.audit import AuditReport, audit_items
from vrpcoder_eval.benchmark import BenchmarkItem, BenchmarkName
from vrpcoder_eval.metrics import compute
from vrpcoder_eval.results import ItemResult, ItemStatus


@pytest.fixture(scope="module")
def cvrp() -> Instance:
    return import_instance(LIBRARY / "cvrplib" / "P-n16-k8.vrp", customers=6)


def _item(item_id: str, published: float) -> BenchmarkItem:
    return BenchmarkItem(id=item_id, benchmark=BenchmarkName.B4, statement=f"problem {item_id}", reference_objective=published,
                         source="nlco")


def _optimum(instance: Instance, script: str | None = None) -> float:
    result = solve_script(script, instance) if script is not None else solve_gold(instance, time_limit=30)
    assert result.status.value == "optimal" and result.objective is not None
    return result.objective


def test_exact_resolves_flag_exactly_the_wrong_labels(cvrp: Instance, tmp_path: Path) -> None:
    optimum = _optimum(cvrp)
    without_capacity = _optimum(cvrp, remove_family(render_gold(cvrp), "capacity"))
    opened = Instance.model_validate({**cvrp.model_dump(), "variant": "OVRP"})
    open_optimum = _optimum(opened)
    assert len({round(v, 3) for v in (optimum, without_capacity, open_optimum)}) == 3, "the cases must be told apart"
    published = {"agree": optimum, "no-capacity": without_capacity, "open": open_optimum, "off": optimum + 13.7}
    folder = tmp_path / "instances"
    folder.mkdir()
    for name in published:
        (folder / f"b4-{name}.json").write_text(cvrp.model_dump_json())
    items = [_item(f"b4-{name}", value) for name, value in published.items()] + [_item("b4-unaudited", 1.0)]
    report = asyncio.run(audit_items(items, instances=folder, time_limit=30))
    findings = {f.item_id: f for f in report.findings}
    assert {i for i, f in findings.items() if f.flagged} == {"b4-no-capacity", "b4-open", "b4-off"}
    for item_id in ("b4-no-capacity", "b4-open", "b4-off"):
        finding = findings[item_id]
        assert finding.audited == pytest.approx(optimum) and finding.published == published[item_id.removeprefix("b4-")]
        assert f"published {finding.published:g}" in finding.reason and f"re-solved optimum {optimum:g}" in finding.reason
        assert "routes 0-" in finding.reason
    assert "reached without capacity" in findings["b4-no-capacity"].reason
    assert "reached as open routes" in findings["b4-open"].reason
    assert "no single dropped rule reproduces" in findings["b4-off"].reason
    assert not findings["b4-agree"].flagged and findings["b4-agree"].audited == pytest.approx(optimum)
    assert not findings["b4-unaudited"].flagged and findings["b4-unaudited"].audited is None
    assert AuditReport.model_validate_json(report.model_dump_json()) == report
    assert report.audited_labels() == {i: pytest.approx(optimum) for i in ("b4-no-capacity", "b4-open", "b4-off")}

    run = [ItemResult(item_id="b4-no-capacity", benchmark=BenchmarkName.B4, variant=None, source="nlco",
                      reference_objective=without_capacity, status=ItemStatus.SCORED, outcome="wrong_objective", build=True,
                      objective=optimum)]
    metrics = compute("m", run, audited=report.audited_labels())
    assert metrics.benchmarks[0].pass_at_1.passed == 0 and metrics.audited[0].pass_at_1.passed == 1


def test_sandboxed_script_majority(cvrp: Instance, stack: LocalStack, tmp_path: Path) -> None:
    optimum = _optimum(cvrp)
    gold = render_gold(cvrp, time_limit=20)
    scripts = tmp_path / "scripts"
    for item_id in ("b4-wrong", "b4-right", "b4-split"):
        (scripts / item_id).mkdir(parents=True)
    for n in range(3):
        (scripts / "b4-wrong" / f"s{n}.py").write_text(gold)
        (scripts / "b4-right" / f"s{n}.py").write_text(gold)
    (scripts / "b4-split" / "good.py").write_text(gold)
    (scripts / "b4-split" / "broken.py").write_text("def build_model(:\n")
    items = [_item("b4-wrong", optimum + 5), _item("b4-right", optimum), _item("b4-split", optimum + 5)]

    async def go() -> AuditReport:
        async with AsyncVerifierClient(stack.base_url, stack.token, timeout=120) as verifier:
            return await audit_items(items, scripts=scripts, verifier=verifier, min_votes=3, time_limit=20)

    findings = {f.item_id: f for f in asyncio.run(go()).findings}
    assert findings["b4-wrong"].flagged and findings["b4-wrong"].votes == 3
    assert findings["b4-wrong"].audited == pytest.approx(optimum)
    assert not findings["b4-right"].flagged and findings["b4-right"].votes == 3
    split = findings["b4-split"]
    assert not split.flagged and split.usable == 1 and "no decision" in split.reason
    assert {r.status for r in split.resolves} == {"optimal", "no_build"}


def test_model_auditor_samples_several_resolves(cvrp: Instance, stack: LocalStack) -> None:
    from vrpcoder_eval.generation import OpenAIChatGenerator
    from vrpcoder_eval.prompts import shared_prompt
    from vrpcoder_eval.scripted import ScriptedServer, fenced

    optimum = _optimum(cvrp)
    gold = fenced(render_gold(cvrp, time_limit=20))
    item = _item("b4-sampled", optimum + 3)
    with ScriptedServer(lambda statement: gold if statement == item.statement else "no idea") as llm:

        async def go() -> AuditReport:
            generator = OpenAIChatGenerator(llm.base_url)
            async with AsyncVerifierClient(stack.base_url, stack.token, timeout=120) as verifier:
                try:
                    return await audit_items([item], verifier=verifier, generator=generator, prompt=shared_prompt(),
                                             samples=3, temperature=0.7, min_votes=3, time_limit=20)
                finally:
                    await generator.aclose()

        (finding,) = asyncio.run(go()).findings
        seeds = [r["seed"] for r in llm.requests]
        assert [r["temperature"] for r in llm.requests] == [0.7, 0.7, 0.7] and len(set(seeds)) == 3
    assert [r.origin for r in finding.resolves] == ["model:0", "model:1", "model:2"]
    assert finding.flagged and finding.votes == 3 and finding.audited == pytest.approx(optimum)

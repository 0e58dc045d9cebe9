"""Label audit: published answers that differ from an exact re-solve are flagged with both values and
the relaxation (a whole model) that reproduces them; agreeing ones are not flagged; items without a
decision say why; unsupported variants are out of scope; sandboxed script re-solves vote."""

from __future__ import annotations

import asyncio
import itertools
import json
from pathlib import Path

import pytest
from vrpcoder.gold import remove_family, render_gold, solve_gold, solve_script
from vrpcoder.importers import import_instance
from vrpcoder.instances import Instance
from vrpcoder_client.client import AsyncVerifierClient
from vrpcoder_verifier.stack import LocalStack

from tests.eval.support import LIBRARY
from vrpcoder_eval.audit import AuditDecision, AuditReport, audit_items
from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkItem, BenchmarkName
from vrpcoder_eval.external import ExternalFormat, read_external
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
    assert "without the capacity limit: the label ignores the capacity rule" in findings["b4-no-capacity"].reason
    assert "with open routes" in findings["b4-open"].reason and "route end rule" in findings["b4-open"].reason
    assert "no relaxation the audit knows reproduces the published value" in findings["b4-off"].reason
    assert not findings["b4-agree"].flagged and findings["b4-agree"].audited == pytest.approx(optimum)
    assert not findings["b4-unaudited"].flagged and findings["b4-unaudited"].audited is None
    assert findings["b4-unaudited"].decision is AuditDecision.NO_DECISION
    assert findings["b4-unaudited"].reason.startswith("no instance found: looked for ")
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
    assert split.decision is AuditDecision.NO_DECISION and split.usable == 1
    assert split.reason.startswith("too few agreeing re-solves: 1 usable of 2")
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


def assignment_bound(instance: Instance) -> float:
    """The assignment relaxation of a TSP by enumeration (independent of any model): each node, the start
    included, gets one successor other than itself, every node one predecessor, cycles allowed."""
    d = instance.distances
    nodes = range(len(d))
    return min(sum(d[i][p[i]] for i in nodes) for p in itertools.permutations(nodes) if all(p[i] != i for i in nodes))


def _as(instance: Instance, variant: str) -> Instance:
    return Instance.model_validate({**instance.model_dump(), "variant": variant})


@pytest.fixture(scope="module")
def tsp() -> Instance:
    return import_instance(LIBRARY / "tsplib" / "gr21.tsp", customers=7)


@pytest.mark.parametrize(("case", "relaxation", "rule"), [
    ("tsp-no-subtour", "assignment", "subtour"),
    ("cvrp-no-capacity", "no_capacity", "capacity"),
    ("cvrp-as-open", "open_routes", "route end"),
    ("ovrp-as-closed", "closed_routes", "route end"),
])
def test_planted_relaxation_labels_are_flagged_with_the_rule(case: str, relaxation: str, rule: str, tsp: Instance,
                                                            tmp_path: Path) -> None:
    """Each planted wrong label is the optimum of one relaxed model, computed here without the audit's
    relaxation code: the assignment problem by enumeration, a CVRP without capacity as the TSP of its
    nodes (one route is best when the distances obey the triangle inequality), open and closed routes
    as the gold optimum of the other variant (exact Euclidean distances keep the triangle inequality)."""
    euclidean = import_instance(LIBRARY / "cvrplib" / "P-n16-k8.vrp", customers=6, distance="euclidean")
    instance, published = {
        "tsp-no-subtour": lambda: (tsp, assignment_bound(tsp)),
        "cvrp-no-capacity": lambda: (euclidean, _tsp_of(euclidean)),
        "cvrp-as-open": lambda: (euclidean, _optimum(_as(euclidean, "OVRP"))),
        "ovrp-as-closed": lambda: (_as(euclidean, "OVRP"), _optimum(euclidean)),
    }[case]()
    optimum = _optimum(instance)
    assert abs(optimum - published) > 1e-3, "the planted label must be wrong"
    folder = tmp_path / "instances"
    folder.mkdir()
    (folder / f"b4-{case}.json").write_text(instance.model_dump_json())
    (finding,) = asyncio.run(audit_items([_item(f"b4-{case}", published)], instances=folder, time_limit=30)).findings
    assert finding.decision is AuditDecision.FLAGGED and finding.audited == pytest.approx(optimum)
    assert [r.name for r in finding.explained_by][:1] == [relaxation], finding.reason
    assert f"the label ignores the {rule} rule" in finding.reason
    (agreeing,) = asyncio.run(audit_items([_item(f"b4-{case}", optimum)], instances=folder, time_limit=30)).findings
    assert agreeing.decision is AuditDecision.AGREES and agreeing.relaxations == ()


def _tsp_of(instance: Instance) -> float:
    data = instance.model_dump()
    data.update(variant="TSP", vehicles=[{"depot": 0}], customers=[{**c, "demand": 0.0} for c in data["customers"]])
    return _optimum(Instance.model_validate(data))


def test_every_item_gets_a_decision_and_unsupported_variants_are_out_of_scope(tsp: Instance, tmp_path: Path) -> None:
    """Records read through --qa: the type field decides routing, an instance carried inside the record
    or found by the record's own id is re-solved, an unsupported variant is out of scope, an item
    without an instance says so; the summary counts each per source."""
    optimum = _optimum(tsp)
    by_id = tmp_path / "by-id"
    by_id.mkdir()
    (by_id / "17.json").write_text(tsp.model_dump_json())
    records = [
        {"id": 5, "Question": "A salesman tours the listed towns.", "Answer": optimum, "Type": "TSP",
         "instance": json.loads(tsp.model_dump_json())},
        {"id": 17, "Question": "Visit each one exactly once and come back home.", "Answer": assignment_bound(tsp),
         "Type": "complex_lp"},
        {"id": 23, "Question": "A traveling salesman must visit each city within its time window.", "Answer": 40, "Type": "TSPTW"},
        {"id": 31, "Question": "A two-echelon vehicle routing problem with satellites.", "Answer": 12},
        {"id": 42, "Question": "Plan the vehicle routing of three vans.", "Answer": 77},
        {"id": 50, "Question": "Maximise the profit of cakes and bread.", "Answer": 9, "Type": "knapsack"},
    ]
    path = tmp_path / "mamo.json"
    path.write_text(json.dumps(records))
    adapted = read_external(path, ExternalFormat.QA)
    assert [d.id for d in adapted.dropped] == ["50"] and "type 'knapsack'" in adapted.dropped[0].reason
    store = BenchmarkDir(tmp_path / "bench")
    store.write(BenchmarkName.B4, adapted.items)
    for item_id, instance in adapted.instances.items():
        store.save_instance(item_id, instance)
    report = asyncio.run(audit_items(adapted.items, instances=by_id, bench_dir=store.root, time_limit=30))
    decisions = {f.item_id: (f.decision, f.reason) for f in report.findings}
    assert decisions["b4-mamo-5"][0] is AuditDecision.AGREES
    assert decisions["b4-mamo-17"][0] is AuditDecision.FLAGGED
    assert "the label ignores the subtour rule" in decisions["b4-mamo-17"][1]
    assert decisions["b4-mamo-23"][0] is AuditDecision.OUT_OF_SCOPE
    assert decisions["b4-mamo-23"][1].startswith("variant not supported: TSPTW")
    assert decisions["b4-mamo-31"][0] is AuditDecision.OUT_OF_SCOPE and "2E-VRP" in decisions["b4-mamo-31"][1]
    assert decisions["b4-mamo-42"][0] is AuditDecision.NO_DECISION and decisions["b4-mamo-42"][1].startswith("no instance found")
    assert report.decisions() == {"flagged": 1, "agrees": 1, "no_decision": 1, "out_of_scope": 2}
    assert report.by_source() == {"mamo": {"flagged": 1, "agrees": 1, "no_decision": 1, "out_of_scope": 2}}
    assert report.undecided_reasons() == {"variant not supported: TSPTW": 1, "variant not supported: 2E-VRP": 1,
                                          "no instance found": 1}
    lines = report.markdown_lines()
    assert "| mamo | 5 | 1 | 1 | 1 | 2 |" in lines and "| no instance found | 1 |" in lines

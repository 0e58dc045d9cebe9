"""Acceptance: scripted policies through a real OpenAI-compatible socket and the real verifier stack.

The gold policy must score 100% Pass@1 and 100% on every family; a policy answering a
single-family-omission mutant per item must score exactly what the mutation harness predicts for
that mutant, probe by probe (the in-process verdict read by ``vrpcoder.mutants.failures``, the
function ``run_mutants`` builds its report from); a policy
answering a syntax error scores 0 with error kind ``syntax_error``. The expected figures are
computed independently of the eval service (gold scripts, the in-process mutation report).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path

from vrpcoder.mutants import MutantKind, failures, mutation_rules
from vrpcoder.samples import Sample
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_client.client import AsyncVerifierClient
from vrpcoder_verifier.stack import LocalStack

from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkItem, BenchmarkName
from vrpcoder_eval.generation import CachedGenerator, CompletionCache, OpenAIChatGenerator
from vrpcoder_eval.metrics import FEASIBLE_PROBE, compute
from vrpcoder_eval.prompts import shared_prompt
from vrpcoder_eval.results import ItemResult, ItemStatus
from vrpcoder_eval.runner import RunConfig, Runner, load_run
from vrpcoder_eval.scripted import ScriptedServer, fenced, table_policy

ALL = (BenchmarkName.B1, BenchmarkName.B2, BenchmarkName.B3)
SYNTAX_ERROR = "import gurobipy as gp\n\ndef build_model(:\n    return None\n"


def items_and_samples(bench: BenchmarkDir) -> list[tuple[BenchmarkItem, Sample]]:
    out = []
    for name in ALL:
        for item in bench.items(name):
            assert item.sample_id is not None
            out.append((item, bench.load_sample(item.sample_id)))
    return out


def run_policy(
    stack: LocalStack, bench: BenchmarkDir, answers: dict[str, str], run_dir: Path, benchmarks: tuple[BenchmarkName, ...] = ALL,
) -> tuple[list[ItemResult], int]:
    """Run the scripted policy end to end; returns the results and how many model requests it made."""
    with ScriptedServer(table_policy(answers)) as llm:

        async def go() -> None:
            generator = OpenAIChatGenerator(llm.base_url)
            prompt = shared_prompt()
            config = RunConfig(
                model=llm.base_url, model_name=await generator.resolve_model(), benchmark_dir=str(bench.root),
                benchmarks=benchmarks, system_prompt_origin=prompt.origin, system_prompt_sha256=prompt.sha256,
                time_limit=20.0,
            )
            verifier = AsyncVerifierClient(stack.base_url, stack.token, timeout=120)
            runner = Runner(config, run_dir, CachedGenerator(generator, CompletionCache(run_dir / "completions")),
                            verifier, prompt, concurrency=4, batch_size=4)
            try:
                await runner.run()
            finally:
                await verifier.aclose()
                await generator.aclose()

        asyncio.run(go())
        requests = len(llm.requests)
    _, results = load_run(run_dir)
    return results, requests


def test_gold_policy_scores_everything(stack: LocalStack, bench: BenchmarkDir, tmp_path: Path) -> None:
    pairs = items_and_samples(bench)
    answers = {item.statement: fenced(sample.gold_code) for item, sample in pairs}
    results, requests = run_policy(stack, bench, answers, tmp_path / "gold")
    assert requests == len(pairs)
    assert len(results) == len(pairs) and all(r.status is ItemStatus.SCORED for r in results)
    metrics = compute("gold", results)
    assert metrics.overall.pass_at_1.rate == 1.0
    assert metrics.overall.dual_pass.rate == 1.0
    assert {g.key for g in metrics.benchmarks} == {"b1", "b2", "b3"}
    assert metrics.error_kinds == {}
    families = {f.family: f for f in metrics.families}
    expected_families = {p.family.value for _, s in pairs for p in s.probes if p.family is not None} | {FEASIBLE_PROBE}
    assert set(families) == expected_families
    for row in families.values():
        assert row.judged > 0 and row.rate == 1.0, row
        assert row.false_accepts == row.false_rejects == row.errors == 0
    total_probes = sum(len(s.probes) for _, s in pairs)
    assert sum(f.judged + f.unjudgeable for f in metrics.families) == total_probes

    again, requests = run_policy(stack, bench, answers, tmp_path / "gold")
    assert requests == 0, "a finished run folder must resume without asking the model again"
    assert sorted(r.model_dump_json() for r in again) == sorted(r.model_dump_json() for r in results)


def _omission_rule(sample: Sample, index: int) -> tuple[str, str] | None:
    """The index-th applicable single-family omission of the sample's gold script (name, code)."""
    applicable = []
    for rule in mutation_rules(sample.variant, [MutantKind.OMIT]):
        code = rule.apply(sample.gold_code, sample)
        if code is not None:
            applicable.append((rule.name, code))
    return applicable[index % len(applicable)] if applicable else None


def test_omission_mutants_score_what_the_mutation_report_predicts(stack: LocalStack, bench: BenchmarkDir, tmp_path: Path) -> None:
    pairs = items_and_samples(bench)
    answers: dict[str, str] = {}
    predicted: dict[str, tuple[bool, set[str]]] = {}
    verdict_checks: dict[str, set[str]] = {}
    samples: dict[str, Sample] = {}
    for index, (item, sample) in enumerate(pairs):
        chosen = _omission_rule(sample, index)
        assert chosen is not None, f"{item.id}: no omission mutant applies"
        name, code = chosen
        answers[item.statement] = fenced(code)
        found = set(failures(verify(code, sample, VerifyConfig(time_limit=20.0))))
        verdict_checks[item.id] = found & {"build", "diff", "optimum"}
        predicted[item.id] = (not found & {"build", "diff"}, found - {"build", "diff", "optimum"})
        samples[item.id] = sample
    results, _ = run_policy(stack, bench, answers, tmp_path / "mutants")
    by_id = {r.item_id: r for r in results}
    assert set(by_id) == set(predicted)

    expected_family: Counter[tuple[str, str]] = Counter()
    for item_id, (passes_diff, failed) in predicted.items():
        result = by_id[item_id]
        assert result.status is ItemStatus.SCORED
        assert result.pass_at_1 is passes_diff, item_id
        assert all(p.judged for p in result.probes), item_id
        assert {p.name for p in result.probes if not p.passed} == failed, item_id
        assert result.dual_pass is not (failed or verdict_checks[item_id]), item_id
        assert ("optimum" in verdict_checks[item_id]) == any(c.startswith("optimum") for c in result.failed_checks), item_id
        for probe in samples[item_id].probes:
            family = probe.family.value if probe.family is not None else FEASIBLE_PROBE
            expected_family[(family, "judged")] += 1
            expected_family[(family, "passed")] += probe.name not in failed
    metrics = compute("mutants", results)
    for row in metrics.families:
        assert (row.judged, row.passed) == (expected_family[(row.family, "judged")], expected_family[(row.family, "passed")]), row.family
    assert metrics.overall.pass_at_1.passed == sum(p for p, _ in predicted.values())
    assert any(failed for _, failed in predicted.values()), "no mutant was caught by INJ: the test would prove nothing"
    assert metrics.overall.dual_pass.passed < len(results)


def test_syntax_error_policy_scores_zero(stack: LocalStack, bench: BenchmarkDir, tmp_path: Path) -> None:
    pairs = items_and_samples(bench)
    answers = {item.statement: fenced(SYNTAX_ERROR) for item, _ in pairs}
    results, _ = run_policy(stack, bench, answers, tmp_path / "syntax")
    metrics = compute("syntax", results)
    assert metrics.scored == len(pairs)
    assert metrics.overall.pass_at_1.passed == 0 and metrics.overall.build.passed == 0
    assert metrics.error_kinds == {"syntax_error": len(pairs)}
    assert all(f.judged == 0 for f in metrics.families)


def test_diff_only_items_pass_on_the_objective(stack: LocalStack, bench: BenchmarkDir, tmp_path: Path) -> None:
    """B4-style items (no sample): Pass@1 is the objective alone, right reference vs wrong one."""
    item, sample = items_and_samples(bench)[0]
    external = BenchmarkDir(tmp_path / "external")
    right = BenchmarkItem(id="b4-x-right", benchmark=BenchmarkName.B4, statement=item.statement + "\n(right)",
                          reference_objective=sample.reference_objective, source="x")
    wrong = right.model_copy(update={"id": "b4-x-wrong", "statement": item.statement + "\n(wrong)",
                                     "reference_objective": sample.reference_objective + 7.0})
    no_code = right.model_copy(update={"id": "b4-x-none", "statement": "no answer"})
    external.write(BenchmarkName.B4, [right, wrong, no_code])
    answers = {right.statement: fenced(sample.gold_code), wrong.statement: fenced(sample.gold_code)}
    results, _ = run_policy(stack, external, answers, tmp_path / "b4", benchmarks=(BenchmarkName.B4,))
    by_id = {r.item_id: r for r in results}
    assert by_id["b4-x-right"].pass_at_1 and by_id["b4-x-right"].outcome == "pass"
    assert by_id["b4-x-right"].probes == () and by_id["b4-x-right"].inj is None
    assert not by_id["b4-x-wrong"].pass_at_1 and by_id["b4-x-wrong"].outcome == "wrong_objective"
    assert by_id["b4-x-none"].outcome == "no_code" and not by_id["b4-x-none"].pass_at_1


def test_unreachable_model_leaves_items_unscored(stack: LocalStack, bench: BenchmarkDir, tmp_path: Path) -> None:
    """A dead endpoint is an outage, not the model's failure: items stay unscored (and are retried)."""
    benchmarks = (BenchmarkName.B3,)
    prompt = shared_prompt()
    run_dir = tmp_path / "outage"

    async def dead() -> None:
        generator = OpenAIChatGenerator("http://127.0.0.1:9/v1", "m", attempts=1)
        config = RunConfig(model="http://127.0.0.1:9/v1", model_name="m", benchmark_dir=str(bench.root), benchmarks=benchmarks,
                           system_prompt_origin=prompt.origin, system_prompt_sha256=prompt.sha256)
        verifier = AsyncVerifierClient(stack.base_url, stack.token)
        try:
            await Runner(config, run_dir, generator, verifier, prompt).run()
        finally:
            await verifier.aclose()
            await generator.aclose()

    asyncio.run(dead())
    _, results = load_run(run_dir)
    assert results and all(r.status is ItemStatus.UNSCORED and r.outcome == "generation_failed" for r in results)
    assert compute("dead", results).scored == 0

"""Builders of benchmarks 1-3: disjoint seeds, the right variants, library references the checker confirms."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from vrpcoder.audit import audit_gold
from vrpcoder.variants import held_out_variants, train_variants

from tests.eval.support import B3_CUSTOMERS, HELD_OUT, LIBRARY, SAMPLED_VARIANTS
from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkName
from vrpcoder_eval.builders import EVAL_SEED_OFFSET, LIBRARY_SOURCES, build_b3, library_files, sampled_grid
from vrpcoder_eval.statements import default_writer


def test_sampled_benchmarks_use_unseen_seeds_and_their_variants(bench: BenchmarkDir) -> None:
    b1, b2 = bench.items(BenchmarkName.B1), bench.items(BenchmarkName.B2)
    assert {i.variant for i in b1} == set(SAMPLED_VARIANTS) and {i.variant for i in b2} == set(HELD_OUT)
    assert {i.variant for i in b1} <= {v.name for v in train_variants()}
    assert {i.variant for i in b2} <= {v.name for v in held_out_variants()}
    for item in (*b1, *b2):
        assert int(item.provenance["seed"]) >= EVAL_SEED_OFFSET  # type: ignore[arg-type]
        sample = bench.load_sample(item.sample_id or "")
        assert sample.reference_objective == item.reference_objective and sample.probes


def test_grid_is_balanced_round_robin() -> None:
    points = list(sampled_grid(["CVRP", "TSP"], 6, 500))
    assert Counter(v for v, _, _ in points) == {"CVRP": 3, "TSP": 3}
    assert [s for v, _, s in points if v == "CVRP"] == [500, 501, 502]


def test_library_items_keep_real_data_and_checked_optimum(bench: BenchmarkDir) -> None:
    items = bench.items(BenchmarkName.B3)
    assert {i.source for i in items} == set(LIBRARY_SOURCES.values())
    for item in items:
        sample = bench.load_sample(item.sample_id or "")
        assert len(sample.instance.customers) == B3_CUSTOMERS
        audit = audit_gold(sample.instance, time_limit=20.0)
        assert audit.trusted and abs(audit.objective - item.reference_objective) <= 1e-6 * max(1.0, abs(item.reference_objective))  # type: ignore[operator]
        assert item.provenance["checker_cost"] == pytest.approx(item.reference_objective)


@pytest.mark.slow
def test_b3_from_the_repository_files_has_sixty_items_over_six_families(tmp_path: Path) -> None:
    store = BenchmarkDir(tmp_path)
    result = build_b3(store, default_writer(), LIBRARY)
    sources = Counter(i.source for i in result.items)
    assert len(result.items) >= 60, result.discards
    assert set(sources) == set(LIBRARY_SOURCES.values())
    assert len(library_files(LIBRARY)) >= 6
    for item in result.items:
        assert 5 <= int(item.provenance["customers"]) <= 12  # type: ignore[arg-type]
        assert item.provenance["checker_cost"] == pytest.approx(item.reference_objective)

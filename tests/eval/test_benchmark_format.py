"""The benchmark format: items validate, bad lines are reported by number, samples are content-addressed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vrpcoder.samples import Sample
from vrpcoder_client.schemas import json_digest

from vrpcoder_eval.benchmark import (
    BenchmarkDir,
    BenchmarkFormatError,
    BenchmarkItem,
    BenchmarkName,
    load_items,
    read_items,
    write_items,
)
from vrpcoder_eval.prompts import prompt_ref, shared_prompt


def _item(i: int, **extra: object) -> BenchmarkItem:
    data: dict[str, object] = {"id": f"b1-x{i}", "benchmark": "b1", "statement": f"problem {i}", "reference_objective": 10.0 + i,
                               "source": "synthetic"}
    data.update(extra)
    return BenchmarkItem.model_validate(data)


def test_round_trip(tmp_path: Path) -> None:
    items = [_item(i, variant="CVRP", provenance={"seed": i}) for i in range(3)]
    path = tmp_path / "b1.jsonl"
    assert write_items(path, items) == 3
    assert load_items(path) == items


def test_bad_lines_are_reported_by_number(tmp_path: Path) -> None:
    good = _item(0).model_dump_json()
    lines = [
        good,
        "",
        "{not json",
        json.dumps({"id": "b1-y", "benchmark": "b9", "statement": "s", "reference_objective": 1, "source": "x"}),
        json.dumps({"id": "b1-z", "benchmark": "b1", "statement": "   ", "reference_objective": 1, "source": "x"}),
        json.dumps({"id": "b1-w", "benchmark": "b1", "statement": "s", "source": "x"}),
        good,
    ]
    path = tmp_path / "b1.jsonl"
    path.write_text("\n".join(lines) + "\n")
    items, problems = read_items(path)
    assert [i.id for i in items] == ["b1-x0"]
    assert [p.line for p in problems] == [3, 4, 5, 6, 7]
    assert "benchmark" in problems[1].message and "statement" in problems[2].message
    assert "reference_objective" in problems[3].message and "duplicate id" in problems[4].message
    with pytest.raises(BenchmarkFormatError) as raised:
        load_items(path)
    assert len(raised.value.problems) == 5 and f"{path}:3:" in str(raised.value)


def test_sample_ids_are_the_verifiers_content_ids(tmp_path: Path, bench: BenchmarkDir) -> None:
    item = bench.items(BenchmarkName.B1)[0]
    assert item.sample_id is not None
    text = bench.sample_path(item.sample_id).read_text()
    sample = Sample.model_validate_json(text)
    assert text == sample.model_dump_json()
    assert json_digest(text) == item.sample_id
    assert sample.statement == item.statement
    copy = BenchmarkDir(tmp_path)
    assert copy.save_sample(sample) == item.sample_id
    tampered = copy.sample_path(item.sample_id)
    tampered.write_text(text.replace(str(sample.reference_objective), str(sample.reference_objective + 1), 1))
    with pytest.raises(ValueError, match="does not hash"):
        copy.load_sample(item.sample_id)


def test_items_reference_the_shared_prompt(bench: BenchmarkDir) -> None:
    ref = prompt_ref()
    assert ref.sha256 == shared_prompt().sha256
    for name in (BenchmarkName.B1, BenchmarkName.B2, BenchmarkName.B3):
        assert all(item.prompt == ref for item in bench.items(name))


def test_benchmark_names_parse() -> None:
    assert [BenchmarkName.parse(t) for t in ("1", "b2", "B3", " 4 ", "samples")] == list(BenchmarkName)
    with pytest.raises(ValueError, match="unknown benchmark"):
        BenchmarkName.parse("5")


def test_prompt_drift_is_noticed() -> None:
    from vrpcoder_eval.benchmark import PromptRef
    from vrpcoder_eval.prompts import SystemPrompt, drifted

    today = shared_prompt()
    assert not drifted(prompt_ref(), today)
    assert drifted(PromptRef(name=today.origin, sha256="0" * 64), today)
    assert not drifted(PromptRef(name=today.origin, sha256="0" * 64), SystemPrompt("a baseline's own prompt", "base.txt"))

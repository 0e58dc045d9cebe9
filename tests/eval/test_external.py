"""Benchmark 4 adapters: the documented NLCO and question/answer formats, routing filter, bad lines reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vrpcoder_eval.external import (
    ExternalFormat,
    is_routing,
    parse_answer,
    read_external,
    strip_format_instructions,
    unsupported_variant,
)

TSP_TEXT = "A courier must visit each of the 5 cities exactly once and return. Coordinates: ... Find the shortest route."
CVRP_TEXT = "Solve this capacitated vehicle routing problem (CVRP): depot 0, customers 1-6 with demands ..., capacity 30."
LP_TEXT = "A bakery makes bread and cake. Maximise profit subject to oven hours."


def _jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def test_nlco_routing_file(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "nlco.jsonl", [
        {"id": "tsp-1", "problem_type": "TSP", "prompt": TSP_TEXT + "\nOutput format: reply with a JSON object {\"route\": [...]}.\n"
                                                              "Think step by step before answering.", "answer": 123.5},
        {"id": "cvrp-1", "problem_type": "CVRP", "prompt": CVRP_TEXT, "objective": "412", "num_vehicles": 3},
        {"id": "kp-1", "problem_type": "knapsack", "prompt": LP_TEXT, "answer": 9},
        "{broken json",
        {"id": "tsptw-1", "problem_type": "TSPTW", "prompt": TSP_TEXT + " with time windows", "answer": "about 12 or 13"},
        {"id": "pdptw-1", "problem_type": "PDPTW", "answer": 5},
    ])
    report = read_external(path, ExternalFormat.NLCO)
    assert [i.id for i in report.items] == ["b4-nlco-tsp-1", "b4-nlco-cvrp-1"]
    tsp, cvrp = report.items
    assert tsp.reference_objective == 123.5 and tsp.variant == "TSP" and tsp.sample_id is None
    assert "JSON" not in tsp.statement and "step by step" not in tsp.statement and "shortest route" in tsp.statement
    assert cvrp.reference_objective == 412.0 and cvrp.statement.endswith("The fleet has 3 vehicles available.")
    assert report.filtered == 1
    assert [(p.line, p.message.split(":")[0]) for p in report.problems] == [
        (4, "invalid JSON"), (5, "answer 'about 12 or 13' holds several numbers; which one is the objective is ambiguous"),
        (6, "no problem text (one of en_question, Question, question, prompt, problem, instruction, statement)"),
    ]
    assert tsp.provenance["line"] == 1 and tsp.provenance["published_answer"] == "123.5"


def test_question_answer_releases(tmp_path: Path) -> None:
    sirl = _jsonl(tmp_path / "sirl.jsonl", [
        {"en_question": TSP_TEXT, "en_answer": "2,345.5", "source": "OptMATH"},
        {"en_question": LP_TEXT, "en_answer": 10},
        {"en_question": "A fleet of delivery vans performs vehicle routing for 4 stores", "en_answer": "No Best Solution"},
        {"en_question": CVRP_TEXT, "en_answer": 88, "source": "IndustryOR"},
    ])
    report = read_external(sirl, ExternalFormat.QA)
    assert [(i.source, i.reference_objective) for i in report.items] == [("optmath", 2345.5), ("industryor", 88.0)]
    assert report.filtered == 1 and [p.line for p in report.problems] == [3]
    assert report.items[0].id == "b4-optmath-line1"

    mamo = tmp_path / "mamo_complex_lp.json"
    mamo.write_text(json.dumps([{"id": 7, "Question": TSP_TEXT, "Answer": 51.0, "Type": "complex_lp"}, ["not an object"]]))
    report = read_external(mamo, ExternalFormat.QA, source="mamo")
    assert [(i.id, i.reference_objective) for i in report.items] == [("b4-mamo-7", 51.0)]
    assert [p.line for p in report.problems] == [2] and "JSON object" in report.problems[0].message


def test_malformed_whole_file_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('[{"en_question": "x",')
    report = read_external(path, ExternalFormat.QA)
    assert not report.items and len(report.problems) == 1 and "invalid JSON array" in report.problems[0].message


@pytest.mark.parametrize(("value", "expected"), [(5, 5.0), ("1,234", 1234.0), ("Optimal cost: 77.25", 77.25), ("-3e2", -300.0)])
def test_parse_answer(value: object, expected: float) -> None:
    assert parse_answer(value) == expected


@pytest.mark.parametrize("value", [None, True, "none", "3 or 4", [1]])
def test_parse_answer_rejects(value: object) -> None:
    with pytest.raises(ValueError):
        parse_answer(value)


def test_routing_filter() -> None:
    assert is_routing("Traveling salesman with 6 cities")
    assert is_routing("anything", "cvrptw")
    assert not is_routing(LP_TEXT)
    assert strip_format_instructions("Keep me.\nRespond only with JSON.\nAnd me.") == "Keep me.\nAnd me."


def test_qa_uses_the_type_field_and_lists_every_dropped_record(tmp_path: Path) -> None:
    """A type label that names a routing problem keeps a record whatever its wording; a label that names
    no problem class (MAMO's complex_lp) leaves it to the wording; every dropped record is listed."""
    (tmp_path / "inst.json").write_text(
        '{"name": "t", "variant": "TSP", "depots": [{"x": 0, "y": 0}], "customers": [{"x": 3, "y": 4}, {"x": 6, "y": 0}],'
        ' "vehicles": [{}]}')
    path = _jsonl(tmp_path / "mamo.jsonl", [
        {"id": 1, "Question": "Plan the cheapest closed trip over the five depots.", "Answer": 10, "Type": "TSP",
         "instance": "inst.json"},
        {"id": 2, "Question": "Visit each one exactly once and come back.", "Answer": 11, "Type": "complex_lp"},
        {"id": 3, "Question": LP_TEXT, "Answer": 12, "Type": "complex_lp"},
        {"id": 4, "Question": LP_TEXT, "Answer": 13, "Type": "knapsack"},
        {"id": 5, "Question": "Tour the cities; each city has a time window.", "Answer": 14, "Type": "Traveling Salesman Problem"},
        {"id": 6, "Question": "Plan the routes.", "Answer": 15, "problem_type": "orienteering"},
        {"id": 7, "Question": "x", "Answer": 1, "Type": "TSP", "instance": "missing.json"},
    ])
    report = read_external(path, ExternalFormat.QA, source="mamo")
    assert [(i.id, i.variant) for i in report.items] == [("b4-mamo-1", "TSP"), ("b4-mamo-2", None), ("b4-mamo-5", "TSPTW"),
                                                          ("b4-mamo-6", "OP")]
    assert [(d.id, d.line) for d in report.dropped] == [("3", 3), ("4", 4)]
    assert "type 'complex_lp' names no routing problem" in report.dropped[0].reason
    assert "type 'knapsack'" in report.dropped[1].reason and report.filtered == 2
    assert list(report.instances) == ["b4-mamo-1"] and len(report.instances["b4-mamo-1"].customers) == 2
    assert report.items[0].provenance["instance"] == "instances/b4-mamo-1.json"
    assert report.items[0].provenance["record_id"] == "1"
    assert [p.line for p in report.problems] == [7] and "no such file 'missing.json'" in report.problems[0].message


@pytest.mark.parametrize(("variant", "reason"), [("TSPTW", "variant not supported: TSPTW (TSP with time windows)"),
                                                  ("2E-VRP", "variant not supported: 2E-VRP (two-echelon routing)"),
                                                  ("PVRP", "variant not supported: PVRP (periodic routing)"),
                                                  ("OP", "variant not supported: OP (orienteering)"),
                                                  ("CVRP", None), (None, None)])
def test_unsupported_variants(variant: str | None, reason: str | None) -> None:
    assert unsupported_variant(variant) == reason

"""Static fidelity checks: planted faults in otherwise faithful statements are each caught."""

from __future__ import annotations

import re

import pytest
from vrpcoder.sampling import sample_instance

from vrpcoder_synth.fidelity import ProblemKind, check_statement, check_text, numbers_in, segments, vocabulary_of
from vrpcoder_synth.statements import StatementPath, fmt, write_statement


def _kinds(report) -> set[ProblemKind]:
    return {p.kind for p in report.problems}


@pytest.fixture(scope="module")
def htw():
    instance = sample_instance("VRPHTW", 3, 0, customers=6)
    return instance, write_statement(instance, StatementPath.SCENARIO)


def test_the_unaltered_statement_passes(htw) -> None:
    instance, statement = htw
    assert check_statement(statement, instance).ok


def test_a_changed_capacity_is_caught(htw) -> None:
    instance, statement = htw
    capacity = fmt(instance.vehicles[0].capacity)
    altered = statement.text.replace(f"capacity of {capacity}", f"capacity of {fmt(instance.vehicles[0].capacity + 1.5)}")
    assert altered != statement.text
    report = check_text(altered, instance, None, vocabulary_of(statement))
    assert {ProblemKind.MISSING_NUMBER, ProblemKind.EXTRA_NUMBER} <= _kinds(report)
    assert any("capacity" in p.detail for p in report.problems)


def test_a_dropped_time_window_is_caught(htw) -> None:
    instance, statement = htw
    node = instance.num_depots + 2
    window = instance.customer(node).window
    phrase = f"time window from {fmt(window.start)} to {fmt(window.end)}"
    assert statement.text.count(phrase) == 1
    report = check_text(statement.text.replace(phrase, "time window"), instance, None, vocabulary_of(statement))
    assert not report.ok
    assert any(f"node id {node}" in p.detail and "window" in p.detail for p in report.problems)


def test_a_missing_customer_is_caught(htw) -> None:
    instance, statement = htw
    node = instance.num_depots + 1
    term = statement.hint.scene.customer
    lines = [line for line in statement.text.splitlines() if not re.match(rf"(?i){re.escape(term)} {node}(?![\w.])", line)]
    assert len(lines) == len(statement.text.splitlines()) - 1
    report = check_text("\n".join(lines), instance, None, vocabulary_of(statement))
    assert ProblemKind.MISSING_ENTITY in _kinds(report)
    assert ProblemKind.MISSING_NUMBER in _kinds(report) or ProblemKind.UNBOUND_NUMBER in _kinds(report)


@pytest.mark.parametrize("path", [StatementPath.INDEX_ONE_BASED, StatementPath.INDEX_FROM_TWO, StatementPath.INDEX_LETTERS])
def test_a_wrong_id_in_the_map_is_caught(path: StatementPath) -> None:
    instance = sample_instance("CVRP", 2, 1, customers=6)
    statement = write_statement(instance, path)
    assert statement.node_id_map is not None
    vocabulary = vocabulary_of(statement)
    assert check_text(statement.text, instance, statement.node_id_map, vocabulary).ok
    swapped = dict(statement.node_id_map)
    swapped["2"], swapped["3"] = swapped["3"], swapped["2"]
    report = check_text(statement.text, instance, swapped, vocabulary)
    assert ProblemKind.UNBOUND_NUMBER in _kinds(report)
    duplicated = {**statement.node_id_map, "2": statement.node_id_map["3"]}
    assert ProblemKind.ID_MAP in _kinds(check_text(statement.text, instance, duplicated, vocabulary))
    missing = {k: v for k, v in statement.node_id_map.items() if k != "4"}
    assert ProblemKind.ID_MAP in _kinds(check_text(statement.text, instance, missing, vocabulary))


def test_a_leaked_source_id_is_caught() -> None:
    instance = sample_instance("CVRP", 2, 1, customers=6)
    statement = write_statement(instance, StatementPath.INDEX_LETTERS)
    term = statement.hint.scene.customer
    label = statement.node_id_map["3"]
    leaked = re.sub(rf"(?i)({re.escape(term)}) {label}(?![\w.])", r"\1 Q", statement.text, count=1)
    assert leaked != statement.text
    report = check_text(leaked, instance, statement.node_id_map, vocabulary_of(statement))
    assert ProblemKind.ID_MAP in _kinds(report)


def test_a_fabricated_number_and_a_missing_rule_are_caught(htw) -> None:
    instance, statement = htw
    vocabulary = vocabulary_of(statement)
    padded = statement.text + "\nEach route may carry at most 37.25 extra goods.\n"
    assert ProblemKind.EXTRA_NUMBER in _kinds(check_text(padded, instance, None, vocabulary))
    no_deadline = statement.text.replace("Service must start no later than the end of the time window.", "")
    report = check_text(no_deadline, instance, None, vocabulary)
    assert any(p.kind is ProblemKind.MISSING_RULE and "hard time windows" in p.detail for p in report.problems)
    no_goal = statement.text.replace("minimize", "choose")
    assert any("minimize" in p.detail for p in check_text(no_goal, instance, None, vocabulary).problems)


def test_text_helpers() -> None:
    assert numbers_in("at (50, 12.5); 1e-05 and id B7 and x2") == [50.0, 12.5, 1e-05]
    assert segments("One. Two has 2.5 units. three\nFour") == ["One. Two has 2.5 units. three", "One.", "Two has 2.5 units. three", "Four"]


def _drop_distance_sentence(text: str) -> str:
    return re.sub(r"The travel distance between two locations is [^\n]*\n", "", text)


def _rounded(text: str) -> str:
    return text.replace("not rounded", "rounded to the nearest integer")


def _no_depot_closing(text: str) -> str:
    return re.sub(r"[;.] (?:\w[\w /-]* )?closes at time \d+(?:\.\d+)?", "", text, count=1)


def _no_fleet_size(text: str) -> str:
    return re.sub(r"(?:a fleet of|There are) 2 (identical )?", lambda m: "several " if m.group(0).startswith("a") else "There are ", text)


def _open_ended(text: str) -> str:
    return re.sub(r" and returns to that same [^.\n]*\.", ".", text)


def _vehicle_moved(text: str) -> str:
    """Vehicle 0's line names the other depot (the fleet as listed, but one vehicle in the wrong place)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"(?i)\S.* 0 .*is based at .* 0\b", line) and "numbered" not in line:
            lines[i] = re.sub(r"(is based at .*?) 0\b", r"\1 1", line, count=1)
            return "\n".join(lines)
    raise AssertionError("no line of vehicle 0")


def _vehicle_dropped(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not re.match(r"(?i)\S.* 1 .*is based at ", line) or "numbered" in line)


@pytest.mark.parametrize(
    ("variant", "profile", "path", "edit", "kind", "detail"),
    [
        ("CVRP", 1, StatementPath.SCENARIO, _drop_distance_sentence, ProblemKind.MISSING_RULE, "distance convention"),
        ("CVRP", 1, StatementPath.CONDENSED, _drop_distance_sentence, ProblemKind.MISSING_RULE, "distance convention"),
        ("TSP", 1, StatementPath.STRICT, _rounded, ProblemKind.MISSING_RULE, "distance convention (euclidean)"),
        ("VRPHTW", 1, StatementPath.SCENARIO, _drop_distance_sentence, ProblemKind.MISSING_RULE, "travel time"),
        ("VRPSTW", 1, StatementPath.CONDENSED, _no_depot_closing, ProblemKind.MISSING_NUMBER, "closing time"),
        ("VRPHTW", 2, StatementPath.SCENARIO, _no_depot_closing, ProblemKind.MISSING_NUMBER, "closing time"),
        ("CVRP", 1, StatementPath.SCENARIO, _no_fleet_size, ProblemKind.MISSING_FLEET, "fleet size (2)"),
        ("CVRP", 1, StatementPath.CONDENSED, _open_ended, ProblemKind.MISSING_RULE, "closed routes"),
        ("MDVRP", 1, StatementPath.SCENARIO, _vehicle_moved, ProblemKind.MISSING_FLEET, "vehicle 0's depot"),
        ("HFVRP", 1, StatementPath.CONDENSED, _vehicle_dropped, ProblemKind.MISSING_FLEET, "vehicle 1 is never named"),
    ],
    ids=["no-distance", "no-distance-condensed", "other-rounding", "no-travel-time", "stw-depot-close", "htw-depot-close",
         "no-fleet-size", "no-return", "vehicle-other-depot", "vehicle-missing"],
)
def test_a_statement_that_omits_a_fact_the_gold_script_uses_is_refused(variant, profile, path, edit, kind, detail) -> None:
    """Stage 2 refuses a statement that leaves out anything the reference depends on: the distance
    convention and its rounding, every window (the depot's included), the fleet and where each of its
    vehicles is based, closed routes."""
    instance = sample_instance(variant, profile, 0, customers=5)
    statement = write_statement(instance, path)
    assert check_statement(statement, instance).ok
    edited = edit(statement.text)
    assert edited != statement.text
    report = check_text(edited, instance, statement.node_id_map, vocabulary_of(statement))
    assert any(p.kind is kind and detail in p.detail for p in report.problems), report.summary()

"""Node tables against the statement's ids (issue 14.2): which tables translate, which are the
script's own labels (x read by position, said in the verdict), and where the strict rule stays.

The script under test (tests/data/candidates/cvrp_node_ids_one_based.py) is the issue's own
example, written as a user would: 1-based labels ``node_ids = [1..N]`` / ``id2idx`` for its
printout, every variable indexed by position 0..N-1, on a statement that numbers nodes 0..N-1.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vrpcoder.candidate import NodeTable, read_node_table
from vrpcoder.errors import ErrorKind, VerificationFailure
from vrpcoder.families import Family
from vrpcoder.injection import InjVerdict, NodeMap
from vrpcoder.numbering import candidate_node_map, own_labels
from vrpcoder.samples import Sample

from vrpcoder.verification import VerifyConfig, verify

from tests.shared.test_independent_candidates import describe, render, samples

SCRIPT = (Path(__file__).resolve().parents[1] / "data" / "candidates" / "cvrp_node_ids_one_based.py").read_text()
CONFIG = VerifyConfig(time_limit=60.0)
POINT = ("CVRP", 1, 0, 6)


def _renamed(sample: Sample, first: int) -> Sample:
    """The sample of a statement that renamed node p to ``p + first`` (an index rewrite)."""
    ids = {str(p): str(p + first) for p in range(sample.instance.num_nodes)}
    return sample.model_copy(update={"node_id_map": ids})


# ---- the rule on tables alone --------------------------------------------------------------------


def _table(node_ids: list[object]) -> NodeTable:
    return read_node_table({"node_ids": node_ids})


@pytest.mark.parametrize(
    ("node_ids", "reason"),
    [
        ([1, 2, 3, 4], "names ids the statement does not have (4) and lacks ids it has (0)"),
        (["depot", 1, 2, 3], "names ids the statement does not have (depot) and lacks ids it has (0)"),
        (["Depot", "A", "B", "C"], "names none of the statement's ids"),
    ],
)
def test_a_table_that_is_not_the_statements_ids_is_read_as_labels(node_ids: list[object], reason: str) -> None:
    table = _table(node_ids)
    assert table.table is not None and own_labels(table.table, 4) is not None
    node_map, note = candidate_node_map(table, None, 4)
    assert node_map == NodeMap.identity(4)
    assert note is not None and reason in note and "x read by position" in note


def test_a_table_of_exactly_the_statements_ids_is_applied_in_its_order() -> None:
    node_map, note = candidate_node_map(_table([0, 3, 2, 1]), None, 4)
    assert node_map.index == (0, 3, 2, 1) and note is None


@pytest.mark.parametrize("first", [1, 2])
def test_on_a_renamed_statement_a_table_that_misses_its_ids_stays_an_index_mismatch(first: int) -> None:
    """1..N against a statement renamed to 2..N+1 (or a wrong order of 1..N's ids: see below) is
    never read by position: a renamed statement's listing need not be the internal order."""
    ids = {str(p): str(p + first) for p in range(4)}
    if first == 1:
        node_map, note = candidate_node_map(_table([1, 2, 3, 4]), ids, 4)
        assert node_map == NodeMap.identity(4) and note is None  # the table translates exactly
        return
    with pytest.raises(VerificationFailure) as info:
        candidate_node_map(_table([1, 2, 3, 4]), ids, 4)
    assert info.value.error.kind is ErrorKind.INDEX_MISMATCH


def test_a_table_that_cannot_be_read_is_never_taken_for_labels() -> None:
    with pytest.raises(VerificationFailure) as info:
        candidate_node_map(_table([1, 1, 2, 3]), None, 4)
    assert info.value.error.kind is ErrorKind.INDEX_MISMATCH


def test_tables_of_another_size_are_no_node_table() -> None:
    assert own_labels({"1": 0, "2": 1}, 4) is None
    assert candidate_node_map(_table([7, 8]), None, 4) == (NodeMap.identity(4), None)


# ---- the issue's example through the whole verification --------------------------------------


def test_the_issues_one_based_labels_earn_the_full_reward_on_every_sample() -> None:
    """Issue 14.2's example: index_mismatch on every probe (reward 0.7) before this rule."""
    variant, profile, seed, customers = POINT
    point = samples(variant, profile, seed, customers)
    assert len(point) > 1, "the base sample and its attacked copies"
    for sample in point:
        assert sample.node_id_map is None
        verdict = verify(render(SCRIPT, sample.instance), sample, CONFIG)
        assert verdict.passed and verdict.error is None and verdict.reward == pytest.approx(1.0), describe(verdict)
        note = verdict.routing_variable
        assert note is not None and "read by position" in note and "lacks ids it has (0)" in note


def test_reading_by_position_gives_no_free_pass_to_a_wrong_script_with_the_same_labels() -> None:
    variant, profile, seed, customers = POINT
    verdicts = [verify(render(SCRIPT, s.instance, "capacity"), s, CONFIG) for s in samples(variant, profile, seed, customers)]
    assert not all(v.passed for v in verdicts), "\n".join(map(describe, verdicts))
    assert any(not p.passed and p.family is Family.CAPACITY for v in verdicts for p in v.probes)


def test_the_same_labels_on_a_renamed_statement_they_do_not_translate_fail() -> None:
    """A statement renamed to 2..N+1: the script's 1..N table misses its ids, and on a renamed
    statement the strict rule holds (index_mismatch, every probe an error, no reward for INJ)."""
    variant, profile, seed, customers = POINT
    base = samples(variant, profile, seed, customers)[0]
    verdict = verify(render(SCRIPT, base.instance), _renamed(base, 2), CONFIG)
    assert not verdict.passed
    assert verdict.error is not None and verdict.error.kind is ErrorKind.INDEX_MISMATCH
    assert verdict.probes and all(p.verdict is InjVerdict.ERROR for p in verdict.probes)
    # renamed to 1..N in the internal order, the very same table translates every id: full reward
    renamed_one_based = verify(render(SCRIPT, base.instance), _renamed(base, 1), CONFIG)
    assert renamed_one_based.passed and renamed_one_based.routing_variable is None, describe(renamed_one_based)

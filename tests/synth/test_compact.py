"""The compact response a small model learns to write: correct on every sample and path, its data
copied from the statement in the statement's order, its mutants lacking exactly one rule."""

from __future__ import annotations

import re

import pytest
from vrpcoder.verification import VerifyConfig, verify

from tests.synth.support import grid_samples
from vrpcoder_synth.compact import CompactCoder, compact_variants, dropped_blocks, render_compact, skeleton_for
from vrpcoder_synth.config import GridConfig, SynthConfig
from vrpcoder_synth.fidelity import numbers_in
from vrpcoder_synth.statements import StatementPath, write_statement

CONFIG = VerifyConfig(time_limit=30.0)


@pytest.mark.parametrize("variant", sorted(compact_variants()))
def test_the_compact_script_earns_full_reward_on_every_sample_and_path(variant: str) -> None:
    for base in grid_samples(variant):
        for path in StatementPath:
            statement = write_statement(base, path)
            sample = base.model_copy(update={"node_id_map": statement.node_id_map})
            regen = CompactCoder().regenerate(sample, statement, "key")
            assert regen.code is not None, regen.coder
            verdict = verify(regen.code, sample, CONFIG)
            assert verdict.passed and verdict.reward == 1.0, (sample.id, path, verdict.error, verdict.failed_checks)


@pytest.mark.parametrize("variant", sorted(compact_variants()))
def test_the_data_block_copies_the_statement_in_its_order(variant: str) -> None:
    """Row by row, the numbers of ``V`` are the numbers of the statement's node lines in the order
    they are written there (the depot's missing demand and service time excepted), and the fleet's
    numbers follow in the order of the fleet sentence: a model copies, it never reorders."""
    sample = grid_samples(variant)[0]
    statement = write_statement(sample, StatementPath.CONDENSED)
    code = render_compact(sample.instance)
    rows = re.findall(r"^    (\d+): \((.*)\),$", code, re.M)
    assert [int(node) for node, _ in rows] == list(range(sample.instance.num_nodes))
    node_lines = [line for line in statement.text.splitlines() if re.match(r"^\S[^:]* \d+: location", line)]
    assert len(node_lines) == len(rows)
    for (node, row), line in zip(rows, node_lines, strict=True):
        written = [v for v in numbers_in(line.split(":", 1)[1])]
        copied = numbers_in(row)
        if int(node) == 0:  # the depot: its demand (and service time) are zero and not stated
            copied = [v for i, v in enumerate(copied) if skeleton_for(variant).columns[i] not in ("demand", "service")]
        assert copied == written, (line, row)
    scalars = [float(v) for v in re.findall(r"^[KQ] = (.*)$", code, re.M)]
    fleet = next((line for line in statement.text.splitlines() if "identical" in line), "")
    assert scalars == [v for v in numbers_in(fleet) if v in scalars]


def test_a_mutant_lacks_exactly_its_block_and_is_caught() -> None:
    sample = next(s for s in grid_samples("VRPHTW") if s.kind == "base")
    full = render_compact(sample.instance)
    for block, rules in (("capacity", ("u[i] <= Q",)), ("time_window", ("t[i] <= P[i][4]", "<= P[0][4]"))):
        mutant = render_compact(sample.instance, omit=block)
        dropped = [line for line in full.splitlines() if line not in mutant.splitlines()]
        assert len(dropped) == len(rules) and all(any(rule in line for line in dropped) for rule in rules)
        assert len(mutant.splitlines()) == len(full.splitlines()) - len(rules)
        assert not verify(mutant, sample, CONFIG).passed
    assert {o.block for o in CompactCoder().omissions(sample)} == {"capacity", "time_window"}
    with pytest.raises(ValueError, match="no '# @omit subtour' block"):
        render_compact(sample.instance, omit="subtour")


def test_an_instance_the_skeleton_cannot_state_gives_no_code() -> None:
    sample = grid_samples("CVRP")[0]
    data = sample.instance.model_dump()
    data["customers"][0]["demand"] = 0.0
    zero = sample.model_copy(update={"instance": type(sample.instance).model_validate(data)})
    regen = CompactCoder().regenerate(zero, write_statement(sample), "key")
    assert regen.code is None and "without demand" in regen.coder


def test_the_compact_coder_is_refused_for_a_variant_it_does_not_write() -> None:
    assert SynthConfig(coder="compact", grid=GridConfig(variants=("TSP", "CVRP"))).coder == "compact"
    with pytest.raises(ValueError, match="compact coder writes"):
        SynthConfig(coder="compact", grid=GridConfig(variants=("TSP", "MDVRP")))
    with pytest.raises(ValueError, match="compact coder writes"):
        SynthConfig(coder="compact")


@pytest.mark.parametrize("variant", sorted(compact_variants()))
def test_a_generated_script_is_read_at_the_constraint_level(variant: str) -> None:
    """What a model dropped is read from its script: each omitted block by name, nothing for the full
    script, and None for a script that does not follow the skeleton at all."""
    instance = grid_samples(variant)[0].instance
    assert dropped_blocks(render_compact(instance), variant) == ()
    for block in skeleton_for(variant).omissions:
        assert dropped_blocks(render_compact(instance, omit=block), variant) == (block,)
    assert dropped_blocks("import gurobipy as gp\n\ndef build_model():\n    return None\n", variant) is None
    reindented = render_compact(instance).replace("\n    ", "\n        ")
    assert dropped_blocks(reindented, variant) == ()

"""The compact response a small model learns to write: correct on every sample and path, its data
copied from the statement in the statement's order, its mutants lacking exactly one rule."""

from __future__ import annotations

from dataclasses import replace

import pytest
from vrpcoder.verification import VerifyConfig, verify

from tests.synth.support import grid_samples
from vrpcoder_synth.compact import CompactCoder, compact_variants, dropped_blocks, read_back, render_compact, skeleton_for
from vrpcoder_synth.config import GridConfig, SynthConfig
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


@pytest.mark.parametrize("path", list(StatementPath))
@pytest.mark.parametrize("variant", sorted(compact_variants()))
def test_the_data_is_the_statements_own_lines_and_reads_back_as_the_instance(variant: str, path: StatementPath) -> None:
    """``NODES`` holds each node's line of the statement verbatim, in node order, and ``FLEET`` its
    fleet sentence: the script's data tokens are the prompt's. Its reading gives the instance's numbers."""
    sample = grid_samples(variant)[0]
    statement = write_statement(sample, path)
    code = render_compact(statement, sample.instance)
    nodes = code.split('NODES = """\n', 1)[1].split('\n"""', 1)[0].splitlines()
    assert len(nodes) == sample.instance.num_nodes and all(line in statement.text.splitlines() for line in nodes)
    assert [line.split(":")[0].split(" is ")[0].rsplit(" ", 1)[1] for line in nodes] == list(statement.labels)
    rows, fleet = read_back(code)
    assert rows[1] == list(skeleton_for(variant).row(sample.instance, 1))
    if variant != "TSP":
        assert fleet == {"K": len(sample.instance.vehicles), "Q": sample.instance.vehicles[0].capacity}
        assert code.split('FLEET = """\n', 1)[1].split("\n", 1)[0] in statement.text


def test_a_statement_that_does_not_read_back_gives_no_script() -> None:
    sample = grid_samples("CVRP")[0]
    statement = write_statement(sample)
    altered = replace(statement, text=statement.text.replace("demand ", "a demand of ", 1))
    with pytest.raises(ValueError, match="do not read back"):
        render_compact(altered, sample.instance)
    assert CompactCoder().regenerate(sample, altered, "key").code is None


def test_a_mutant_lacks_exactly_its_block_and_is_caught() -> None:
    sample = next(s for s in grid_samples("VRPHTW") if s.kind == "base")
    full = render_compact(write_statement(sample), sample.instance)
    for block, rules in (("capacity", ("u[i] <= Q",)), ("time_window", ("t[i] <= P[i][4]", "<= P[0][4]"))):
        mutant = render_compact(write_statement(sample), sample.instance, omit=block)
        dropped = [line for line in full.splitlines() if line not in mutant.splitlines()]
        assert len(dropped) == len(rules) and all(any(rule in line for line in dropped) for rule in rules)
        assert len(mutant.splitlines()) == len(full.splitlines()) - len(rules)
        assert not verify(mutant, sample, CONFIG).passed
    assert {o.block for o in CompactCoder().omissions(sample)} == {"capacity", "time_window"}
    with pytest.raises(ValueError, match="no '# @omit subtour' block"):
        render_compact(write_statement(sample), sample.instance, omit="subtour")


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
    sample = grid_samples(variant)[0]
    statement, instance = write_statement(sample), sample.instance
    assert dropped_blocks(render_compact(statement, instance), variant) == ()
    for block in skeleton_for(variant).omissions:
        assert dropped_blocks(render_compact(statement, instance, omit=block), variant) == (block,)
    assert dropped_blocks("import gurobipy as gp\n\ndef build_model():\n    return None\n", variant) is None
    reindented = render_compact(statement, instance).replace("\n    ", "\n        ")
    assert dropped_blocks(reindented, variant) == ()

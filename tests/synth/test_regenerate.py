"""The offline coder: alternative formulations, statement ids through the verifier's node table, mutants."""

from __future__ import annotations

import pytest
from vrpcoder.samples import Sample
from vrpcoder.variants import held_out_variants, train_variants
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_client.prompts import code_system_prompt
from vrpcoder_client.reward import extract_code

from tests.synth.support import grid_samples
from vrpcoder_synth.formulations import Listing, catalogue, covered_variants, formulations_for, pick, render, statement_listing
from vrpcoder_synth.regenerate import OfflineCoder, as_completion, code_messages
from vrpcoder_synth.statements import StatementPath, write_statement

CONFIG = VerifyConfig(time_limit=30.0)


def test_every_training_variant_has_two_alternative_formulations_and_no_held_out_one() -> None:
    assert covered_variants() == {v.name for v in train_variants()}
    assert all(len(formulations_for(v.name)) >= 2 for v in train_variants())
    held_out = {v.name for v in held_out_variants()}
    assert not any(f.variant in held_out for f in catalogue())


def test_formulations_differ_from_the_gold_script(cvrp_sample: Sample) -> None:
    for formulation in formulations_for("CVRP"):
        code = render(formulation, cvrp_sample.instance)
        assert ">>> module:" not in code and "GROUPS" not in code
        assert "def build_model" in code and "import gurobipy as gp" in code
        assert "# @" not in code


def test_the_pick_is_deterministic_and_spreads() -> None:
    assert pick("CVRP", "k1") == pick("CVRP", "k1")
    assert len({pick("CVRP", f"k{i}").name for i in range(40)}) == len(formulations_for("CVRP"))


@pytest.mark.parametrize("variant", ["TSP", "MDVRP", "PDPTW", "HFVRP", "VRPB", "SDVRP"])
def test_each_formulation_earns_full_reward_on_every_sample(variant: str) -> None:
    for sample in grid_samples(variant):
        for formulation in formulations_for(variant):
            verdict = verify(render(formulation, sample.instance), sample, CONFIG)
            assert verdict.passed and verdict.reward == 1.0, (formulation.name, sample.kind, verdict.error)


def test_a_mutant_lacks_exactly_its_block(cvrp_sample: Sample) -> None:
    formulation = next(f for f in formulations_for("CVRP") if "subtour" in f.omissions)
    full = render(formulation, cvrp_sample.instance)
    mutant = render(formulation, cvrp_sample.instance, omit="subtour")
    assert len(mutant) < len(full)
    with pytest.raises(ValueError, match="no '# @omit nonsense' block"):
        render(formulation, cvrp_sample.instance, omit="nonsense")
    verdict = verify(mutant, cvrp_sample, CONFIG)
    assert not verdict.passed


def test_stage3_messages_and_extraction(cvrp_sample: Sample) -> None:
    statement = write_statement(cvrp_sample, StatementPath.SCENARIO)
    messages = code_messages(statement.text)
    assert messages == [{"role": "system", "content": code_system_prompt()}, {"role": "user", "content": statement.text}]
    regen = OfflineCoder().regenerate(cvrp_sample, statement, "key")
    assert regen.completion.startswith("```python\n") and regen.completion.endswith("\n```")
    assert regen.code == extract_code(regen.completion)
    assert extract_code(as_completion("x = 1")) == "x = 1\n"


def _rotated(listing: Listing, depots: int) -> Listing:
    """The same positions, but every customer's id moved to the next customer: a wrong table."""
    assert listing.ids is not None
    ids = list(listing.ids)
    customers = ids[depots:]
    return Listing(listing.order, tuple(ids[:depots] + customers[1:] + customers[:1]))


@pytest.mark.parametrize("path", list(StatementPath))
@pytest.mark.parametrize("variant", ["CVRP", "PDP"])
def test_code_for_a_path_passes_exactly_when_its_node_table_is_right(path: StatementPath, variant: str) -> None:
    """The statement's node map, stored with the sample, round-trips through the verifier's
    node-table rules: the right script passes, the same script with its ids shifted fails."""
    base = grid_samples(variant, customers=6)[0]
    statement = write_statement(base, path)
    sample = base.model_copy(update={"node_id_map": statement.node_id_map})
    coder = OfflineCoder()
    right = coder.regenerate(sample, statement, f"round-trip-{path}")
    verdict = verify(right.code or "", sample, CONFIG)
    assert verdict.passed and verdict.reward == 1.0, verdict.error
    formulation = coder.formulation(sample, f"round-trip-{path}")
    instance = sample.instance
    if statement.node_id_map is None:
        # A script that lists customers in another order but keeps no table reads the probes wrongly.
        wrong_listing = Listing((*range(instance.num_depots), *reversed(instance.customer_nodes)))
    else:
        good = statement_listing(instance, statement.node_id_map, reverse_customers=True)
        wrong_listing = _rotated(good, instance.num_depots)
    wrong = verify(render(formulation, instance, listing=wrong_listing), sample, CONFIG)
    assert wrong.build and wrong.diff, "the wrong table changes no number of the model"
    assert not wrong.passed

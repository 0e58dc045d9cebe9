"""The verifier reward inside GRPO: real verdicts, one batch per group, components logged, and
transient failures as None (counted), never a silent 0; what TRL does with an all-None group."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from vrpcoder.mutants import mutation_rules
from vrpcoder_client.client import PollPolicy, VerifierClient
from vrpcoder_client.reward import VerifierConfigError
from vrpcoder_client.schemas import VerifyOptions
from vrpcoder_client.verdicts import RewardWeights
from vrpcoder_trainer.dataset import fenced
from vrpcoder_trainer.rewards import GroupedVerifierReward, guard_advantages
from vrpcoder_verifier.stack import LocalStack, purge, stack_settings

from tests.trainer.support import NO_MODEL, cvrp_samples


def _arc_ban(sample_index: int) -> str:
    """A spurious-constraint mutant that keeps the optimum on this instance (DIFF passes) but
    refuses the feasible probe (INJ fails): the DIFF-blind case."""
    sample = cvrp_samples()[sample_index]
    (rule,) = [r for r in mutation_rules("CVRP") if r.name == "spurious:arc_ban"]
    code = rule.apply(sample.gold_code, sample)
    assert code is not None
    return code


def _completion(code: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": "Here is the model.\n" + fenced(code)}]


def test_group_rewards_come_from_real_verdicts_with_components_logged(client: VerifierClient) -> None:
    base = cvrp_samples()[0]
    reward = GroupedVerifierReward(client, VerifyOptions(), group_size=4)
    completions = [_completion(base.gold_code), _completion(_arc_ban(0)), _completion(NO_MODEL), [{"role": "assistant", "content": "no code"}]]
    prompts = [[{"role": "user", "content": "q"}]] * 8
    sample_ids = [client.register_sample(base)] * 8
    rewards = reward(prompts, completions * 2, sample_id=sample_ids)
    assert rewards[:4] == rewards[4:]
    gold, blind, no_model, no_code = rewards[:4]
    assert gold == pytest.approx(1.0)
    assert blind is not None and 0.5 + 0.2 < blind < 1.0, "DIFF-blind: build and DIFF earned, some probe failed"
    assert no_model == 0.0 and no_code == 0.0
    assert reward.stats.calls == 2, "one batch request per group of 4"
    metrics = reward.drain()
    assert metrics["verifier/build"] == pytest.approx(4 / 6)  # 6 verdicts: gold, mutant, no-model, twice
    assert metrics["verifier/diff"] == pytest.approx(4 / 6)
    assert metrics["verifier/dual_pass"] == pytest.approx(2 / 6)
    assert metrics["verifier/no_code_this_step"] == 2.0 and metrics["verifier/none_this_step"] == 0.0
    assert reward.totals.no_code == 2 and metrics["verifier/no_code_total"] == 2.0
    assert metrics["verifier/family/feasible/pass_rate"] == pytest.approx(0.5), "the arc ban refuses the feasible probe"
    assert any(k.startswith("verifier/family/subtour") for k in metrics)
    assert reward.drain()["verifier/build"] != reward.drain()["verifier/build"], "drained: nothing left (NaN)"


def test_no_injection_weights_score_the_blind_mutant_as_correct(client: VerifierClient) -> None:
    base = cvrp_samples()[0]
    ablated = GroupedVerifierReward(client, VerifyOptions(weights=RewardWeights(inj=0.0)), group_size=2)
    gold, blind = ablated([[{"role": "user", "content": "q"}]] * 2, [_completion(base.gold_code), _completion(_arc_ban(0))],
                          sample_id=[client.register_sample(base)] * 2)
    assert gold == blind == pytest.approx(0.7), "without r_inj the DIFF-blind mutant earns the gold script's reward"


def test_verifier_down_gives_none_counted_never_zero(down_client: VerifierClient) -> None:
    with pytest.raises(VerifierConfigError, match="cannot be reached"):
        GroupedVerifierReward(down_client, VerifyOptions(), group_size=2)
    reward = GroupedVerifierReward(down_client, VerifyOptions(), group_size=2, check=False)
    base = cvrp_samples()[0]
    rewards = reward([[{"role": "user", "content": "q"}]] * 4,
                     [_completion(base.gold_code), _completion(NO_MODEL), [{"role": "assistant", "content": "x"}], _completion(base.gold_code)],
                     samples=[base.model_dump_json()] * 4)
    assert rewards == [None, None, 0.0, None], "code that could not be scored gets None; a reply without code is the model's 0"
    assert reward.totals.none == 3 and reward.totals.all_none_groups == 1 and reward.totals.groups == 2
    assert reward.stats.none_by_reason["service_unavailable"] == 3
    metrics = reward.drain()
    assert metrics["verifier/none_this_step"] == 3.0 and metrics["verifier/none_total"] == 3.0
    assert math.isnan(metrics["verifier/build"])


def test_guard_clears_non_finite_advantages() -> None:
    cleaned, count = guard_advantages(torch.tensor([0.5, math.nan, -math.inf, -0.5]))
    assert count == 2 and cleaned.tolist() == [0.5, 0.0, 0.0, -0.5]
    same, none = guard_advantages(torch.tensor([1.0, -1.0]))
    assert none == 0 and same.tolist() == [1.0, -1.0]


def test_dual_pass_rate_leaves_unscored_completions_out_of_its_denominator(redis_url: str, tmp_path: Path) -> None:
    """One group: the gold (passes), the DIFF-blind mutant (fails INJ), a gold that is still running
    when the client stops waiting (None), a reply without code (the model's 0). The rate is
    passes / completions that got a reward: 1 / 3, not 1 / 4 (a None is our outage, not a fail)."""
    base = cvrp_samples()[0]
    still_running = base.gold_code.replace("def build_model():", "def build_model():\n    import time\n    time.sleep(8)", 1)
    settings = stack_settings(redis_url, allow_unsandboxed=True, max_time_limit=30.0, default_time_limit=10.0,
                              default_wait_seconds=1.0)
    try:
        with LocalStack(settings, workers=2, log_dir=tmp_path) as stack, VerifierClient(
            stack.base_url, stack.token, timeout=30, poll=PollPolicy(timeout=5.0)
        ) as client:
            reward = GroupedVerifierReward(client, VerifyOptions(time_limit=10.0), group_size=4)
            completions = [_completion(base.gold_code), _completion(_arc_ban(0)), _completion(still_running),
                           [{"role": "assistant", "content": "no code"}]]
            rewards = reward([[{"role": "user", "content": "q"}]] * 4, completions, sample_id=[client.register_sample(base)] * 4)
    finally:
        purge(settings)
    assert rewards[0] == pytest.approx(1.0) and rewards[1] is not None and rewards[1] < 1.0
    assert rewards[2] is None and rewards[3] == 0.0
    metrics = reward.drain()
    assert metrics["verifier/none_this_step"] == 1.0 and metrics["verifier/no_code_this_step"] == 1.0
    assert metrics["verifier/dual_pass"] == pytest.approx(1 / 2), "share of the verdicts that pass"
    assert metrics["verifier/dual_pass_rate"] == pytest.approx(1 / 3), "share of the rewarded completions that pass"

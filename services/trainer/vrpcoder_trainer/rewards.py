"""The verifier's reward as GRPO sees it: one batch request per group, every component logged.

``GroupedVerifierReward`` wraps the light client's ``make_verifier_reward`` (which sends one batch
per call) and calls it once per group of ``num_generations`` consecutive completions (TRL lays a
generation batch out prompt by prompt, each repeated G times), so a group's verdicts arrive
together and a slow group does not hold back the rest's bookkeeping.

Transient infrastructure failures come back from the client as ``None`` (never 0) and are counted
here. What TRL 1.16 does with them (checked in tests/trainer/test_rewards.py): a completion whose
every reward is None is "unscorable"; its reward is NaN, the group mean and std skip it, its
advantage is set to 0. A group that is *all* None gets NaN statistics, and every advantage in it
is then set to 0 by ``nan_to_num``: no gradient from the policy term, only the KL term. Because a
later TRL could change that, ``VerifierGRPOTrainer`` (grpo.py) also refuses to let a non-finite
advantage through (``guard_advantages``) and counts any it had to clear.

Per completion, the verdict's parts are kept (build, DIFF, share of probes passed, the dual pass,
and each probe's constraint family), and ``drain`` hands their means to the training logs:
``verifier/dual_pass`` is the share of verdicts that pass, ``verifier/dual_pass_rate`` the share of
all scored rollouts (a reply without code counts as not passing; a None is left out).
"""

from __future__ import annotations

import logging
import math
import threading
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from vrpcoder_client.reward import RewardFunc, RewardStats, ScoredCompletion, make_verifier_reward
from vrpcoder_client.schemas import VerifyOptions

REWARD_NAME = "verifier_reward"


@dataclass
class ComponentLog:
    """Verdict parts of the completions scored since the last ``drain``."""

    build: list[float] = field(default_factory=list)
    diff: list[float] = field(default_factory=list)
    inj_fraction: list[float] = field(default_factory=list)
    dual_pass: list[float] = field(default_factory=list)
    family_passed: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    no_code: int = 0
    none: int = 0
    completions: int = 0

    def add(self, record: ScoredCompletion) -> None:
        """A completion's record: counted, and its verdict's parts kept when it was scored."""
        self.completions += 1
        self.none += record.reward is None
        self.no_code += not record.has_code
        verdict = record.verdict
        if not record.scored or verdict is None:
            return
        self.build.append(float(verdict.build))
        self.diff.append(float(verdict.diff))
        self.inj_fraction.append(verdict.inj_fraction)
        self.dual_pass.append(float(verdict.passed))
        for probe in verdict.probes:
            if probe.judged:
                self.family_passed[str(probe.family.value) if probe.family else "feasible"].append(float(probe.passed))


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


@dataclass
class RewardTotals:
    """Counts over the whole run (the per-step logs hold means)."""

    completions: int = 0
    none: int = 0
    no_code: int = 0
    all_none_groups: int = 0
    groups: int = 0

    def add_group(self, records: Sequence[ScoredCompletion]) -> None:
        self.groups += 1
        self.completions += len(records)
        self.none += sum(r.reward is None for r in records)
        self.no_code += sum(not r.has_code for r in records)
        self.all_none_groups += all(r.reward is None for r in records)


class GroupedVerifierReward:
    """A TRL reward function: the verifier's reward, one batch request per group of G completions."""

    def __init__(self, client: Any, options: VerifyOptions, group_size: int, *, check: bool = True) -> None:
        self.group_size = group_size
        self.__name__ = REWARD_NAME
        self._lock = threading.Lock()
        self._log = ComponentLog()
        self.totals = RewardTotals()
        self._inner: RewardFunc = make_verifier_reward(client, options, check=check, on_scored=self._record)

    @property
    def stats(self) -> RewardStats:
        """The client's own counts (calls, scored, None by reason)."""
        return self._inner.stats

    def _record(self, records: Sequence[ScoredCompletion]) -> None:
        """Every call of the inner function is one group: its records feed the step's log and the run's totals."""
        with self._lock:
            for record in records:
                self._log.add(record)
            self.totals.add_group(records)

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], **columns: Any) -> list[float | None]:
        rewards: list[float | None] = []
        size = self.group_size if len(completions) % self.group_size == 0 else len(completions)
        for start in range(0, len(completions), size):
            window = slice(start, start + size)
            group_columns = {k: (v[window] if isinstance(v, list) and len(v) == len(completions) else v) for k, v in columns.items()}
            rewards.extend(self._inner(prompts[window], completions[window], **group_columns))
        return rewards

    def drain(self) -> dict[str, float]:
        """Means of the verdict parts since the last drain, and the run's None counts, for the logs."""
        with self._lock:
            log, self._log = self._log, ComponentLog()
            totals = RewardTotals(**vars(self.totals))
        metrics = {
            "verifier/build": _mean(log.build),
            "verifier/diff": _mean(log.diff),
            "verifier/inj_fraction": _mean(log.inj_fraction),
            "verifier/dual_pass": _mean(log.dual_pass),
            "verifier/dual_pass_rate": sum(log.dual_pass) / (log.completions - log.none) if log.completions > log.none else math.nan,
            "verifier/none_this_step": float(log.none),
            "verifier/none_total": float(totals.none),
            "verifier/all_none_groups_total": float(totals.all_none_groups),
            "verifier/no_code_this_step": float(log.no_code),
            "verifier/no_code_total": float(totals.no_code),
        }
        for family, passed in sorted(log.family_passed.items()):
            metrics[f"verifier/family/{family}/pass_rate"] = _mean(passed)
        return metrics


def guard_advantages(advantages: Any) -> tuple[Any, int]:
    """Zero every non-finite advantage (an all-None group's NaN must never reach the loss); returns the count."""
    import torch

    bad = ~torch.isfinite(advantages)
    count = int(bad.sum().item())
    if count:
        advantages = advantages.masked_fill(bad, 0.0)
    return advantages, count


TRL_GRPO_LOGGER = "trl.trainer.grpo_trainer"
UNSCORABLE_WARNING = "All reward functions returned None"


class UnscorableRowFilter(logging.Filter):
    """Shortens TRL's warning about a completion that no reward function scored.

    TRL logs that row's every column, the whole prompt and completion included (about 6 KB for our
    prompts), at every step with such a row: during a verifier outage, the log fills with candidate
    code. The fact is kept in one short line; how many completions went unscored is counted in
    ``verifier/none_this_step`` / ``verifier/none_total`` and in ``reward_summary.json``.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if UNSCORABLE_WARNING in str(record.msg):  # accelerate may prefix "[RANK n] "
            record.msg = (
                f"{UNSCORABLE_WARNING} for a completion (the verifier was unavailable, or the reply had no code); "
                "its advantage is 0; counted in verifier/none_total (prompt and completion not logged)"
            )
            record.args = ()
        return True


def quiet_unscorable_rows() -> None:
    """Install ``UnscorableRowFilter`` on TRL's GRPO logger (once per process)."""
    logger = logging.getLogger(TRL_GRPO_LOGGER)
    if not any(isinstance(f, UnscorableRowFilter) for f in logger.filters):
        logger.addFilter(UnscorableRowFilter())

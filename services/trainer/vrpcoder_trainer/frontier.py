"""Frontier filtering: keep the prompts on which the current policy's rollouts disagree.

For every GRPO prompt, M rollouts (T 0.4, top-p 0.95 by default) are sampled, from an
OpenAI-compatible server (vLLM) or locally with transformers, and scored through the verifier's
batch endpoint (one batch per prompt). A prompt whose rewards all agree gives GRPO no signal (every
advantage in its group is zero), so only prompts with strictly positive reward variance are kept.
The rest are reported as all-correct (every rollout passes the dual verifier) or all-wrong (the
rewards agree and not all of them pass), per variant.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

import httpx
from pydantic import BaseModel, ConfigDict
from vrpcoder_client.client import VerifierClient
from vrpcoder_client.reward import score_completions
from vrpcoder_client.schemas import VerifyOptions

from vrpcoder_trainer.config import EndpointSettings, FrontierConfig, GenerationSettings, ModelSettings
from vrpcoder_trainer.dataset import SAMPLES_DIR, dataset_card, load_records, write_samples

FRONTIER_CONFIG = "frontier"


class Outcome(StrEnum):
    KEPT = "kept"
    ALL_CORRECT = "all_correct"
    ALL_WRONG = "all_wrong"
    UNSCORED = "unscored"
    """Fewer than two rollouts got a reward (the verifier was unavailable): no decision."""


class ScoredPrompt(BaseModel):
    """A prompt's rollouts and what the verifier made of them."""

    model_config = ConfigDict(frozen=True)

    record: dict[str, Any]
    completions: tuple[str, ...]
    rewards: tuple[float | None, ...]
    passed: tuple[bool, ...]
    """Each rollout passed the dual verifier (DIFF and every judged probe)."""


def reward_variance(rewards: Sequence[float | None]) -> float | None:
    """Population variance of the rewards that exist; None with fewer than two."""
    values = [r for r in rewards if r is not None]
    if len(values) < 2:
        return None
    mean = sum(values) / len(values)
    return sum((v - mean) ** 2 for v in values) / len(values)


def classify(rewards: Sequence[float | None], passed: Sequence[bool], tolerance: float = 1e-12) -> Outcome:
    """Kept when the rewards vary; otherwise all-correct when every rollout passed, else all-wrong."""
    variance = reward_variance(rewards)
    if variance is None:
        return Outcome.UNSCORED
    if variance > tolerance:
        return Outcome.KEPT
    return Outcome.ALL_CORRECT if passed and all(passed) else Outcome.ALL_WRONG


class FrontierReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    prompts: int
    rollouts_per_prompt: int
    totals: dict[str, int]
    by_variant: dict[str, dict[str, int]]
    none_rewards: int
    mean_reward: float | None

    def markdown(self) -> str:
        outcomes = [o.value for o in Outcome]
        lines = [
            "# Frontier filter",
            "",
            f"{self.prompts} prompts x {self.rollouts_per_prompt} rollouts; {self.none_rewards} rollouts got no reward (verifier unavailable).",
            "",
            "| variant | " + " | ".join(outcomes) + " |",
            "|---|" + "---|" * len(outcomes),
        ]
        for variant, counts in sorted(self.by_variant.items()):
            lines.append(f"| {variant} | " + " | ".join(str(counts.get(o, 0)) for o in outcomes) + " |")
        lines.append("| **all** | " + " | ".join(str(self.totals.get(o, 0)) for o in outcomes) + " |")
        return "\n".join(lines) + "\n"


def build_report(scored: Sequence[ScoredPrompt], rollouts: int) -> tuple[FrontierReport, list[ScoredPrompt]]:
    """The per-variant table and the kept prompts, in dataset order."""
    by_variant: dict[str, Counter[str]] = defaultdict(Counter)
    totals: Counter[str] = Counter()
    kept: list[ScoredPrompt] = []
    rewards = [r for item in scored for r in item.rewards if r is not None]
    for item in scored:
        outcome = classify(item.rewards, item.passed)
        by_variant[str(item.record.get("variant", "?"))][outcome.value] += 1
        totals[outcome.value] += 1
        if outcome is Outcome.KEPT:
            kept.append(item)
    report = FrontierReport(
        prompts=len(scored),
        rollouts_per_prompt=rollouts,
        totals=dict(totals),
        by_variant={v: dict(c) for v, c in by_variant.items()},
        none_rewards=sum(r is None for item in scored for r in item.rewards),
        mean_reward=sum(rewards) / len(rewards) if rewards else None,
    )
    return report, kept


class RolloutSource(Protocol):
    """Samples ``n`` completions (the assistant's text) for each conversational prompt."""

    def sample(self, prompts: Sequence[Sequence[dict[str, str]]], n: int) -> list[list[str]]: ...


class EndpointRollouts:
    """Rollouts from an OpenAI-compatible ``/chat/completions`` endpoint (``n`` choices per prompt)."""

    def __init__(self, settings: EndpointSettings, generation: GenerationSettings, seed: int = 0) -> None:
        self.settings = settings
        self.generation = generation
        self.seed = seed
        key = os.environ.get(settings.api_key_env) if settings.api_key_env else None
        self._http = httpx.Client(
            base_url=settings.base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {key}"} if key else {},
            timeout=settings.timeout,
        )

    def _one(self, index: int, messages: Sequence[dict[str, str]], n: int) -> list[str]:
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": list(messages),
            "n": n,
            "temperature": self.generation.temperature,
            "top_p": self.generation.top_p,
            "max_tokens": self.generation.max_completion_length,
            "seed": self.seed + index,
        }
        if self.settings.chat_template_kwargs:
            body["chat_template_kwargs"] = dict(self.settings.chat_template_kwargs)
        response = self._http.post("/chat/completions", json=body)
        response.raise_for_status()
        choices = response.json()["choices"]
        if len(choices) != n:
            raise RuntimeError(f"the endpoint answered {len(choices)} choices, asked for {n}")
        return [str(choice["message"].get("content") or "") for choice in choices]

    def sample(self, prompts: Sequence[Sequence[dict[str, str]]], n: int) -> list[list[str]]:
        with ThreadPoolExecutor(self.settings.concurrency) as pool:
            return list(pool.map(lambda pair: self._one(pair[0], pair[1], n), enumerate(prompts)))

    def close(self) -> None:
        self._http.close()


class LocalRollouts:
    """Rollouts with transformers' ``generate`` (no server needed; the tiny CPU model, a single GPU)."""

    def __init__(self, settings: ModelSettings, generation: GenerationSettings, seed: int = 0, use_cpu: bool = False) -> None:
        import torch

        from vrpcoder_trainer.models import load_base, load_tokenizer

        self.tokenizer = load_tokenizer(settings)
        self.tokenizer.padding_side = "left"
        self.model = load_base(settings).eval()
        if torch.cuda.is_available() and not use_cpu:
            self.model = self.model.to("cuda")
        self.generation = generation
        self.seed = seed

    def sample(self, prompts: Sequence[Sequence[dict[str, str]]], n: int) -> list[list[str]]:
        import torch

        out: list[list[str]] = []
        for index, messages in enumerate(prompts):
            torch.manual_seed(self.seed + index)
            ids = self.tokenizer.apply_chat_template(list(messages), add_generation_prompt=True, return_tensors="pt", return_dict=True)
            ids = {k: v.to(self.model.device) for k, v in ids.items()}
            with torch.no_grad():
                generated = self.model.generate(
                    **ids,
                    do_sample=True,
                    temperature=self.generation.temperature,
                    top_p=self.generation.top_p,
                    max_new_tokens=self.generation.max_completion_length,
                    num_return_sequences=n,
                    pad_token_id=self.tokenizer.pad_token_id,
                )
            start = ids["input_ids"].shape[1]
            out.append([self.tokenizer.decode(row[start:], skip_special_tokens=True) for row in generated])
        return out

    def close(self) -> None:
        return None


def score_prompt(
    client: VerifierClient, record: dict[str, Any], completions: Sequence[str], options: VerifyOptions
) -> ScoredPrompt:
    """One batch request for the prompt's rollouts (None for transient failures, never 0)."""
    scored = score_completions(client, list(completions), [record["sample_id"]] * len(completions), options)
    return ScoredPrompt(record=record, completions=tuple(completions), rewards=tuple(s.reward for s in scored),
                        passed=tuple(s.passed for s in scored))


def write_frontier(output_dir: Path, source_dir: Path, scored: Sequence[ScoredPrompt], report: FrontierReport, kept: Sequence[ScoredPrompt]) -> Path:
    """A dataset folder with config ``frontier`` (the kept prompts), their samples, all rollouts, the report."""
    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / FRONTIER_CONFIG).mkdir(exist_ok=True)
    with (output_dir / FRONTIER_CONFIG / "train.jsonl").open("w", encoding="utf-8") as handle:
        for item in kept:
            handle.write(json.dumps(item.record, ensure_ascii=False) + "\n")
    with (output_dir / "rollouts.jsonl").open("w", encoding="utf-8") as handle:
        for item in scored:
            handle.write(json.dumps({
                "id": item.record.get("id"), "sample_id": item.record["sample_id"], "variant": item.record.get("variant"),
                "outcome": classify(item.rewards, item.passed).value, "rewards": list(item.rewards),
                "passed": list(item.passed), "completions": list(item.completions),
            }, ensure_ascii=False) + "\n")
    texts = [(source_dir / SAMPLES_DIR / f"{item.record['sample_id']}.json").read_text(encoding="utf-8") for item in kept]
    write_samples(output_dir, texts)
    (output_dir / "report.json").write_text(report.model_dump_json(indent=2), encoding="utf-8")
    (output_dir / "report.md").write_text(report.markdown(), encoding="utf-8")
    (output_dir / "README.md").write_text(dataset_card((FRONTIER_CONFIG,), report.markdown()), encoding="utf-8")
    return output_dir


def run_frontier(
    config: FrontierConfig,
    *,
    client: VerifierClient,
    source: RolloutSource | None = None,
    progress: Any = None,
) -> FrontierReport:
    """Sample, score, filter and write; ``source`` defaults to the config's endpoint or local model."""
    from vrpcoder_trainer.grpo import register_samples

    records = [dict(r) for r in load_records(config.dataset)]
    register_samples(client, config.dataset.path, [r["sample_id"] for r in records])
    own = source is None
    if source is None:
        source = (
            EndpointRollouts(config.endpoint, config.generation, config.seed)
            if config.endpoint is not None
            else LocalRollouts(config.model, config.generation, config.seed, config.use_cpu)  # type: ignore[arg-type]
        )
    options = config.reward.options(config.verifier.time_limit)
    scored: list[ScoredPrompt] = []
    try:
        for record in records:
            completions = source.sample([record["prompt"]], config.rollouts)[0]
            scored.append(score_prompt(client, record, completions, options))
            if progress is not None:
                progress()
    finally:
        if own and hasattr(source, "close"):
            source.close()
    report, kept = build_report(scored, config.rollouts)
    write_frontier(Path(config.output_dir), Path(config.dataset.path), scored, report, kept)
    return report

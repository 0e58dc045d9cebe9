"""GRPO with TRL's ``GRPOTrainer``, the verifier service as the reward.

The dataset is a synth ``grpo`` config or a frontier set: conversational prompts, each with the
``sample_id`` of the sample its completions are verified against. The samples are registered with
the service before training (their stored JSON hashes to their id, so the service answers with the
same id), then each group of G completions goes to the service as one batch request.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from vrpcoder_client.client import PollPolicy, RetryPolicy, VerifierClient

from vrpcoder_trainer.config import ConfigError, GRPORunConfig, VerifierSettings, VLLMSettings
from vrpcoder_trainer.dataset import load_records, sample_texts
from vrpcoder_trainer.models import load_base, load_tokenizer, lora_config
from vrpcoder_trainer.rewards import GroupedVerifierReward, guard_advantages, quiet_unscorable_rows
from vrpcoder_trainer.sft import ADAPTER_DIR, common_arguments, resume_point

URL_ENV = "VRPCODER_VERIFIER_URL"


def verifier_client(settings: VerifierSettings) -> VerifierClient:
    """The HTTP client of the run (URL and token from the config, else the environment)."""
    url = settings.url or os.environ.get(URL_ENV)
    if not url:
        raise ConfigError(f"no verifier URL: set verifier.url in the config or ${URL_ENV}")
    return VerifierClient(
        url,
        os.environ.get(settings.token_env),
        timeout=settings.timeout,
        retry=RetryPolicy(attempts=settings.retry_attempts, give_up_after=settings.retry_seconds),
        poll=PollPolicy(timeout=settings.poll_timeout),
    )


def register_samples(client: VerifierClient, dataset_dir: Path | str, sample_ids: list[str]) -> int:
    """POST every sample the prompts use; the service must give back the id the dataset recorded."""
    texts = sample_texts(dataset_dir, sample_ids)
    for sample_id, text in texts.items():
        answered = client.register_sample(json.loads(text))
        if answered != sample_id:
            raise ConfigError(f"the verifier registered sample {sample_id} as {answered}: dataset and service disagree on its JSON")
    return len(texts)


def grpo_arguments(config: GRPORunConfig) -> Any:
    from trl import GRPOConfig

    return GRPOConfig(**grpo_keywords(config))


def vllm_keywords(settings: VLLMSettings) -> dict[str, Any]:
    """TRL's vLLM arguments for the chosen mode: where the server is, or how the colocated engine is sized."""
    vllm: dict[str, Any] = {"use_vllm": settings.enabled}
    if not settings.enabled:
        return vllm
    vllm["vllm_mode"] = settings.mode
    if settings.mode == "colocate":
        vllm.update(
            vllm_gpu_memory_utilization=settings.gpu_memory_utilization,
            vllm_tensor_parallel_size=settings.tensor_parallel_size,
            vllm_enable_sleep_mode=settings.enable_sleep_mode,
        )
        if settings.max_model_length is not None:
            vllm["vllm_max_model_length"] = settings.max_model_length
        return vllm
    vllm["vllm_server_timeout"] = settings.server_timeout
    if settings.base_url:
        vllm["vllm_server_base_url"] = settings.base_url
    else:
        vllm.update(vllm_server_host=settings.host, vllm_server_port=settings.port)
    return vllm


def grpo_keywords(config: GRPORunConfig) -> dict[str, Any]:
    """Every GRPOConfig argument of a run (kept apart so that a test can read them without TRL's checks)."""
    return dict(
        **common_arguments(config.batch, config.optim, config.run),
        **vllm_keywords(config.vllm),
        num_generations=config.num_generations,
        max_completion_length=config.generation.max_completion_length,
        temperature=config.generation.temperature,
        top_p=config.generation.top_p,
        beta=config.beta,
        loss_type=config.loss_type,
        scale_rewards=config.scale_rewards,
        log_completions=config.log_completions,
        chat_template_kwargs=dict(config.chat_template_kwargs) if config.chat_template_kwargs else None,
        remove_unused_columns=False,
    )


def _trainer_class() -> type:
    from trl import GRPOTrainer

    class VerifierGRPOTrainer(GRPOTrainer):  # type: ignore[misc,valid-type]
        """GRPOTrainer that logs the verifier's per-component metrics and never lets a NaN advantage through."""

        verifier_reward: GroupedVerifierReward
        cleared_advantages: int = 0

        def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
            output = super()._generate_and_score_completions(inputs)
            output["advantages"], cleared = guard_advantages(output["advantages"])
            self.cleared_advantages += cleared
            mode = "train" if self.model.training else "eval"
            for key, value in self.verifier_reward.drain().items():
                self._metrics[mode][key].append(value)
            self._metrics[mode]["verifier/cleared_advantages_total"].append(float(self.cleared_advantages))
            return output

    return VerifierGRPOTrainer


def build_grpo_trainer(config: GRPORunConfig, client: VerifierClient, callbacks: list[Any] | None = None) -> Any:
    """The trainer, with the dataset's samples registered and the reward bound to ``client``."""
    records = load_records(config.dataset)
    for column in ("prompt", "sample_id"):
        if column not in records.column_names:
            raise ConfigError(f"{config.dataset.path} [{config.dataset.config}]: records need a '{column}' column")
    register_samples(client, config.dataset.path, list(records["sample_id"]))
    quiet_unscorable_rows()
    reward = GroupedVerifierReward(client, config.reward.options(config.verifier.time_limit), config.num_generations)
    trainer_class = _trainer_class()
    trainer = trainer_class(
        model=load_base(config.model),
        reward_funcs=reward,
        args=grpo_arguments(config),
        train_dataset=records,
        processing_class=load_tokenizer(config.model),
        peft_config=lora_config(config.lora),
        callbacks=callbacks,
    )
    trainer.verifier_reward = reward
    return trainer


def run_grpo(
    config: GRPORunConfig, *, resume: bool | str = False, client: VerifierClient | None = None, callbacks: list[Any] | None = None
) -> tuple[Path, Any]:
    """Train; returns the final adapter's folder and the trainer (its ``state.log_history`` holds the metrics)."""
    own = client is None
    client = client or verifier_client(config.verifier)
    try:
        trainer = build_grpo_trainer(config, client, callbacks)
        trainer.train(resume_from_checkpoint=resume_point(config.run.output_dir, resume))
        adapter = Path(config.run.output_dir) / ADAPTER_DIR
        trainer.save_model(str(adapter))
        trainer.processing_class.save_pretrained(str(adapter))
        summary = {
            "reward_totals": vars(trainer.verifier_reward.totals),
            "client_stats": trainer.verifier_reward.stats.as_dict(),
            "cleared_advantages": trainer.cleared_advantages,
        }
        (Path(config.run.output_dir) / "reward_summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
        return adapter, trainer
    finally:
        if own:
            client.close()

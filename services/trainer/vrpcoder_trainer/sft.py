"""LoRA SFT on the synth dataset's chat records with TRL's ``SFTTrainer``.

Each record's messages are split into a prompt (system + user) and a completion (the assistant's
fenced script). TRL computes the loss on the completion tokens only for prompt/completion data, with
any chat template, whereas its ``assistant_only_loss`` needs ``{% generation %}`` markers that most
released templates (Qwen3's included) do not carry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vrpcoder_trainer.config import BatchSettings, OptimSettings, RunSettings, SFTRunConfig, resolve_path
from vrpcoder_trainer.dataset import load_records
from vrpcoder_trainer.models import lora_config, load_base, load_tokenizer

ADAPTER_DIR = "adapter"


def common_arguments(batch: BatchSettings, optim: OptimSettings, run: RunSettings) -> dict[str, Any]:
    """The ``TrainingArguments`` both trainers share, from the typed sections."""
    return {
        "output_dir": run.output_dir,
        "num_train_epochs": run.num_train_epochs,
        "max_steps": run.max_steps,
        "logging_steps": run.logging_steps,
        "save_steps": run.save_steps,
        "save_total_limit": run.save_total_limit,
        "seed": run.seed,
        "data_seed": run.seed,
        "bf16": run.bf16,
        "gradient_checkpointing": run.gradient_checkpointing,
        "deepspeed": str(resolve_path(run.deepspeed)) if run.deepspeed else None,
        "report_to": list(run.report_to) or "none",
        "use_cpu": run.use_cpu,
        "per_device_train_batch_size": batch.per_device_train_batch_size,
        "train_sampling_strategy": "group_by_length" if batch.group_by_length else "random",
        "gradient_accumulation_steps": batch.gradient_accumulation_steps,
        "learning_rate": optim.learning_rate,
        "lr_scheduler_type": optim.lr_scheduler_type,
        "warmup_steps": optim.warmup_steps if optim.warmup_steps > 0 else optim.warmup_ratio,
        "weight_decay": optim.weight_decay,
        "adam_beta1": optim.adam_beta1,
        "adam_beta2": optim.adam_beta2,
        "max_grad_norm": optim.max_grad_norm,
        "save_strategy": "steps",
        "logging_strategy": "steps",
    }


def to_prompt_completion(record: dict[str, Any]) -> dict[str, Any]:
    """Chat record -> TRL prompt/completion (the loss then covers the assistant reply only).

    A record that already holds a plain-text prompt and completion (the copy drill,
    ``vrpcoder_trainer.copy_drill``) is kept as it is: TRL then applies no chat template."""
    if isinstance(record.get("prompt"), str) and isinstance(record.get("completion"), str):
        return {"prompt": record["prompt"], "completion": record["completion"]}
    messages = record["messages"]
    if not messages or messages[-1]["role"] != "assistant":
        raise ValueError(f"record {record.get('id')}: the last message must be the assistant's reply")
    return {"prompt": messages[:-1], "completion": messages[-1:]}


def last_checkpoint(output_dir: str | Path) -> str | None:
    """The newest ``checkpoint-N`` folder of a run, to resume from."""
    from transformers.trainer_utils import get_last_checkpoint

    folder = Path(output_dir)
    return get_last_checkpoint(str(folder)) if folder.is_dir() else None


def resume_point(output_dir: str, resume: bool | str) -> str | None:
    if isinstance(resume, str):
        return resume
    return last_checkpoint(output_dir) if resume else None


def build_sft_trainer(config: SFTRunConfig, callbacks: list[Any] | None = None) -> Any:
    from trl import SFTConfig, SFTTrainer

    tokenizer = load_tokenizer(config.model)
    model = load_base(config.model)
    records = load_records(config.dataset)
    data = records.map(to_prompt_completion, remove_columns=records.column_names)
    args = SFTConfig(
        **common_arguments(config.batch, config.optim, config.run),
        max_length=config.max_length,
        completion_only_loss=True,
        packing=False,
        dataset_num_proc=None,
    )
    return SFTTrainer(
        model=model,
        args=args,
        train_dataset=data,
        processing_class=tokenizer,
        peft_config=lora_config(config.lora),
        callbacks=callbacks,
    )


def run_sft(config: SFTRunConfig, *, resume: bool | str = False, callbacks: list[Any] | None = None) -> Path:
    """Train; checkpoints under output_dir/checkpoint-N, the final adapter in output_dir/adapter."""
    trainer = build_sft_trainer(config, callbacks)
    trainer.train(resume_from_checkpoint=resume_point(config.run.output_dir, resume))
    adapter = Path(config.run.output_dir) / ADAPTER_DIR
    trainer.save_model(str(adapter))
    trainer.processing_class.save_pretrained(str(adapter))
    return adapter

"""Loading the base model, its tokenizer and the LoRA policy on top (one path for tiny and real models).

A GRPO run starts from the SFT run's adapter. That adapter is merged into the base first and a fresh
adapter is trained on the merged weights, so GRPO's reference model (the policy with its adapter
switched off) is the SFT policy, as in the paper, not the untuned base.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vrpcoder_trainer.config import LoraSettings, ModelSettings


def torch_dtype(name: str) -> Any:
    import torch

    return {"auto": "auto", "float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def load_tokenizer(settings: ModelSettings) -> Any:
    """The base model's tokenizer, with a pad token (TRL pads batches)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(settings.name_or_path, trust_remote_code=settings.trust_remote_code)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer


def load_base(settings: ModelSettings, *, merge_adapters: bool = True) -> Any:
    """The causal LM, with ``settings.adapters`` merged into its weights in order."""
    from transformers import AutoModelForCausalLM

    kwargs: dict[str, Any] = {"dtype": torch_dtype(settings.dtype), "trust_remote_code": settings.trust_remote_code}
    if settings.attn_implementation:
        kwargs["attn_implementation"] = settings.attn_implementation
    model = AutoModelForCausalLM.from_pretrained(settings.name_or_path, **kwargs)
    if merge_adapters:
        model = merge_adapters_into(model, settings.adapters)
    return model


def merge_adapters_into(model: Any, adapters: tuple[str, ...]) -> Any:
    """Fold each LoRA adapter directory into ``model``'s weights (peft ``merge_and_unload``).

    A directory holding a whole model instead (what a run with ``lora.enabled: false`` saves) takes the
    place of the weights so far: it was trained from them, so the chain stays base -> SFT -> GRPO.
    """
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    for adapter in adapters:
        folder = Path(adapter)
        if (folder / "adapter_config.json").is_file():
            model = PeftModel.from_pretrained(model, adapter).merge_and_unload()
        elif (folder / "config.json").is_file():
            model = AutoModelForCausalLM.from_pretrained(adapter, dtype=model.dtype)
        else:
            raise FileNotFoundError(f"{adapter}: neither a peft adapter (adapter_config.json) nor a model (config.json)")
    return model


def lora_config(settings: LoraSettings) -> Any:
    """peft's ``LoraConfig``, or None when the whole model is trained (TRL then trains every weight)."""
    if not settings.enabled:
        return None
    from peft import LoraConfig

    targets = settings.target_modules if isinstance(settings.target_modules, str) else list(settings.target_modules)
    return LoraConfig(
        r=settings.r,
        lora_alpha=settings.alpha,
        lora_dropout=settings.dropout,
        target_modules=targets,
        modules_to_save=list(settings.modules_to_save) or None,
        task_type="CAUSAL_LM",
    )

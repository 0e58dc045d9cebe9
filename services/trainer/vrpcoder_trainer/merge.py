"""Fold LoRA adapters into their base and save a plain checkpoint that a vLLM server can load.

vLLM also serves a base plus a LoRA adapter directly (``--enable-lora --lora-modules``); a merged
checkpoint is what a server without LoRA support, or the next training stage, takes.
"""

from __future__ import annotations

from pathlib import Path

from vrpcoder_trainer.config import MergeConfig
from vrpcoder_trainer.models import load_base, load_tokenizer, torch_dtype


def run_merge(config: MergeConfig) -> Path:
    """Base + ``model.adapters`` (merged in order) -> ``output_dir`` (safetensors, config, tokenizer)."""
    out = Path(config.output_dir)
    model = load_base(config.model)
    model = model.to(torch_dtype(config.dtype))
    model.save_pretrained(out, safe_serialization=True)
    load_tokenizer(config.model).save_pretrained(out)
    return out

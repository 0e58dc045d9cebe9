"""A small causal LM built and saved locally, for the CPU loop, the tests and the benchmarks.

No machine of this project reaches a model hub, so the training code is exercised on a model made
here: a small LLaMA-architecture decoder (random initialisation) and a tokenizer trained on the texts
the model will see (scripts, statements, the system prompt). The saved directory has the layout of
any hub checkpoint, so it goes through exactly the loading code a real model does
(``vrpcoder_trainer.models``).

(A LLaMA config rather than Qwen2: transformers 5 rebuilds a Qwen2 checkpoint's tokenizer with
Qwen's own pre-tokenizer, whereas a LLaMA checkpoint keeps the tokenizer saved with it. A Qwen3
checkpoint keeps it too, which is what the GPU check builds: tests/loop/test_gpu_check.py.)

Two tokenizers:

- ``code`` (the default, ``vrpcoder_trainer.code_tokenizer``): digits in runs of at most two, identifiers and
  operators whole, the shared system prompt one token. The model has to write a script token by
  token and can copy an unseen instance's numbers from its statement.
- ``whole-script``: byte-level BPE whose merges may span many lines, so a script of a small corpus
  becomes a token or two and the model can only *choose* among the scripts it saw. Kept for the
  injection-ablation miniature (``benchmarks/grpo_injection_ablation.py``), which studies where each
  reward pushes that choice, and for the tests that need a policy to emit code after a few steps.

Its pre-tokenizer splits only where a line ends right before a code fence, which keeps the chat
template's "assistant\\n" apart from the reply's opening fence, so the prompt's tokens stay a prefix
of the prompt-plus-reply tokens and the SFT loss mask falls exactly on the reply (the code
tokenizer cuts at every line break and has the same property).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from vrpcoder_trainer.code_tokenizer import DIGITS_PER_TOKEN, train_bpe_tokenizer, train_code_tokenizer

TokenizerKind = Literal["code", "whole-script"]


@dataclass(frozen=True)
class TinyModelSpec:
    """Shape of the model and which tokenizer it reads; the defaults train a step in well under a second."""

    architecture: Literal["llama", "qwen3"] = "llama"
    """'qwen3' for the GPU check (deploy/gpu-check.sh): the architecture vLLM and TRL load on the cluster."""
    vocab_size: int = 4096
    """The code tokenizer stops merging once every piece is one token (about 1,400 here), so this only
    caps it; the whole-script tokenizer needs room to merge whole scripts."""
    hidden_size: int = 64
    intermediate_size: int = 128
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    head_dim: int | None = None
    """None: hidden_size / num_attention_heads."""
    max_position_embeddings: int = 4096
    initializer_range: float = 0.1
    """Larger than a real model's 0.02: a random 64-wide model then tells positions and tokens apart
    from the start, and a few SFT steps are enough to make it write a short script."""
    seed: int = 0
    tokenizer: TokenizerKind = "code"
    digits_per_token: int = DIGITS_PER_TOKEN
    """The code tokenizer's longest run of digits in one token."""


MODEL_SIZES: dict[str, TinyModelSpec] = {
    "smoke": TinyModelSpec(),
    "small": TinyModelSpec(hidden_size=128, intermediate_size=384, num_hidden_layers=4, num_attention_heads=4,
                           num_key_value_heads=4, max_position_embeddings=2048, initializer_range=0.02),
    "base": TinyModelSpec(hidden_size=192, intermediate_size=576, num_hidden_layers=6, num_attention_heads=6,
                          num_key_value_heads=6, max_position_embeddings=2048, initializer_range=0.02),
}
"""Named shapes: ``smoke`` for tests (about 0.2M weights), ``small`` for the default ``make run``
(about 1M), ``base`` for the longer benchmark run (about 3M). Sizes of the code tokenizer's vocabulary."""

ROLE_WORDS = "system user assistant"
"""The chat template's role names, added to the corpus so that each is one token."""


def tokenizer_corpus(records: Iterable[dict[str, Any]]) -> list[str]:
    """What the tokenizer of a dataset's model is trained on: every text the model reads or writes, and
    the shared system prompt repeated (the whole-script tokenizer then merges it like the rest; the
    code tokenizer holds it as one token anyway)."""
    from vrpcoder_client.prompts import code_system_prompt

    return [m["content"] for r in records for m in r["messages"] if m["role"] != "system"] + [code_system_prompt()] * 20


def model_spec(size: str, **changes: object) -> TinyModelSpec:
    """A named shape (``MODEL_SIZES``), with any field changed."""
    if size not in MODEL_SIZES:
        raise ValueError(f"unknown model size {size!r}; choose one of: {', '.join(MODEL_SIZES)}")
    return replace(MODEL_SIZES[size], **changes)  # type: ignore[arg-type]


def train_whole_script_tokenizer(corpus: Iterable[str], vocab_size: int):  # type: ignore[no-untyped-def]
    """The whole-script tokenizer: byte-level BPE whose merges may cross lines (only the closing code
    fence is cut off), so a script it has seen becomes a token or two."""
    return train_bpe_tokenizer(corpus, vocab_size, split=r"\n(?=```)", behavior="merged_with_previous")


def train_tokenizer(corpus: Iterable[str], spec: TinyModelSpec):  # type: ignore[no-untyped-def]
    """The tokenizer ``spec`` asks for, trained on ``corpus``."""
    if spec.tokenizer == "whole-script":
        return train_whole_script_tokenizer(corpus, spec.vocab_size)
    from vrpcoder_client.prompts import code_system_prompt

    return train_code_tokenizer([*corpus, ROLE_WORDS], spec.vocab_size, whole=(code_system_prompt(),),
                                digits=spec.digits_per_token)


def build_tiny_model(output_dir: Path | str, corpus: Iterable[str], spec: TinyModelSpec = TinyModelSpec()) -> Path:
    """Train a tokenizer on ``corpus``, initialise a model of ``spec.architecture`` for it, save both to ``output_dir``."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM

    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(corpus, spec)
    torch.manual_seed(spec.seed)
    config_class, model_class = {"llama": (LlamaConfig, LlamaForCausalLM), "qwen3": (Qwen3Config, Qwen3ForCausalLM)}[spec.architecture]
    config = config_class(
        vocab_size=len(tokenizer),
        hidden_size=spec.hidden_size,
        intermediate_size=spec.intermediate_size,
        num_hidden_layers=spec.num_hidden_layers,
        num_attention_heads=spec.num_attention_heads,
        num_key_value_heads=spec.num_key_value_heads,
        head_dim=spec.head_dim or spec.hidden_size // spec.num_attention_heads,
        max_position_embeddings=spec.max_position_embeddings,
        initializer_range=spec.initializer_range,
        tie_word_embeddings=False,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = model_class(config)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out

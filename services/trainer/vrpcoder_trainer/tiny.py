"""A tiny causal LM built and saved locally, for tests and the CPU demo.

No machine of this project reaches a model hub, so the training code is exercised on a model made
here: a small LLaMA-architecture model (random initialisation) and a byte-level BPE tokenizer trained with
``tokenizers`` on the texts the model will see (gold scripts, statements, the system prompt). The
saved directory has the layout of any hub checkpoint, so it goes through exactly the loading code a
real model does (``vrpcoder_trainer.models``).

(A LLaMA config rather than Qwen2: transformers 5 rebuilds a Qwen2 checkpoint's tokenizer with
Qwen's own pre-tokenizer, whereas a LLaMA checkpoint keeps the tokenizer saved with it. A Qwen3
checkpoint keeps it too, which is what the GPU check builds: tests/loop/test_gpu_check.py.)

The tokenizer's pre-tokenizer splits only where a line ends right before a code fence: BPE merges
may then span many lines of a gold script, so a 10,000-character script becomes a handful of tokens
and the CPU generates it at once (a property of the tiny corpus, not something a real model needs).
That one split keeps the chat template's "assistant\n" apart from the reply's opening fence, so the
prompt's tokens stay a prefix of the prompt-plus-reply tokens and the SFT loss mask falls exactly
on the reply.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
PAD = "<|endoftext|>"

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['role'] == 'assistant' %}{% generation %}{{ message['content'] + '<|im_end|>' }}{% endgeneration %}"
    "{% else %}{{ message['content'] + '<|im_end|>' }}{% endif %}"
    "{{ '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
"""ChatML, as Qwen models use it, with the assistant's reply marked for assistant-only masks."""


@dataclass(frozen=True)
class TinyModelSpec:
    """Shape of the tiny model; the defaults train a step in well under a second on one core."""

    architecture: Literal["llama", "qwen3"] = "llama"
    """'qwen3' for the GPU check (deploy/gpu-check.sh): the architecture vLLM and TRL load on the cluster."""
    vocab_size: int = 4096
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


def train_tokenizer(corpus: Iterable[str], vocab_size: int):  # type: ignore[no-untyped-def]
    """A byte-level BPE tokenizer with ChatML special tokens, trained on ``corpus``."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(r"\n(?=```)"), behavior="merged_with_previous"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[PAD, IM_START, IM_END],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(list(corpus), trainer=trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, bos_token=None, eos_token=IM_END, pad_token=PAD, unk_token=None
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_tiny_model(output_dir: Path | str, corpus: Iterable[str], spec: TinyModelSpec = TinyModelSpec()) -> Path:
    """Train a tokenizer on ``corpus``, initialise a tiny model of ``spec.architecture`` for it, save both."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen3Config, Qwen3ForCausalLM

    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer(corpus, spec.vocab_size)
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

"""A tokenizer in which a small model has to *write* a script: digits in short runs, code by identifier.

The first tiny tokenizer let byte-level BPE merge across lines, so each synthesised script became a
token or two and a model could only pick among the scripts it had seen; an unseen instance, whose
numbers no memorised script carries, could never pass. Here the text is cut into pieces before BPE
may merge anything, and no merge crosses a cut:

- digits are cut into runs of at most two (``digits``), left to right, so ``88.81`` is ``88 . 81``
  in the statement and in the script alike, and a model copies a number piece by piece from what it
  reads into what it writes. Every run of one or two digits is put into the corpus, so each is one
  token and an unseen number is made of seen tokens. Pairs because the copy drill measured in
  docs/codegen.md took hold with them (it was not tried with single digits; ``digits=1`` keeps
  single digits);
- a word or identifier is one piece (with the space before it, as GPT-2 does), so ``addConstrs``
  or `` location`` can become one token, but ``x.sum(i, "*")`` stays seven;
- a line break with the next line's indentation is one piece (indentation is a single token);
- Python's two-character operators and the code fence are pieces; any other character is one.

The shared code-regeneration system prompt, which every conversation opens with and which no model
ever writes, is one added token: it costs one position instead of about 700, which is most of what a
CPU spends on a prompt. Another system prompt is read word by word like any text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

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

_OPERATORS = ("==", "<=", ">=", "!=", ">>", "<<", "**", "->", "//", "+=", "-=")
DIGITS_PER_TOKEN = 2
"""The longest run of digits one token holds (the default; ``1``: every digit its own token)."""


def piece_pattern(digits: int = DIGITS_PER_TOKEN) -> str:
    """Where text is cut before BPE (first alternative that matches wins, as in the tokenizer)."""
    if digits < 1:
        raise ValueError(f"digits per token must be at least 1, not {digits}")
    return (
        r"```"
        r"|\n[ \t]*"
        rf"|[0-9]{{1,{digits}}}"
        r"| ?[A-Za-z_]+"
        r"| ?(?:" + "|".join(re.escape(op) for op in _OPERATORS) + r")"
        r"| ?[^\sA-Za-z0-9_]"
        r"|\s"
    )


def pieces(text: str, digits: int = DIGITS_PER_TOKEN) -> list[str]:
    """The cuts of ``text`` (what BPE may at most merge into one token each); they join back to ``text``."""
    return re.findall(piece_pattern(digits), text)


def digit_runs(digits: int) -> str:
    """Every run of 1..``digits`` digits once, space-separated: added to the corpus so each is a token."""
    runs = (str(n).zfill(width) for width in range(1, digits + 1) for n in range(10**width))
    return " ".join(runs)


def train_code_tokenizer(corpus: Iterable[str], vocab_size: int = 4096, whole: Sequence[str] = (),
                         digits: int = DIGITS_PER_TOKEN) -> Any:
    """A byte-level BPE tokenizer over ``pieces``, trained on ``corpus``, with ChatML special tokens.

    ``whole`` lists texts that become one (special) token each, such as the shared system prompt.
    ``vocab_size`` only caps the merges: once every piece of the corpus is one token BPE stops, so a
    larger value adds nothing.
    """
    return train_bpe_tokenizer([*corpus, digit_runs(digits)], vocab_size, split=piece_pattern(digits),
                               behavior="isolated", whole=whole)


def train_bpe_tokenizer(
    corpus: Iterable[str], vocab_size: int, *, split: str, behavior: str, whole: Sequence[str] = ()
) -> Any:
    """Byte-level BPE with ChatML special tokens whose merges never cross the cuts of ``split`` (a
    regular expression; ``behavior`` is how the tokenizers library keeps the matched text). Both the
    code tokenizer and the whole-script tokenizer are this with another cut."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(split), behavior=behavior),  # type: ignore[arg-type]
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
    if whole:
        tokenizer.add_special_tokens([AddedToken(text, special=True, normalized=False) for text in dict.fromkeys(whole)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token=None, eos_token=IM_END, pad_token=PAD, unk_token=None)
    fast.chat_template = CHAT_TEMPLATE
    return fast

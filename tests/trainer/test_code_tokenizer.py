"""The code tokenizer: a model must write scripts token by token, digits one at a time."""

from __future__ import annotations

import re

import pytest
from vrpcoder_client.prompts import code_system_prompt
from vrpcoder_synth.compact import render_compact
from vrpcoder_synth.statements import write_statement
from vrpcoder_trainer.code_tokenizer import pieces
from vrpcoder_trainer.tiny import TinyModelSpec, train_tokenizer

from tests.trainer.support import cvrp_samples


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    sample = cvrp_samples()[0]
    return {
        "compact": f"```python\n{render_compact(write_statement(sample), sample.instance).rstrip()}\n```",
        "gold": sample.gold_code,
        "statement": write_statement(sample).text,
    }


@pytest.fixture(scope="module")
def tokenizer(texts: dict[str, str]):  # type: ignore[no-untyped-def]
    return train_tokenizer(list(texts.values()), TinyModelSpec())


def test_every_text_round_trips(tokenizer, texts: dict[str, str]) -> None:
    for name, text in texts.items():
        ids = tokenizer(text)["input_ids"]
        assert tokenizer.decode(ids) == text, name
    unseen = "Q = 987654.3210\nx[i, j] >= 0.5  # naïve"
    assert tokenizer.decode(tokenizer(unseen)["input_ids"]) == unseen


def test_digits_come_in_runs_of_at_most_two_and_every_run_is_one_token(tokenizer, texts: dict[str, str]) -> None:
    special = set(tokenizer.all_special_tokens) | {code_system_prompt()}
    digit_tokens = set()
    for token in tokenizer.get_vocab():
        if token in special:
            continue
        text = tokenizer.convert_tokens_to_string([token])
        assert not re.search(r"\d", text) or re.fullmatch(r"\d{1,2}", text), f"token {text!r} holds digits and more"
        if re.fullmatch(r"\d{1,2}", text):
            digit_tokens.add(text)
    assert len(digit_tokens) == 110, "every run of one or two digits is a token, seen in the corpus or not"
    ids = tokenizer("Q = 23.54 + 100")["input_ids"]
    assert [tokenizer.decode([i]) for i in ids] == ["Q", " =", " ", "23", ".", "54", " +", " ", "10", "0"]


def test_single_digit_tokens_on_request(texts: dict[str, str]) -> None:
    single = train_tokenizer(list(texts.values()), TinyModelSpec(digits_per_token=1))
    ids = single("Q = 23.54")["input_ids"]
    assert [single.decode([i]) for i in ids] == ["Q", " =", " ", "2", "3", ".", "5", "4"]
    with pytest.raises(ValueError, match="at least 1"):
        pieces("1", digits=0)


def test_code_is_cut_at_identifiers_and_operators_never_whole_scripts(tokenizer, texts: dict[str, str]) -> None:
    script = texts["compact"]
    tokens = [tokenizer.decode([i]) for i in tokenizer(script)["input_ids"]]
    assert len(tokens) > 300, "a compact script is hundreds of tokens, not a handful"
    assert " addConstrs" in tokens or "addConstrs" in tokens
    assert "\n    " in tokens, "a line break with its indentation is one token"
    for token in tokens:
        assert token == "```" or not re.search(r"\w\W|\W\w", token.strip()), f"{token!r} spans an identifier and an operator"
    assert tokens[:3] == ["```", "python", "\n"]
    assert "".join(pieces(script)) == script


def test_the_shared_prompt_is_one_token_and_the_prompt_prefixes_the_conversation(tokenizer, texts: dict[str, str]) -> None:
    messages = [{"role": "system", "content": code_system_prompt()}, {"role": "user", "content": texts["statement"]}]
    prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    full = tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": texts["compact"]}], tokenize=False)
    prompt_ids, full_ids = tokenizer(prompt)["input_ids"], tokenizer(full)["input_ids"]
    assert full_ids[: len(prompt_ids)] == prompt_ids, "SFT masks the reply by the prompt's length"
    system_ids = tokenizer(code_system_prompt())["input_ids"]
    assert len(system_ids) == 1
    assert len(prompt_ids) < len(tokenizer(texts["statement"])["input_ids"]) + 20


def test_the_whole_script_tokenizer_still_merges_scripts(texts: dict[str, str]) -> None:
    """The other tokenizer, kept for the choice miniature: a seen script is a handful of tokens."""
    whole = train_tokenizer(list(texts.values()) * 5, TinyModelSpec(vocab_size=8192, tokenizer="whole-script"))
    assert len(whole(texts["compact"])["input_ids"]) < 20

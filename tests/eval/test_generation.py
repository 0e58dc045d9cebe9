"""Asking a model: the OpenAI-compatible client against a real local socket, the completion cache,
and a local checkpoint (a tiny model and LoRA adapter built here, no hub) through transformers."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from vrpcoder_eval.generation import (
    CachedGenerator,
    CompletionCache,
    DecodingConfig,
    GenerationError,
    LocalCheckpointGenerator,
    OpenAIChatGenerator,
)
from vrpcoder_eval.scripted import ScriptedServer

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "route 3 customers"}]


def test_openai_client_contract_and_cache(tmp_path: Path) -> None:
    with ScriptedServer(lambda text: f"echo: {text}", model="served-model") as llm:

        async def go() -> tuple[str, str, bool, bool]:
            generator = OpenAIChatGenerator(llm.base_url)
            cached = CachedGenerator(generator, CompletionCache(tmp_path))
            try:
                name = await generator.resolve_model()
                first = await cached.complete(MESSAGES, DecodingConfig())
                second = await cached.complete(MESSAGES, DecodingConfig())
                await cached.complete(MESSAGES, DecodingConfig(max_tokens=7))
            finally:
                await generator.aclose()
            return name, first.text, first.cached, second.cached

        name, text, first_cached, second_cached = asyncio.run(go())
        assert name == "served-model" and text == "echo: route 3 customers"
        assert (first_cached, second_cached) == (False, True)
        assert len(llm.requests) == 2, "the same question with the same decoding is asked once"
        request = llm.requests[0]
        assert request["temperature"] == 0.0 and request["model"] == "served-model" and request["messages"] == MESSAGES
        assert llm.requests[1]["max_tokens"] == 7


def test_openai_client_reports_refusals_without_retrying_them() -> None:
    with ScriptedServer(lambda text: text) as llm:

        async def go() -> None:
            generator = OpenAIChatGenerator(llm.base_url.removesuffix("/v1") + "/wrong", "m", attempts=3, backoff=0.01)
            try:
                await generator.complete(MESSAGES, DecodingConfig())
            finally:
                await generator.aclose()

        with pytest.raises(GenerationError, match="HTTP 404"):
            asyncio.run(go())
        assert llm.requests == []


def _tiny_checkpoint(folder: Path) -> Path:
    """A two-layer Llama and a word-level tokenizer with a chat template, saved like a real checkpoint."""
    transformers = pytest.importorskip("transformers")
    tokenizers = pytest.importorskip("tokenizers")
    words = ["<pad>", "<unk>", "<s>", "</s>", "system", "user", "assistant", "be", "brief", "route", "3", "customers", ":"]
    model = tokenizers.models.WordLevel(vocab={w: i for i, w in enumerate(words)}, unk_token="<unk>")
    raw = tokenizers.Tokenizer(model)
    raw.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=raw, unk_token="<unk>", pad_token="<pad>",
                                                     bos_token="<s>", eos_token="</s>")
    tokenizer.chat_template = "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} {% endfor %}assistant :"
    config = transformers.LlamaConfig(vocab_size=len(words), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                      num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                                      pad_token_id=0, bos_token_id=2, eos_token_id=3)
    transformers.LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.mark.slow
def test_local_checkpoint_and_lora_adapter(tmp_path: Path) -> None:
    """Slow only for importing torch, transformers and peft (10-30 s here)."""
    base = _tiny_checkpoint(tmp_path / "base")
    peft = pytest.importorskip("peft")
    transformers = pytest.importorskip("transformers")
    adapted = peft.get_peft_model(transformers.AutoModelForCausalLM.from_pretrained(base),
                                  peft.LoraConfig(r=2, lora_alpha=4, target_modules=["q_proj", "v_proj"]))
    adapted.save_pretrained(tmp_path / "adapter")
    decoding = DecodingConfig(max_tokens=5)

    plain = LocalCheckpointGenerator(base, device="cpu")
    first = asyncio.run(plain.complete(MESSAGES, decoding))
    again = asyncio.run(plain.complete(MESSAGES, decoding))
    assert first.text == again.text, "greedy decoding is deterministic"
    assert 0 < (first.completion_tokens or 0) <= 5 and (first.prompt_tokens or 0) > 5

    with_adapter = LocalCheckpointGenerator(tmp_path / "adapter", device="cpu")
    assert with_adapter.name.startswith("local:") and with_adapter.name != plain.name
    assert (with_adapter.model.peft_config["default"].r, with_adapter.model.peft_config["default"].lora_alpha) == (2, 4)
    answer = asyncio.run(with_adapter.complete(MESSAGES, decoding))
    assert 0 < (answer.completion_tokens or 0) <= 5

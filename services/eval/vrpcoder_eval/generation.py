"""Asking a model: any OpenAI-compatible endpoint, or a local checkpoint through transformers.

Evaluation decodes greedily (temperature 0), so a completion is a function of (model, messages,
decoding settings); the ``CompletionCache`` stores it on disk under the hash of exactly those, which
makes a run resumable and a re-run free. Concurrency is bounded by a semaphore: an endpoint sees at
most ``concurrency`` requests at once. Transient HTTP faults (connection errors, 429, 5xx) are
retried with backoff; anything else fails that item with the endpoint's own message.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import httpx
from pydantic import BaseModel, ConfigDict, Field

Message = dict[str, str]


class DecodingConfig(BaseModel):
    """Decoding settings; the defaults are the paper's greedy Pass@1 protocol."""

    model_config = ConfigDict(frozen=True)

    temperature: float = Field(default=0.0, ge=0.0)
    max_tokens: int = Field(default=4096, gt=0)
    seed: int | None = 0
    """Sent where the endpoint honours it; greedy decoding does not need it but some servers batch
    non-deterministically without it."""


class Completion(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str
    model: str
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached: bool = False


class GenerationError(RuntimeError):
    """The model could not be asked (after retries); the item is reported, not scored."""


class Generator(Protocol):
    """Anything that turns chat messages into one completion."""

    @property
    def name(self) -> str: ...

    async def complete(self, messages: Sequence[Message], decoding: DecodingConfig) -> Completion: ...


def cache_key(model: str, messages: Sequence[Message], decoding: DecodingConfig) -> str:
    payload = json.dumps({"model": model, "messages": list(messages), "decoding": decoding.model_dump()}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class CompletionCache:
    """One JSON file per completion, named by ``cache_key``; written atomically (rename)."""

    root: Path

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        path = self._path(key)
        if not path.is_file():
            return None
        try:
            return Completion.model_validate_json(path.read_text(encoding="utf-8")).model_copy(update={"cached": True})
        except ValueError:
            return None

    def put(self, key: str, completion: Completion) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(completion.model_copy(update={"cached": False}).model_dump_json(), encoding="utf-8")
        tmp.replace(path)


class CachedGenerator:
    """A generator behind the on-disk cache."""

    def __init__(self, inner: Generator, cache: CompletionCache) -> None:
        self.inner = inner
        self.cache = cache

    @property
    def name(self) -> str:
        return self.inner.name

    async def complete(self, messages: Sequence[Message], decoding: DecodingConfig) -> Completion:
        key = cache_key(self.inner.name, messages, decoding)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        completion = await self.inner.complete(messages, decoding)
        self.cache.put(key, completion)
        return completion


_RETRY = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class OpenAIChatGenerator:
    """``POST {base_url}/chat/completions`` of any OpenAI-compatible server (vLLM, hosted APIs).

    ``base_url`` is the API root, e.g. ``http://localhost:8000/v1``. Without a model name the
    server's first listed model (``GET /models``) is used, which is what a single-model vLLM serves.
    """

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        *,
        api_key: str | None = None,
        timeout: float = 600.0,
        attempts: int = 5,
        backoff: float = 1.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._model = model
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.AsyncClient(base_url=self.base_url, headers=headers, timeout=timeout, transport=transport)
        self.attempts = attempts
        self.backoff = backoff

    @property
    def name(self) -> str:
        if self._model is None:
            raise GenerationError("model name not resolved yet; call resolve_model() first")
        return self._model

    async def resolve_model(self) -> str:
        """The model name to send: the one given, else the first the server lists."""
        if self._model is None:
            response = await self._request("GET", "/models")
            try:
                models = response.json().get("data") or []
                first = str(models[0]["id"]) if models else None
            except (ValueError, AttributeError, KeyError, TypeError):
                raise GenerationError(f"{self.base_url}/models: not a model list: {response.text[:300]}") from None
            if first is None:
                raise GenerationError(f"{self.base_url}/models lists no model; pass --model-name")
            self._model = first
        return self._model

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _request(self, method: str, path: str, payload: dict[str, Any] | None = None) -> httpx.Response:
        last = ""
        for attempt in range(self.attempts):
            try:
                response = await self._http.request(method, path, json=payload)
            except httpx.TransportError as exc:
                last = f"{type(exc).__name__}: {exc}"
            else:
                if response.status_code < 400:
                    return response
                last = f"HTTP {response.status_code}: {response.text[:300]}"
                if response.status_code not in _RETRY:
                    raise GenerationError(f"{method} {self.base_url}{path}: {last}")
            if attempt + 1 < self.attempts:
                await asyncio.sleep(random.uniform(0, self.backoff * 2**attempt))
        raise GenerationError(f"{method} {self.base_url}{path}: {last} (after {self.attempts} attempts)")

    async def complete(self, messages: Sequence[Message], decoding: DecodingConfig) -> Completion:
        model = await self.resolve_model()
        payload: dict[str, Any] = {
            "model": model,
            "messages": list(messages),
            "temperature": decoding.temperature,
            "max_tokens": decoding.max_tokens,
        }
        if decoding.seed is not None:
            payload["seed"] = decoding.seed
        response = await self._request("POST", "/chat/completions", payload)
        try:
            body = response.json()
            choice = body["choices"][0]
            text = choice["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            body = response.text
            raise GenerationError(f"unexpected completion body from {self.base_url}: {str(body)[:300]}") from exc
        usage = body.get("usage") or {}
        return Completion(
            text=text,
            model=model,
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=usage.get("prompt_tokens"),
            completion_tokens=usage.get("completion_tokens"),
        )


class LocalCheckpointGenerator:
    """A checkpoint directory (model, or base model plus a LoRA adapter) run with transformers.

    ``transformers`` (and ``peft`` for adapters) are imported only here, so the service installs
    without them. A directory holding ``adapter_config.json`` is an adapter: its base model is read
    from that file (or given as ``base_model``). Generation is greedy and one prompt at a time,
    serialised by a lock because a local model is not safe to call concurrently.
    """

    def __init__(self, path: Path, *, base_model: str | None = None, device: str | None = None) -> None:
        try:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer
        except ImportError as exc:
            raise GenerationError("a local checkpoint needs `pip install transformers torch`") from exc
        self.path = Path(path)
        adapter = (self.path / "adapter_config.json").is_file()
        base = base_model
        if adapter and base is None:
            base = json.loads((self.path / "adapter_config.json").read_text())["base_model_name_or_path"]
        tokenizer_source = self.path if (self.path / "tokenizer_config.json").is_file() else (base or self.path)
        self.tokenizer = AutoTokenizer.from_pretrained(tokenizer_source)
        model = AutoModelForCausalLM.from_pretrained(base if adapter else self.path)
        if adapter:
            try:
                from peft import PeftModel
            except ImportError as exc:
                raise GenerationError("a LoRA adapter needs `pip install peft`") from exc
            model = PeftModel.from_pretrained(model, self.path)
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.model = model.to(self.device).eval()
        self._torch = torch
        self._lock = asyncio.Lock()

    @property
    def name(self) -> str:
        return f"local:{self.path.resolve()}"

    async def resolve_model(self) -> str:
        return self.name

    async def aclose(self) -> None:
        """Nothing to close (the interface of the HTTP generator)."""

    def _generate(self, messages: Sequence[Message], decoding: DecodingConfig) -> Completion:
        torch = self._torch
        prompt = self.tokenizer.apply_chat_template(list(messages), tokenize=False, add_generation_prompt=True)
        inputs = self.tokenizer(prompt, return_tensors="pt").to(self.device)
        with torch.no_grad():
            output = self.model.generate(
                **inputs,
                max_new_tokens=decoding.max_tokens,
                do_sample=decoding.temperature > 0,
                temperature=decoding.temperature if decoding.temperature > 0 else None,
                top_p=None,
                top_k=None,
                pad_token_id=self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
            )
        new = output[0][inputs["input_ids"].shape[1]:]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        return Completion(text=text, model=self.name, finish_reason=None,
                          prompt_tokens=int(inputs["input_ids"].shape[1]), completion_tokens=int(new.shape[0]))

    async def complete(self, messages: Sequence[Message], decoding: DecodingConfig) -> Completion:
        async with self._lock:
            return await asyncio.to_thread(self._generate, messages, decoding)


async def complete_all(
    generator: Generator,
    conversations: Sequence[Sequence[Message]],
    decoding: DecodingConfig,
    *,
    concurrency: int,
    on_done: Callable[[int, Completion | GenerationError], None],
) -> None:
    """Ask every conversation with at most ``concurrency`` in flight; report each as it finishes."""
    semaphore = asyncio.Semaphore(max(1, concurrency))

    async def one(index: int, messages: Sequence[Message]) -> None:
        async with semaphore:
            try:
                result: Completion | GenerationError = await generator.complete(messages, decoding)
            except GenerationError as exc:
                result = exc
            on_done(index, result)

    await asyncio.gather(*(one(i, m) for i, m in enumerate(conversations)))

"""The teacher LLM: a client for any OpenAI-compatible chat endpoint, and the Stage 2/3 steps on it.

``TeacherClient`` posts to ``{base_url}/chat/completions`` with httpx. It keeps at most
``concurrency`` requests in flight, retries 429, 5xx, timeouts, dropped connections and malformed
replies with exponential backoff and jitter (a ``Retry-After`` header is honoured), stops with
``BudgetExceeded`` once the run has spent its token budget, and stores every answer on disk under
a digest of (model, messages, sampling parameters), so a re-run, or the same prompt in another
work item, costs nothing.

``TeacherWriter`` is Stage 2 on a teacher: scenario instantiation as draft -> critic -> repair of
only the flagged parts (the critic's findings and the static fidelity checks' problems both count),
condensation (permissive or strict rule 5) and index rewriting that returns a ``node_id_map``.
``TeacherCoder`` is Stage 3 with the shared code prompt. Prompts are template files under
``prompts/`` (``string.Template`` placeholders, so code braces need no escaping); their content
digest, ``PROMPTS_VERSION``, goes into every work item's key.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

import httpx
from vrpcoder.samples import Sample
from vrpcoder_client.reward import extract_code

from vrpcoder_synth.config import TeacherConfig
from vrpcoder_synth.fidelity import FidelityReport, Vocabulary, check_text, instance_facts
from vrpcoder_synth.regenerate import Regenerated, code_messages
from vrpcoder_synth.scenes import choose_hint
from vrpcoder_synth.statements import IdScheme, Statement, StatementPath, fmt, node_labels
from vrpcoder_synth.writers import Written

Messages = Sequence[Mapping[str, str]]


class TeacherError(Exception):
    """The teacher gave no usable answer (after retries, or a request it refused)."""


class BudgetExceeded(TeacherError):
    """The run's token budget is spent; nothing more is asked."""


class MalformedReply(TeacherError):
    """The endpoint answered, but not with a chat completion."""


@cache
def prompt_text(name: str) -> str:
    return resources.files(__package__).joinpath("prompts", f"{name}.md").read_text().strip()


def render_prompt(name: str, **values: str) -> str:
    return Template(prompt_text(name)).substitute(values)


@cache
def prompts_version() -> str:
    folder = resources.files(__package__).joinpath("prompts")
    texts = sorted((p.name, p.read_text()) for p in folder.iterdir() if p.name.endswith(".md"))
    return hashlib.sha256(json.dumps(texts).encode()).hexdigest()[:12]


@dataclass
class TeacherStats:
    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class ResponseCache:
    """Answers on disk, one JSON file per (model, messages, params) digest."""

    folder: Path

    @staticmethod
    def key(model: str, messages: Messages, params: Mapping[str, Any]) -> str:
        payload = json.dumps({"model": model, "messages": [dict(m) for m in messages], "params": dict(params)}, sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()

    def get(self, key: str) -> str | None:
        path = self.folder / key[:2] / f"{key}.json"
        if not path.exists():
            return None
        return str(json.loads(path.read_text())["content"])

    def put(self, key: str, content: str) -> None:
        path = self.folder / key[:2] / f"{key}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps({"content": content}))
        tmp.replace(path)


_RETRYABLE = {408, 409, 425, 429, 500, 502, 503, 504}


@dataclass
class TeacherClient:
    base_url: str
    model: str
    api_key: str | None = None
    temperature: float = 0.2
    max_tokens: int = 4096
    retries: int = 5
    timeout: float = 120.0
    concurrency: int = 4
    token_budget: int | None = None
    cache_dir: Path | None = None
    backoff: float = 0.5
    max_backoff: float = 20.0
    stats: TeacherStats = field(default_factory=TeacherStats)

    def __post_init__(self) -> None:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        self._http = httpx.Client(base_url=self.base_url.rstrip("/"), headers=headers, timeout=self.timeout)
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._lock = threading.Lock()
        self._cache = ResponseCache(self.cache_dir) if self.cache_dir is not None else None

    @classmethod
    def from_config(cls, config: TeacherConfig, *, cache_dir: Path | None, api_key: str | None) -> TeacherClient:
        return cls(
            base_url=config.base_url, model=config.model, api_key=api_key, temperature=config.temperature,
            max_tokens=config.max_tokens, retries=config.retries, timeout=config.timeout,
            concurrency=config.concurrency, token_budget=config.token_budget, cache_dir=cache_dir,
        )

    def close(self) -> None:
        self._http.close()

    @property
    def params(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens}

    def chat(self, messages: Messages) -> str:
        """The assistant's text for ``messages`` (from the cache when this exact request was answered)."""
        key = ResponseCache.key(self.model, messages, self.params)
        if self._cache is not None and (hit := self._cache.get(key)) is not None:
            with self._lock:
                self.stats.cache_hits += 1
            return hit
        with self._slots:
            content = self._ask(messages)
        if self._cache is not None:
            self._cache.put(key, content)
        return content

    def chat_many(self, conversations: Sequence[Messages]) -> list[str | TeacherError]:
        """Several requests at once (bounded by ``concurrency``); a failure is returned, not raised."""

        def one(messages: Messages) -> str | TeacherError:
            try:
                return self.chat(messages)
            except TeacherError as exc:
                return exc

        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(one, conversations))

    def _check_budget(self) -> None:
        if self.token_budget is not None and self.stats.tokens >= self.token_budget:
            raise BudgetExceeded(f"token budget of {self.token_budget} spent ({self.stats.tokens} used)")

    def _ask(self, messages: Messages) -> str:
        body = {"model": self.model, "messages": [dict(m) for m in messages], **self.params}
        last: str = "no attempt"
        for attempt in range(self.retries + 1):
            with self._lock:
                self._check_budget()
                self.stats.requests += 1
                if attempt:
                    self.stats.retries += 1
            delay: float | None = None
            try:
                response = self._http.post("/chat/completions", json=body)
            except httpx.TimeoutException:
                last = "timed out"
            except httpx.TransportError as exc:
                last = f"connection failed: {type(exc).__name__}"
            else:
                if response.status_code == 200:
                    try:
                        return self._content(response)
                    except MalformedReply as exc:
                        last = str(exc)
                elif response.status_code in _RETRYABLE:
                    last = f"HTTP {response.status_code}"
                    delay = _retry_after(response)
                else:
                    raise TeacherError(f"HTTP {response.status_code}: {response.text[:300]}")
            if attempt < self.retries:
                time.sleep(delay if delay is not None else self._delay(attempt))
        raise TeacherError(f"no answer after {self.retries + 1} attempts: {last}")

    def _delay(self, attempt: int) -> float:
        return random.uniform(0.5, 1.0) * min(self.max_backoff, self.backoff * 2**attempt)

    def _content(self, response: httpx.Response) -> str:
        try:
            data = response.json()
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise MalformedReply(f"malformed reply ({type(exc).__name__}): {response.text[:200]}") from None
        if not isinstance(content, str) or not content.strip():
            raise MalformedReply("reply has no text content")
        usage = data.get("usage") or {}
        with self._lock:
            self.stats.prompt_tokens += int(usage.get("prompt_tokens") or 0)
            self.stats.completion_tokens += int(usage.get("completion_tokens") or max(1, len(content) // 4))
        return content


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    try:
        return min(60.0, max(0.0, float(value))) if value is not None else None
    except ValueError:
        return None


# ---- Stage 2 and 3 on a teacher ----------------------------------------------------------------------


def _system_user(system: str, user: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def critical_numbers(sample: Sample) -> str:
    return ", ".join(dict.fromkeys(fmt(f.value) for f in instance_facts(sample.instance)))


_STYLE_WORDS = {
    IdScheme.ONE_BASED: "consecutive integers starting at 1 (1, 2, 3, ...)",
    IdScheme.FROM_TWO: "consecutive integers starting at 2 (2, 3, 4, ...)",
    IdScheme.LETTERS: "uppercase letters (A, B, C, ...)",
}


def parse_index_reply(reply: str) -> tuple[str, dict[str, str]]:
    """(rewritten text, source id -> target id) from the index-rewriting JSON; MalformedReply if not."""
    text = reply.strip()
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.S)
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
        rewritten = data["rewritten_nl"]
        entries = data["node_id_map"]
        if isinstance(entries, Mapping):
            mapping = {str(k).strip(): str(v).strip() for k, v in entries.items()}
        else:
            mapping = {str(e["source_id"]).strip(): str(e["target_id"]).strip() for e in entries}
    except (ValueError, KeyError, TypeError) as exc:
        raise MalformedReply(f"index rewrite is not the JSON asked for ({type(exc).__name__})") from None
    if not isinstance(rewritten, str) or not rewritten.strip():
        raise MalformedReply("index rewrite has no rewritten_nl")
    return rewritten, mapping


@dataclass
class TeacherWriter:
    """Stage 2 through the teacher; the static checks decide as for the offline writer."""

    client: TeacherClient
    critic_rounds: int = 2
    name: str = "teacher"
    _drafts: dict[str, tuple[str, FidelityReport]] = field(default_factory=dict, repr=False)
    _locks: dict[str, threading.Lock] = field(default_factory=dict, repr=False)
    _guard: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def close(self) -> None:
        self.client.close()

    def _vocabulary(self, sample: Sample) -> Vocabulary:
        hint = choose_hint(sample.variant, sample.seed, sample.profile)
        return Vocabulary(node_words=(hint.scene.depot, hint.scene.customer), vehicle_word=hint.scene.vehicle)

    def _statement(self, sample: Sample, text: str, path: StatementPath, id_map: dict[str, str] | None) -> Statement:
        hint = choose_hint(sample.variant, sample.seed, sample.profile)
        n = sample.instance.num_nodes
        labels = tuple(id_map[str(p)] for p in range(n)) if id_map else node_labels(n, None)
        return Statement(text=text.strip() + "\n", path=path, hint=hint, labels=labels, node_id_map=id_map)

    def _check(self, sample: Sample, text: str, id_map: dict[str, str] | None) -> FidelityReport:
        return check_text(text, sample.instance, id_map, self._vocabulary(sample))

    def scenario(self, sample: Sample) -> tuple[str, FidelityReport]:
        """The scenario statement of ``sample``, worked out once even when several paths of the
        same sample ask for it at the same time (the other paths rewrite it)."""
        key = hashlib.sha256(sample.model_dump_json().encode()).hexdigest()
        with self._guard:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            if key not in self._drafts:
                self._drafts[key] = self._draft_critique_repair(sample)
            return self._drafts[key]

    def _draft_critique_repair(self, sample: Sample) -> tuple[str, FidelityReport]:
        """Draft, then up to ``critic_rounds`` of critic + repair; the last text and its checks."""
        hint = choose_hint(sample.variant, sample.seed, sample.profile)
        code = sample.gold_code
        text = self.client.chat(
            _system_user(
                prompt_text("scenario_system"),
                render_prompt("scenario_user", hint=hint.text(), code=code, numbers=critical_numbers(sample)),
            )
        ).strip()
        report = self._check(sample, text, None)
        for _ in range(self.critic_rounds):
            verdict = self.client.chat(
                _system_user(prompt_text("critic_system"), render_prompt("critic_user", code=code, statement=text))
            ).strip()
            problems = [p.strip() for p in verdict.split(":", 1)[1].split("|")] if verdict.upper().startswith("INCOMPLETE") else []
            problems += [f"{p.kind.value}: {p.detail}" for p in report.problems]
            if not problems:
                break
            text = self._repair(sample, text, problems)
            report = self._check(sample, text, None)
        return text, report

    def _repair(self, sample: Sample, text: str, problems: Sequence[str]) -> str:
        """Ask for an edit of only the flagged parts of ``text``."""
        listed = "\n".join(f"- {p}" for p in problems)
        user = render_prompt("repair_user", problems=listed, code=sample.gold_code, statement=text)
        return self.client.chat(_system_user(prompt_text("repair_system"), user)).strip()

    def write(self, sample: Sample, path: StatementPath) -> Written:
        try:
            return self._write(sample, path)
        except BudgetExceeded:
            raise
        except MalformedReply as exc:
            return Written(None, FidelityReport(), f"malformed_reply: {exc}"[:80])
        except TeacherError:
            return Written(None, FidelityReport(), "teacher_failed")

    def _write(self, sample: Sample, path: StatementPath) -> Written:
        source, report = self.scenario(sample)
        if path is StatementPath.SCENARIO:
            return self._judged(sample, source, path, None, report)
        if not report.ok:
            return Written(None, report, report.problems[0].kind.value)
        if path in (StatementPath.CONDENSED, StatementPath.STRICT):
            rule = "condense_rule_strict" if path is StatementPath.STRICT else "condense_rule_permissive"
            system = render_prompt("condense_system", rule5=prompt_text(rule))
            text = self.client.chat(_system_user(system, render_prompt("condense_user", variant=sample.variant, statement=source)))
            report = self._check(sample, text, None)
            if not report.ok:
                # One local repair of what the static checks found, as for the scenario statement.
                text = self._repair(sample, text, [f"{p.kind.value}: {p.detail}" for p in report.problems])
                report = self._check(sample, text, None)
            return self._judged(sample, text, path, None, report)
        scheme = path.scheme
        assert scheme is not None
        reply = self.client.chat(
            _system_user(
                prompt_text("index_system"),
                render_prompt("index_user", variant=sample.variant, style=_STYLE_WORDS[scheme], statement=source),
            )
        )
        text, mapping = parse_index_reply(reply)
        id_map = {str(p): mapping.get(str(p), "") for p in range(sample.instance.num_nodes)}
        if set(mapping) - set(id_map):
            extra = sorted(set(mapping) - set(id_map))
            id_map.update({k: mapping[k] for k in extra})
        expected = node_labels(sample.instance.num_nodes, scheme)
        report = self._check(sample, text, id_map)
        if report.ok and tuple(id_map[str(p)] for p in range(sample.instance.num_nodes)) != expected:
            # The verifier needs only a bijection, but a scheme other than the one asked for is not this path.
            return Written(None, report, "id_map")
        return self._judged(sample, text, path, id_map, report)

    def _judged(self, sample: Sample, text: str, path: StatementPath, id_map: dict[str, str] | None, report: FidelityReport) -> Written:
        if not report.ok:
            return Written(None, report, report.problems[0].kind.value)
        return Written(self._statement(sample, text, path, id_map), report)


@dataclass
class TeacherCoder:
    """Stage 3 through the teacher with the shared code-regeneration prompt."""

    client: TeacherClient

    def regenerate(self, sample: Sample, statement: Statement, key: str) -> Regenerated:
        try:
            completion = self.client.chat(code_messages(statement.text))
        except BudgetExceeded:
            raise
        except TeacherError as exc:
            return Regenerated(completion="", code=None, coder=f"teacher:{self.client.model} ({exc})"[:120])
        return Regenerated(completion=completion, code=extract_code(completion), coder=f"teacher:{self.client.model}")

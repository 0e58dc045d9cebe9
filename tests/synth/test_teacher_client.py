"""Contract tests of the teacher client against a local OpenAI-compatible server (real sockets)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.synth.openai_server import Action, FakeOpenAI
from vrpcoder_synth.teacher import BudgetExceeded, MalformedReply, TeacherClient, TeacherError, parse_index_reply

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]


def _client(server: FakeOpenAI, tmp_path: Path | None = None, **kwargs) -> TeacherClient:
    defaults = dict(model="m", api_key="sekret", retries=3, timeout=2.0, backoff=0.01, max_backoff=0.05)
    defaults.update(kwargs)
    return TeacherClient(server.url, cache_dir=tmp_path, **defaults)


def test_a_plain_reply_and_the_request_it_sent() -> None:
    with FakeOpenAI(lambda messages: f"echo {messages[-1]['content']}") as server:
        client = _client(server, temperature=0.4, max_tokens=77)
        assert client.chat(MESSAGES) == "echo hello"
        request = server.requests[0]
        assert request["path"] == "/v1/chat/completions" and request["auth"] == "Bearer sekret"
        assert request["body"] == {"model": "m", "messages": MESSAGES, "temperature": 0.4, "max_tokens": 77}
        assert client.stats.prompt_tokens == 10 and client.stats.completion_tokens == 5


def test_429_and_5xx_are_retried_with_retry_after_honoured() -> None:
    with FakeOpenAI() as server:
        server.script.extend([Action(status=429, headers={"Retry-After": "0"}), Action(status=503), Action(status=500)])
        client = _client(server)
        assert client.chat(MESSAGES) == "ok"
        assert len(server.requests) == 4 and client.stats.retries == 3


def test_retries_run_out() -> None:
    with FakeOpenAI() as server:
        server.script.extend([Action(status=502)] * 4)
        with pytest.raises(TeacherError, match="no answer after 4 attempts: HTTP 502"):
            _client(server).chat(MESSAGES)


def test_a_client_error_is_not_retried() -> None:
    with FakeOpenAI() as server:
        server.script.append(Action(status=400, body='{"error": "bad model"}'))
        with pytest.raises(TeacherError, match="HTTP 400"):
            _client(server).chat(MESSAGES)
        assert len(server.requests) == 1


@pytest.mark.parametrize(
    "body",
    ["not json at all", '{"choices": []}', '{"choices": [{"message": {}}]}', '{"choices": [{"message": {"content": ""}}]}'],
)
def test_malformed_replies_are_retried_then_reported(body: str) -> None:
    with FakeOpenAI() as server:
        server.script.append(Action(body=body))
        assert _client(server).chat(MESSAGES) == "ok"
        server.script.extend([Action(body=body)] * 4)
        with pytest.raises(TeacherError, match="malformed|no text"):
            _client(server).chat(MESSAGES)


def test_a_timeout_is_retried() -> None:
    with FakeOpenAI() as server:
        server.script.append(Action(delay=1.5, content="late"))
        client = _client(server, timeout=0.5)
        assert client.chat(MESSAGES) == "ok"
        assert client.stats.retries == 1


def test_cache_hits_cost_no_request(tmp_path: Path) -> None:
    with FakeOpenAI(lambda messages: "cached answer") as server:
        first = _client(server, tmp_path)
        assert first.chat(MESSAGES) == "cached answer"
        again = _client(server, tmp_path)
        assert again.chat(MESSAGES) == "cached answer"
        assert len(server.requests) == 1 and again.stats.cache_hits == 1
        other = _client(server, tmp_path, temperature=0.9)
        other.chat(MESSAGES)
        _client(server, tmp_path, model="other").chat(MESSAGES)
        assert len(server.requests) == 3, "a different model or parameter is a different cache key"


def test_the_token_budget_stops_the_run() -> None:
    with FakeOpenAI() as server:
        client = _client(server, token_budget=20)
        client.chat(MESSAGES)
        client.chat([*MESSAGES, {"role": "user", "content": "more"}])
        with pytest.raises(BudgetExceeded):
            client.chat([*MESSAGES, {"role": "user", "content": "even more"}])
        assert len(server.requests) == 2


def test_concurrency_is_bounded() -> None:
    with FakeOpenAI() as server:
        server.script.extend([Action(delay=0.5) for _ in range(8)])
        client = _client(server, concurrency=2)
        answers = client.chat_many([[{"role": "user", "content": str(i)}] for i in range(8)])
        assert answers == ["ok"] * 8
        assert server.max_in_flight == 2


def test_index_reply_parsing() -> None:
    reply = json.dumps({"rewritten_nl": "Depot A ...", "node_id_map": [{"source_id": "0", "target_id": "A", "role": "depot"}]})
    assert parse_index_reply(reply) == ("Depot A ...", {"0": "A"})
    assert parse_index_reply(f"```json\n{reply}\n```")[1] == {"0": "A"}
    with pytest.raises(MalformedReply):
        parse_index_reply('{"rewritten_nl": "x"}')

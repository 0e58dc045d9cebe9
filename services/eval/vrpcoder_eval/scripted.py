"""A scripted policy behind a real OpenAI-compatible HTTP server: fixed answers per statement.

Acceptance tests and the throughput benchmark need a "model" whose answers are known in advance
(the gold script, a mutant, a syntax error) so that the expected metrics can be computed
independently. This server speaks the same wire protocol as vLLM's (``GET /v1/models``,
``POST /v1/chat/completions``) on a real socket, so the runner under test is exactly the one
that talks to a real endpoint. It is a stand-in for an external LLM only; nothing else is faked.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self

Policy = Callable[[str], str]
"""User message (the statement) -> the completion text to answer with."""


def fenced(code: str) -> str:
    """A completion that wraps ``code`` the way a chat model does."""
    return f"Here is the model.\n\n```python\n{code}\n```\n"


def table_policy(answers: Mapping[str, str], default: str = "I cannot solve this.") -> Policy:
    """Answer each known statement with its completion, anything else with ``default``."""
    return lambda statement: answers.get(statement, default)


class ScriptedServer:
    """``with ScriptedServer(policy) as server: server.base_url`` -> ``http://127.0.0.1:PORT/v1``."""

    def __init__(self, policy: Policy, model: str = "scripted-policy", delay: float = 0.0) -> None:
        self.policy = policy
        self.model = model
        self.delay = delay
        self.requests: list[dict[str, object]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="scripted-policy", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
                return None

            def _send(self, status: int, body: object) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                if self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": outer.model, "object": "model"}]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # noqa: N802
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                length = int(self.headers.get("Content-Length", "0"))
                try:
                    body = json.loads(self.rfile.read(length))
                    messages = body["messages"]
                    user = next(m["content"] for m in reversed(messages) if m["role"] == "user")
                except (ValueError, KeyError, StopIteration):
                    self._send(400, {"error": {"message": "expected chat messages with a user turn"}})
                    return
                with outer._lock:
                    outer.requests.append(body)
                if outer.delay:
                    time.sleep(outer.delay)
                text = outer.policy(user)
                self._send(200, {
                    "id": f"cmpl-{len(outer.requests)}", "object": "chat.completion", "model": body.get("model", outer.model),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": sum(len(str(m.get("content", "")).split()) for m in messages),
                              "completion_tokens": len(text.split())},
                })

        return Handler

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

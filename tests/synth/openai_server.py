"""A local OpenAI-compatible chat endpoint for contract tests of the teacher client (real sockets).

It stands in for a hosted LLM only: each request is answered by the next scripted action (an HTTP
error, a malformed body, a delay, a reply), or, once the script is used up, by ``responder``.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Responder = Callable[[list[dict[str, str]]], str]


@dataclass
class Action:
    status: int = 200
    body: str | None = None
    """Raw body to send (None: a proper completion of ``content`` or the responder's answer)."""
    content: str | None = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


class FakeOpenAI:
    def __init__(self, responder: Responder | None = None) -> None:
        self.responder = responder or (lambda messages: "ok")
        self.script: deque[Action] = deque()
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return None

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("content-length") or 0)
                payload = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append({"path": self.path, "auth": self.headers.get("authorization"), "body": payload})
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    action = server.script.popleft() if server.script else Action()
                try:
                    if action.delay:
                        time.sleep(action.delay)
                    if self.path != "/v1/chat/completions":
                        self._send(404, json.dumps({"error": "not found"}), {})
                        return
                    if action.body is not None or action.status != 200:
                        self._send(action.status, action.body if action.body is not None else "{}", action.headers)
                        return
                    content = action.content if action.content is not None else server.responder(payload["messages"])
                    reply = {
                        "id": "cmpl-test",
                        "object": "chat.completion",
                        "model": payload.get("model"),
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                    }
                    self._send(200, json.dumps(reply), action.headers)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    with server._lock:
                        server.in_flight -= 1

            def _send(self, status: int, body: str, headers: dict[str, str]) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

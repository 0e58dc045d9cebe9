"""One access-log line per HTTP request, as plain ASGI middleware.

It records what an operator needs to tell what happened to a request (method, path, status, time
taken, client address) and nothing a request carries: no query string, no header (a bearer token
lives there), no body (a candidate's source lives there). Probes and scrapes (/healthz, /readyz,
/metrics) answered normally are logged at DEBUG, since a kubelet asks every few seconds; a failed
one is logged like any other request.
"""

from __future__ import annotations

import logging
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vrpcoder_verifier.logs import log_event

ACCESS_LOGGER = logging.getLogger("vrpcoder_verifier.access")
OPERATIONAL_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
_MAX_PATH = 200
"""A path is the client's text; a long one is cut so a log line stays a line."""


def access_level(path: str, status: int) -> int:
    """DEBUG for a routine probe, WARNING for a server fault, INFO for everything else."""
    if status >= 500:
        return logging.WARNING
    if path in OPERATIONAL_PATHS and status < 400:
        return logging.DEBUG
    return logging.INFO


class AccessLog:
    def __init__(self, app: ASGIApp, logger: logging.Logger = ACCESS_LOGGER) -> None:
        self.app = app
        self.logger = logger

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not self.logger.isEnabledFor(logging.WARNING):
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the client gets when the app raises before it answers

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            path: str = scope["path"]
            client = scope.get("client")
            log_event(
                self.logger,
                "request",
                level=access_level(path, status),
                method=scope["method"],
                path=path[:_MAX_PATH],
                status=status,
                ms=round((time.perf_counter() - started) * 1000.0, 2),
                client=client[0] if client else None,
            )

"""Limits on what goes in and what comes back: the request body's size, and the size of a 422.

The body limit is plain ASGI middleware. It runs before FastAPI reads the body, so an oversized
upload is refused without being parsed: from Content-Length when the client sends one; a chunked
upload (no length) is read here, at most the limit plus one chunk, and replayed to the app only if
it fits.

A 422 names what was wrong and where, and shows the offending input only in brief: FastAPI's own
answer echoes each error's input whole, which for an error on the whole body is the whole body (a
7 MB candidate came back in full), and a lone surrogate in it made the answer itself fail as a 500,
as did a ``NaN`` (JSON cannot carry it back).

Numbers are finite, in every body: Python's JSON reader takes ``NaN``, ``Infinity`` and numbers
too large for a float (``1e999``), and pydantic's plain ``float`` accepts them; stored again as
JSON they became ``null``, and one such weight made a batch no worker could read. The routes read
bodies with ``FiniteJSONRoute``: each such number becomes a marker that no field of any schema
accepts, so the request is refused with 422 at the field's own path (samples included), and the
422 says why.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

ECHO_CHARS = 200
"""Characters of an input string a validation error shows."""
ECHO_ITEMS = 10
"""Entries of an input list or object a validation error shows (deeper levels: none)."""
ECHO_DEPTH = 2


class BodySizeLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None:
            if declared.isdigit() and int(declared) > self.max_bytes:
                await self._refuse(send)
                return
            await self.app(scope, receive, send)
            return
        buffered: list[Message] = []
        received = 0
        while True:
            message = await receive()
            buffered.append(message)
            if message["type"] != "http.request":
                break
            received += len(message.get("body", b""))
            if received > self.max_bytes:
                await self._refuse(send)
                return
            if not message.get("more_body", False):
                break

        async def replay() -> Message:
            return buffered.pop(0) if buffered else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"detail": f"request body exceeds {self.max_bytes} bytes"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})


class NonFinite:
    """A number JSON should not hold (``NaN``, ``Infinity``, ``-Infinity``, or one past a float's
    range), kept as its text. No schema accepts it, so it is refused where it stands."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _finite_float(text: str) -> float | NonFinite:
    value = float(text)
    return value if math.isfinite(value) else NonFinite(text)


def loads_finite(body: bytes | str) -> Any:
    """``json.loads``, with every non-finite number read as a ``NonFinite`` marker."""
    return json.loads(body, parse_constant=NonFinite, parse_float=_finite_float)


class _FiniteJSONRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = loads_finite(await self.body())
        return self._json


class FiniteJSONRoute(APIRoute):
    """A route whose JSON body is read with ``loads_finite`` (see the module docstring)."""

    def get_route_handler(self) -> Callable[[Request], Awaitable[Response]]:
        handler = super().get_route_handler()

        async def finite_handler(request: Request) -> Response:
            return await handler(_FiniteJSONRequest(request.scope, request.receive))

        return finite_handler


def brief(value: Any, depth: int = ECHO_DEPTH) -> Any:
    """``value`` cut down to what an error message needs, as JSON-ready data that always encodes:
    strings to ``ECHO_CHARS`` characters (unencodable ones escaped), non-finite numbers as their
    text, containers to ``ECHO_ITEMS`` entries and ``ECHO_DEPTH`` levels, anything else as its
    type's name."""
    if isinstance(value, NonFinite):
        return value.text
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        text = value.encode("utf-8", "backslashreplace").decode("utf-8")
        return text if len(text) <= ECHO_CHARS else f"{text[:ECHO_CHARS]}... ({len(value)} characters)"
    if isinstance(value, Mapping):
        if depth <= 0:
            return f"{{...}} ({len(value)} keys)"
        shown = {brief(str(k), 0): brief(v, depth - 1) for k, v in list(value.items())[:ECHO_ITEMS]}
        if len(value) > ECHO_ITEMS:
            shown["..."] = f"{len(value) - ECHO_ITEMS} more keys"
        return shown
    if isinstance(value, list | tuple):
        if depth <= 0:
            return f"[...] ({len(value)} items)"
        items = [brief(v, depth - 1) for v in value[:ECHO_ITEMS]]
        return items + ([f"... {len(value) - ECHO_ITEMS} more items"] if len(value) > ECHO_ITEMS else [])
    return type(value).__name__


NON_FINITE_MESSAGE = "numbers must be finite: NaN, Infinity and numbers past a float's range are refused"


def _error(error: Mapping[str, Any]) -> dict[str, Any]:
    shown = {key: brief(error[key]) for key in ("type", "loc", "msg") if key in error}
    if isinstance(error.get("input"), NonFinite) or (
        isinstance(error.get("input"), float) and not math.isfinite(error["input"])
    ):
        shown.update(type="finite_number", msg=NON_FINITE_MESSAGE)
    if "input" in error:
        shown["input"] = brief(error["input"])
    if isinstance(error.get("ctx"), Mapping):
        shown["ctx"] = {str(k): brief(v if isinstance(v, str | int | float | bool) else str(v), 0) for k, v in error["ctx"].items()}
    return shown


async def validation_error(_request: Request, exc: Exception) -> JSONResponse:
    """422 with each error's type, location, message and a brief echo of its input."""
    assert isinstance(exc, RequestValidationError)
    return JSONResponse(status_code=422, content={"detail": [_error(e) for e in exc.errors()]})

"""The service's log lines: one format for the API, the workers and the libraries under them.

Operators read ``docker compose logs`` or ``kubectl logs`` before anything else, so every process
of the verifier writes one line per event to stderr, either as readable ``key=value`` text (the
default, for a terminal) or as one JSON object per line (``json_format``, for a log collector).
An event's facts travel as structured fields, never baked into the message, so both formats carry
them alike and a collector can filter on ``verdict`` or ``status`` without parsing prose.

What must never reach a log: a candidate's source text and a bearer token. Nothing here reads
request bodies or headers; callers pass only the fields they mean to publish (``log_event``).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sys
from collections.abc import Mapping
from typing import Any, TextIO

FIELDS_ATTRIBUTE = "vrpcoder_fields"
"""The ``LogRecord`` attribute ``log_event`` stores an event's fields under."""

_HANDLER_NAME = "vrpcoder-verifier"
_OUR_LOGGERS = ("vrpcoder_verifier", "vrpcoder", "rq", "uvicorn", "uvicorn.error")
"""Loggers whose lines go through our handler. ``uvicorn.access`` is left silent: the API writes
its own access line (``vrpcoder_verifier.access``) with the latency uvicorn's line lacks."""


def _timestamp(record: logging.LogRecord) -> str:
    moment = dt.datetime.fromtimestamp(record.created, tz=dt.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _fields(record: logging.LogRecord) -> Mapping[str, Any]:
    fields = getattr(record, FIELDS_ATTRIBUTE, None)
    return fields if isinstance(fields, Mapping) else {}


def _plain(value: Any) -> Any:
    """A JSON-ready value: numbers, strings, booleans and None as they are, anything else as text."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return round(value, 6)
    return str(value)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``ts``, ``level``, ``logger``, ``message``, then the event's fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": _timestamp(record),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in _fields(record).items():
            entry.setdefault(key, _plain(value))
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def _text_value(value: Any) -> str:
    plain = _plain(value)
    if isinstance(plain, str) and (not plain or any(c.isspace() or c in '"=' for c in plain)):
        return json.dumps(plain, ensure_ascii=False)
    return "null" if plain is None else str(plain).lower() if isinstance(plain, bool) else str(plain)


class TextFormatter(logging.Formatter):
    """``<ts> <LEVEL> <logger> <message> key=value ...``: readable, and still one line per event."""

    def format(self, record: logging.LogRecord) -> str:
        parts = [_timestamp(record), record.levelname, record.name, record.getMessage()]
        parts.extend(f"{key}={_text_value(value)}" for key, value in _fields(record).items())
        line = " ".join(parts)
        if record.exc_info:
            line += " exception=" + json.dumps(self.formatException(record.exc_info), ensure_ascii=False)
        return line


def parse_level(level: str | int) -> int:
    """``"info"``, ``"DEBUG"``, ``20``... as a logging level; a clear error for anything else."""
    if isinstance(level, int):
        return level
    named = logging.getLevelNamesMapping().get(level.strip().upper())
    if named is None:
        raise ValueError(f"unknown log level {level!r}; use DEBUG, INFO, WARNING, ERROR or CRITICAL")
    return named


def configure_logging(level: str | int = "INFO", json_format: bool = False, stream: TextIO | None = None) -> None:
    """Send the verifier's, rq's and uvicorn's log records to ``stream`` (stderr) in one format.

    Idempotent: calling it again (a test, a second app in one process) replaces our handler rather
    than stacking a second one, so no line is ever written twice. The root logger is left alone:
    an embedding program keeps its own logging.
    """
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(JsonFormatter() if json_format else TextFormatter())
    numeric = parse_level(level)
    for name in _OUR_LOGGERS:
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if h.get_name() == _HANDLER_NAME]:
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.setLevel(numeric)
        logger.propagate = False
    access = logging.getLogger("uvicorn.access")
    access.handlers.clear()
    access.propagate = False
    access.disabled = True


def log_event(logger: logging.Logger, message: str, /, level: int = logging.INFO, **fields: Any) -> None:
    """Log ``message`` with ``fields`` as structured data (``key=value`` in text, keys in JSON).

    Pass only what may be published: ids, kinds, numbers, durations. Never the candidate's code,
    its output, a request body or a header.
    """
    if logger.isEnabledFor(level):
        logger.log(level, message, extra={FIELDS_ATTRIBUTE: fields})

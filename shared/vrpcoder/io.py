"""Reading and writing the project's JSON records at the command-line edge.

Kept apart from the domain modules so that the records stay pure; every reader turns a missing
file or malformed JSON into a ``ValueError`` that names the file and the first problem, which the
CLI shows as a one-line error instead of a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from vrpcoder.instances import Instance

M = TypeVar("M", bound=BaseModel)


def load_json(path: str | Path) -> Any:
    path = Path(path)
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a file") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None


def validate(model: type[M], raw: Any, path: str | Path) -> M:
    """Validate parsed JSON; the error names the file and the first offending field."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "<document>"
        raise ValueError(f"{path}: not a valid {model.__name__} ({where}: {first['msg']})") from None


def read_record(path: str | Path, model: type[M]) -> M:
    return validate(model, load_json(path), path)


def read_instance(path: str | Path) -> Instance:
    """An instance file, or the instance embedded in a record that carries one under ``instance``."""
    raw = load_json(path)
    if isinstance(raw, dict) and isinstance(raw.get("instance"), dict):
        raw = raw["instance"]
    return validate(Instance, raw, path)


def write_text(text: str, output: Path | None) -> None:
    """Write to ``output`` (creating parent folders) or to stdout when no path is given."""
    if output is None:
        print(text)
        return
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text if text.endswith("\n") else text + "\n")

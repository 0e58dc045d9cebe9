"""Which library a file comes from, told from its content (the extension only confirms it)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from vrpcoder.importers.records import InstanceFormat


def detect_format(text: str, path: Path) -> InstanceFormat:
    """Tell the library from the content; ``.tsp`` / ``.vrp`` files must really be TSPLIB / CVRPLIB."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError(f"{path.name}: the file is empty")
    fmt = _format_from_content(lines, path.name)
    expected = {".tsp": InstanceFormat.TSPLIB, ".vrp": InstanceFormat.CVRPLIB}.get(path.suffix.lower())
    if expected is not None and fmt is not expected:
        raise ValueError(
            f"{path.name}: the extension says {expected.value}, but the content reads as {fmt.value}"
        )
    return fmt


_SPEC_LINE = re.compile(r"^[A-Za-z_]+\s*:")


def _format_from_content(lines: Sequence[str], source: str) -> InstanceFormat:
    if len(lines) > 1 and lines[1].upper().startswith("VEHICLE"):
        return InstanceFormat.SOLOMON
    if _SPEC_LINE.match(lines[0]):
        kind = next((_spec_value(line) for line in lines if line.upper().startswith("TYPE")), None)
        if kind == "TSP":
            return InstanceFormat.TSPLIB
        if kind == "CVRP":
            return InstanceFormat.CVRPLIB
        raise ValueError(f"{source}: TSPLIB-style file of TYPE {kind!r}; only TSP and CVRP are supported")
    head = lines[0].split()
    if all(_is_number(token) for token in head):
        by_width = {
            1: InstanceFormat.VRPB,
            2: InstanceFormat.SDVRPLIB,
            3: InstanceFormat.CORDEAU,
            4: InstanceFormat.CORDEAU,
        }
        if len(head) in by_width:
            return by_width[len(head)]
    raise ValueError(f"{source}: cannot tell the instance format from line 1 ({lines[0][:60]!r})")


def _spec_value(line: str) -> str:
    return line.split(":", 1)[1].strip().upper()


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True

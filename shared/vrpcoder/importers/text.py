"""Reading library files as text: clear errors for a missing or binary file, and the numeric lines
that the Cordeau, SDVRPLIB and VRPB layouts (and Cordeau's solution files) are made of."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path




def read_text(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: is a directory, not a file") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a text file") from None


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    values: tuple[float, ...]


def numeric_lines(text: str, source: str) -> list[Line]:
    return [
        Line(i, tuple(number(token, source, i) for token in line.split()))
        for i, line in enumerate(text.splitlines(), start=1)
        if line.strip()
    ]


def number(token: str, source: str, lineno: int) -> float:
    try:
        return float(token)
    except ValueError:
        raise ValueError(f"{source}, line {lineno}: {token!r} is not a number") from None


def take(lines: list[Line], index: int, width: int, source: str, what: str, *, exact: bool = True) -> Line:
    if index >= len(lines):
        raise ValueError(f"{source}: the file ends before {what}")
    line = lines[index]
    if len(line.values) < width or (exact and len(line.values) != width):
        wanted = f"{width}" if exact else f"at least {width}"
        raise ValueError(
            f"{source}, line {line.number}: {what} needs {wanted} numbers, found {len(line.values)}"
        )
    return line


def positive_count(value: float, source: str, lineno: int, what: str) -> int:
    if value != int(value) or value < 1:
        raise ValueError(f"{source}, line {lineno}: {what} must be a positive integer, got {value:g}")
    return int(value)


def expect_id(line: Line, expected: int, source: str) -> None:
    if line.values[0] != expected:
        raise ValueError(
            f"{source}, line {line.number}: expected entry number {expected}, found {line.values[0]:g}"
        )


def expect_end(lines: Sequence[Line], used: int, source: str) -> None:
    if len(lines) > used:
        raise ValueError(f"{source}, line {lines[used].number}: unexpected data after the last entry")

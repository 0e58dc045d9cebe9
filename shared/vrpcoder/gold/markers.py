"""Marker comments that delimit the code modules of a gold script.

Mutants are made by deleting or rewriting exactly one module, so the module boundaries must be
recoverable from the script text alone (a mutant is stored and run as text, without the renderer
that produced it). Markers are single comment lines, which keeps a script valid Python whatever
is cut out between them.
"""

from __future__ import annotations

import re

from vrpcoder.gold.code import JOINT_MODULES

OPEN_PREFIX = "# >>> module: "
CLOSE_PREFIX = "# <<< module: "
_MARKER = re.compile(r"^(?P<indent>\s*)# (?P<kind>>>>|<<<) module: (?P<name>\S+)\s*$")


def open_marker(name: str) -> str:
    return f"{OPEN_PREFIX}{name}"


def close_marker(name: str) -> str:
    return f"{CLOSE_PREFIX}{name}"


def _spans(script: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of every module; raises on unbalanced or nested markers."""
    spans: list[tuple[str, int, int]] = []
    current: tuple[str, int] | None = None
    for number, line in enumerate(script.splitlines()):
        found = _MARKER.match(line)
        if found is None:
            continue
        name, opening = found["name"], found["kind"] == ">>>"
        if opening:
            if current is not None:
                raise ValueError(f"module {name!r} opens inside module {current[0]!r} (line {number + 1})")
            current = (name, number)
        else:
            if current is None or current[0] != name:
                raise ValueError(f"module {name!r} closes without being open (line {number + 1})")
            spans.append((name, current[1], number))
            current = None
    if current is not None:
        raise ValueError(f"module {current[0]!r} is never closed")
    return spans


def module_names(script: str) -> list[str]:
    """Names of the script's modules in order of appearance (ValueError on unbalanced markers)."""
    return [name for name, _, _ in _spans(script)]


def remove_module(script: str, name: str) -> str:
    """The script without module ``name`` (markers included); ValueError when it is absent."""
    spans = [(first, last) for found, first, last in _spans(script) if found == name]
    if not spans:
        raise ValueError(f"the script has no module named {name!r}")
    drop = {number for first, last in spans for number in range(first, last + 1)}
    kept = [line for number, line in enumerate(script.splitlines()) if number not in drop]
    return "\n".join(kept) + ("\n" if script.endswith("\n") else "")


def remove_family(script: str, family: str, joint: tuple[str, ...] = JOINT_MODULES) -> str:
    """The script without the module of ``family`` and without every module named in ``joint``.

    Joint modules hold cuts that are valid only while every family is enforced (for instance a
    load flow bounded by the capacity, which also rules out subtours); keeping them after a family
    is dropped would silently re-impose part of the dropped rule.
    """
    return strip_joint_modules(remove_module(script, family), joint)


def strip_joint_modules(script: str, joint: tuple[str, ...] = JOINT_MODULES) -> str:
    """The script without its joint modules: the base any single-module mutant must start from.

    The gold optimum is unchanged (joint modules only speed the solve up), but afterwards each
    family's rule lives in exactly one module, so deleting or rewriting that module changes the
    rule and nothing else.
    """
    out = script
    for name in joint:
        if name in module_names(out):
            out = remove_module(out, name)
    return out

"""The house the imports draw: the shared library at the bottom, services above it, the loop on top.

Arrows may only point down (a service imports the domain library and the light client, never the
other way round) or sideways where the table below allows it, and no two modules import each
other, directly or through others. Imports inside functions and under ``TYPE_CHECKING`` count too:
a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PACKAGES: dict[str, Path] = {
    "vrpcoder_client": ROOT / "client" / "vrpcoder_client",
    "vrpcoder": ROOT / "shared" / "vrpcoder",
    "vrpcoder_verifier": ROOT / "services" / "verifier" / "vrpcoder_verifier",
    "vrpcoder_synth": ROOT / "services" / "synth" / "vrpcoder_synth",
    "vrpcoder_trainer": ROOT / "services" / "trainer" / "vrpcoder_trainer",
    "vrpcoder_eval": ROOT / "services" / "eval" / "vrpcoder_eval",
    "vrpcoder_loop": ROOT / "services" / "loop" / "vrpcoder_loop",
}

ALLOWED: dict[str, frozenset[str]] = {
    "vrpcoder_client": frozenset(),
    "vrpcoder": frozenset({"vrpcoder_client"}),
    "vrpcoder_verifier": frozenset({"vrpcoder", "vrpcoder_client"}),
    "vrpcoder_synth": frozenset({"vrpcoder", "vrpcoder_client"}),
    "vrpcoder_trainer": frozenset({"vrpcoder", "vrpcoder_client"}),
    # eval words benchmarks with synth's statement writer and starts a private verifier stack
    "vrpcoder_eval": frozenset({"vrpcoder", "vrpcoder_client", "vrpcoder_synth", "vrpcoder_verifier"}),
    "vrpcoder_loop": frozenset(PACKAGES) - {"vrpcoder_loop"},
}
"""Which of our packages each package may import."""


@cache
def modules() -> dict[str, Path]:
    """Every module of our packages by dotted name (a package by its ``__init__``)."""
    out: dict[str, Path] = {}
    for package, folder in PACKAGES.items():
        for file in folder.rglob("*.py"):
            parts = [package, *file.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = file
    return out


def _resolve(name: str) -> str | None:
    """The module of ours a dotted name belongs to (``vrpcoder.samples.Sample`` -> ``vrpcoder.samples``)."""
    known = modules()
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str) -> Iterator[tuple[str, int]]:
    """The modules of ours that ``module`` imports, with the line of each import."""
    tree = ast.parse(modules()[module].read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # `from pkg import sub` imports the submodule, not the package's other contents
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target is not None and target != module:
                yield target, node.lineno


def test_every_package_is_found() -> None:
    found = {name.split(".")[0] for name in modules()}
    assert found == set(PACKAGES)


def test_no_import_points_up_or_sideways_beyond_the_table() -> None:
    wrong = []
    for module in modules():
        package = module.split(".")[0]
        for target, line in imports_of(module):
            other = target.split(".")[0]
            if other != package and other not in ALLOWED[package]:
                wrong.append(f"{modules()[module].relative_to(ROOT)}:{line} imports {target}")
    assert wrong == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            step = next(successors, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph[step]))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_two_modules_import_each_other() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for module in modules():
        graph[module] |= {target for target, _ in imports_of(module)}
    assert _cycles(graph) == []


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_the_cycle_finder_finds_circles(graph: dict[str, set[str]], expected: list[list[str]]) -> None:
    full: dict[str, set[str]] = defaultdict(set, graph)
    assert _cycles(full) == expected

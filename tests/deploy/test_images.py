"""The images as `make images` builds them: every file a Dockerfile copies is in the build context
(.dockerignore, with Docker's matching rules), and every image the manifests, compose and the
Makefile name is one the Makefile builds, under one release tag."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILES = sorted(p.name for p in ROOT.glob("Dockerfile*"))


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """Docker's .dockerignore syntax: '*' and '?' stay within a path segment, '**' spans segments."""
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            out += ".*"
            i += 2
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return re.compile(out + r"\Z")


def _ignore_rules() -> list[tuple[bool, re.Pattern[str]]]:
    rules = []
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        rules.append((negated, _pattern_regex(line.lstrip("!").strip("/"))))
    return rules


def excluded(path: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Whether Docker leaves ``path`` out of the context: the last rule matching it, or one of its
    parent folders, decides ('!' puts it back)."""
    parts = path.strip("/").split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    verdict = False
    for negated, regex in rules:
        if any(regex.match(prefix) for prefix in prefixes):
            verdict = not negated
    return verdict


@pytest.mark.parametrize(
    ("path", "rules", "expected"),
    [
        ("benchmarks/x.py", ["benchmarks"], True),
        ("benchmarks/x.py", ["benchmarks/*", "!benchmarks/x.py"], False),
        ("benchmarks/y.py", ["benchmarks/*", "!benchmarks/x.py"], True),
        ("a/b/__pycache__/m.pyc", ["**/__pycache__"], True),
        ("services/trainer/x.py", ["tests"], False),
    ],
)
def test_ignore_matcher(path: str, rules: list[str], expected: bool) -> None:
    parsed = [(r.startswith("!"), _pattern_regex(r.lstrip("!"))) for r in rules]
    assert excluded(path, parsed) is expected


def _copied_sources(dockerfile: str) -> list[str]:
    sources = []
    for line in (ROOT / dockerfile).read_text().splitlines():
        if line.startswith("COPY ") and "--from" not in line:
            sources += shlex.split(line)[1:-1]
    return sources


@pytest.mark.parametrize("dockerfile", DOCKERFILES)
def test_every_copied_file_is_in_the_build_context(dockerfile: str) -> None:
    rules = _ignore_rules()
    sources = _copied_sources(dockerfile)
    assert sources
    for source in sources:
        assert (ROOT / source).exists(), f"{dockerfile} copies {source}, which does not exist"
        assert not excluded(source, rules), f"{dockerfile} copies {source}, which .dockerignore leaves out"
        if (ROOT / source).is_dir():
            assert any(not excluded(str(f.relative_to(ROOT)), rules) for f in (ROOT / source).rglob("*.py"))


def test_the_trainer_cpu_image_used_to_be_unbuildable_with_the_old_ignore_file() -> None:
    """The regression the issue reported: 'benchmarks' as a whole left the copied script out."""
    old = [(False, _pattern_regex("benchmarks"))]
    assert "benchmarks/grpo_injection_ablation.py" in _copied_sources("Dockerfile.trainer-cpu")
    assert excluded("benchmarks/grpo_injection_ablation.py", old)

"""Every relative link in README.md and docs/ leads somewhere: an existing file, and the heading an
anchor names.

The README is short and sends the reader to docs/ for everything else, so a page renamed or a heading
reworded would strand them. Anchors are checked the way GitHub makes them from a heading: its text
lower-cased, inline markup dropped, punctuation other than hyphens and underscores removed, spaces
turned into hyphens, and ``-1``, ``-2``, ... added to repeats. Links inside code (fenced blocks,
inline code) are not links, and neither are absolute URLs.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
FENCE = re.compile(r"^(`{3,}|~{3,})")
LINK = re.compile(r"(?<!!)\[(?:[^\[\]]|\[[^\]]*\])*\]\((?P<target><[^>]*>|[^)\s]+)(?:\s+\"[^\"]*\")?\)")
INLINE_CODE = re.compile(r"(`+).*?\1")
SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The page's lines outside fenced code blocks, with their line numbers."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        match = FENCE.match(line.strip())
        if match and (fence is None or (match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence))):
            fence = match.group(1) if fence is None else None
            continue
        if fence is None:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link shows its text
    text = re.sub(r"[`*~]", "", text)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in prose_lines(page.read_text(encoding="utf-8")):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    found.update(re.findall(r'<a\s+(?:name|id)="([^"]+)"', page.read_text(encoding="utf-8")))
    return frozenset(found)


def links(page: Path) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        for match in LINK.finditer(INLINE_CODE.sub("", line)):
            target = match["target"].strip("<>")
            if not SCHEME.match(target):
                out.append((number, target))
    return out


def test_the_pages_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    assert {"README.md", "docs/index.md", "docs/measurements.md", "docs/sandbox.md"} <= names


def test_the_slugs_follow_github() -> None:
    cases = {
        "Kubernetes: the training workflow (`k8s/training/`)": "kubernetes-the-training-workflow-k8straining",
        "Cost injection: the candidate's prices (beyond the paper)": "cost-injection-the-candidates-prices-beyond-the-paper",
        "What `make run` runs first: `vrpcoder verifier demo`": "what-make-run-runs-first-vrpcoder-verifier-demo",
        "Solution files (`vrpcoder check`)": "solution-files-vrpcoder-check",
    }
    assert {heading: slug(heading) for heading in cases} == cases


def test_links_in_code_and_absolute_urls_are_not_checked(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("[a](b.md) `[c](d.md)` [e](https://example.com/f)\n```\n[g](h.md)\n```\n[i](#j)\n")
    assert links(page) == [(1, "b.md"), (5, "#j")]


def broken_links(page: Path) -> list[str]:
    """Each relative link of the page whose file, or whose heading, does not exist."""
    broken = []
    for number, target in links(page):
        path_part, _, anchor = target.partition("#")
        destination = (page.parent / unquote(path_part)).resolve() if path_part else page
        if not destination.exists():
            broken.append(f"line {number}: {target} (no such file)")
        elif anchor and destination.suffix == ".md" and unquote(anchor) not in anchors(destination):
            broken.append(f"line {number}: {target} (no heading #{anchor} in {destination.name})")
    return broken


def test_a_missing_file_or_heading_is_reported(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n## Some `code` here\n## Some code here\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#some-code-here-1) [gone](missing.md) [bad](other.md#nope)"
                    " [self](#other)\n")
    assert broken_links(page) == [
        "line 1: missing.md (no such file)",
        "line 1: other.md#nope (no heading #nope in other.md)",
        "line 1: #other (no heading #other in page.md)",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    broken = broken_links(page)
    assert not broken, "\n".join(broken)

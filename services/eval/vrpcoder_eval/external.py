"""Benchmark 4 adapters: external releases (question + published answer) as benchmark items.

The user supplies the files; nothing is downloaded. Two families of formats are read:

* **NLCO routing** (``--format nlco``): JSON Lines or a JSON array of objects with a problem text
  (``prompt`` / ``question`` / ``problem`` / ``instruction``), a problem type (``problem_type`` /
  ``type`` / ``task``: TSP, CVRP, TSPTW, PDPTW, ...), a reference value (``answer`` / ``objective``
  / ``optimal_value`` / ``label`` / ``ground_truth``) and optionally an id and a vehicle count
  (``num_vehicles`` / ``vehicles`` / ``n_vehicles``). As in the paper's adaptation, the JSON
  output-format and step-by-step instructions are cut from the text, and a CVRP statement gets the
  annotated vehicle count appended when the text does not state one.
* **SIRL-style question/answer releases** (``--format qa``): the cleaned SIRL release and the
  OptMATH, IndustryOR and MAMO files it aggregates: objects with ``en_question``/``en_answer``
  (SIRL, OptMATH, IndustryOR) or ``Question``/``Answer`` (MAMO), optionally ``id`` and a
  ``source``/``Type`` field. Only routing problems are kept (TSP and VRP variants, told from the
  text); the rest is counted as filtered, never as malformed.

Every line that cannot become an item (invalid JSON, no text, an answer that is not a number) is
reported with its line number; nothing is skipped silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from vrpcoder_eval.benchmark import BenchmarkItem, BenchmarkName, LineProblem, PromptRef


class ExternalFormat(StrEnum):
    NLCO = "nlco"
    QA = "qa"


TEXT_KEYS = ("en_question", "Question", "question", "prompt", "problem", "instruction", "statement")
ANSWER_KEYS = ("en_answer", "Answer", "answer", "objective", "optimal_value", "label", "ground_truth")
TYPE_KEYS = ("problem_type", "type", "Type", "task")
ID_KEYS = ("id", "ID", "idx", "index", "uid")
VEHICLE_KEYS = ("num_vehicles", "vehicles", "n_vehicles", "vehicle_count")

ROUTING_TYPES = {
    "tsp": "TSP", "atsp": "TSP", "cvrp": "CVRP", "vrp": "CVRP", "tsptw": "TSPTW", "vrptw": "VRPHTW",
    "cvrptw": "VRPHTW", "pdptw": "PDPTW", "pdp": "PDP", "ovrp": "OVRP", "mdvrp": "MDVRP", "sdvrp": "SDVRP",
}
"""Problem-type labels of the releases, mapped to our variant names where one exists (TSPTW has none:
the paper notes it is absent from training)."""

_ROUTING_TEXT = re.compile(
    r"travel(?:l)?ing\s+sales(?:man|person)|\bTSP\b|vehicle\s+routing|\bC?VRP\w*\b|\bdelivery\s+routes?\b|"
    r"\bvisit(?:s|ing)?\s+(?:each|every|all)\s+(?:of\s+the\s+)?(?:city|cities|customers?|locations?|stores?|nodes?)\b|"
    r"\bshortest\s+(?:possible\s+)?(?:route|tour|cycle)\b|\broute\s+that\s+visits\b|\bsubtours?\b",
    re.IGNORECASE,
)

_FORMAT_NOISE = re.compile(
    r"(?im)^[^\n]*(?:\bjson\b|output\s+format|respond\s+(?:only\s+)?with|reply\s+with|"
    r"think\s+step\s+by\s+step|show\s+your\s+reasoning|explain\s+your\s+reasoning|reasoning\s+process)[^\n]*(?:\n|$)"
)
_VEHICLE_MENTION = re.compile(r"\b\d+\s+(?:vehicles?|trucks?|vans?)\b|\bfleet\s+of\s+\d+", re.IGNORECASE)
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass
class AdapterReport:
    """What an adapter made of a file: items, malformed lines, and how many were filtered out."""

    items: list[BenchmarkItem] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    filtered: int = 0
    """Well-formed records that are not routing problems."""


def is_routing(text: str, type_label: str | None = None) -> bool:
    """A TSP or VRP problem, by its type label when it has one, else by its wording."""
    if type_label:
        key = re.sub(r"[^a-z]", "", type_label.lower())
        if key in ROUTING_TYPES:
            return True
    return bool(_ROUTING_TEXT.search(text))


def parse_answer(value: object) -> float:
    """A published answer as a number: plain numbers, or text holding exactly one number."""
    if isinstance(value, bool):
        raise ValueError(f"answer {value!r} is not a number")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        found = _NUMBER.findall(value)
        if len(found) == 1:
            return float(found[0].replace(",", ""))
        if not found:
            raise ValueError(f"answer {value!r} holds no number")
        raise ValueError(f"answer {value!r} holds several numbers; which one is the objective is ambiguous")
    raise ValueError(f"answer of type {type(value).__name__} is not a number")


def strip_format_instructions(text: str) -> str:
    """Drop the lines that ask for a JSON answer or for the reasoning (the paper's NLCO adaptation)."""
    cleaned = _FORMAT_NOISE.sub("", text)
    return re.sub(r"\n{3,}", "\n\n", cleaned).strip()


def _first(record: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[str | None, Any]:
    for key in keys:
        if key in record and record[key] not in (None, ""):
            return key, record[key]
    return None, None


def _records(path: Path) -> Iterator[tuple[int, Any] | LineProblem]:
    """(line, object) pairs of a JSONL file or a JSON array (array entries numbered from 1)."""
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            yield LineProblem(str(path), exc.lineno, f"invalid JSON array: {exc.msg}")
            return
        for index, record in enumerate(data, start=1):
            yield index, record
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            yield LineProblem(str(path), number, f"invalid JSON: {exc.msg} at column {exc.colno}")


def _source_of(record: Mapping[str, Any], default: str) -> str:
    for key in ("source", "dataset", "origin"):
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            return re.sub(r"[^a-z0-9]+", "-", value.strip().lower()).strip("-")
    return default


def read_external(
    path: Path,
    fmt: ExternalFormat,
    *,
    source: str | None = None,
    prompt: PromptRef = PromptRef(),
) -> AdapterReport:
    """Adapt one user-supplied file to B4 items (see the module docstring for the formats)."""
    report = AdapterReport()
    default_source = source or (ExternalFormat.NLCO.value if fmt is ExternalFormat.NLCO else path.stem.lower())
    seen: set[str] = set()
    for entry in _records(path):
        if isinstance(entry, LineProblem):
            report.problems.append(entry)
            continue
        number, record = entry
        try:
            item = _adapt(record, fmt, number, path, default_source if source is None else source, prompt)
        except ValueError as exc:
            report.problems.append(LineProblem(str(path), number, str(exc)))
            continue
        if item is None:
            report.filtered += 1
            continue
        if item.id in seen:
            report.problems.append(LineProblem(str(path), number, f"duplicate id {item.id!r}"))
            continue
        seen.add(item.id)
        report.items.append(item)
    return report


def _adapt(
    record: object, fmt: ExternalFormat, number: int, path: Path, default_source: str, prompt: PromptRef
) -> BenchmarkItem | None:
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    text_key, text = _first(record, TEXT_KEYS)
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"no problem text (one of {', '.join(TEXT_KEYS)})")
    _, type_label = _first(record, TYPE_KEYS)
    type_text = str(type_label) if type_label is not None else None
    if not is_routing(text, type_text if fmt is ExternalFormat.NLCO else None):
        return None
    answer_key, answer = _first(record, ANSWER_KEYS)
    if answer_key is None:
        raise ValueError(f"no published answer (one of {', '.join(ANSWER_KEYS)})")
    reference = parse_answer(answer)
    variant = _variant(type_text, text)
    statement = text
    if fmt is ExternalFormat.NLCO:
        statement = strip_format_instructions(text)
        statement = _with_vehicle_count(statement, record, variant)
    _, raw_id = _first(record, ID_KEYS)
    source = _source_of(record, default_source)
    local_id = str(raw_id) if raw_id is not None else f"line{number}"
    return BenchmarkItem(
        id=f"b4-{source}-{local_id}",
        benchmark=BenchmarkName.B4,
        statement=statement,
        prompt=prompt,
        reference_objective=reference,
        sample_id=None,
        variant=variant,
        source=source,
        provenance={"file": path.name, "line": number, "format": fmt.value, "text_field": text_key,
                    "published_answer": str(answer), "type": type_text},
    )


def _variant(type_label: str | None, text: str) -> str | None:
    if type_label:
        key = re.sub(r"[^a-z]", "", type_label.lower())
        if key in ROUTING_TYPES:
            return ROUTING_TYPES[key]
    if re.search(r"travel(?:l)?ing\s+sales(?:man|person)|\bTSP\b", text, re.IGNORECASE):
        return "TSP"
    return None


def _with_vehicle_count(statement: str, record: Mapping[str, Any], variant: str | None) -> str:
    if variant != "CVRP" or _VEHICLE_MENTION.search(statement):
        return statement
    _, vehicles = _first(record, VEHICLE_KEYS)
    if vehicles is None:
        return statement
    try:
        count = int(vehicles)
    except (TypeError, ValueError):
        raise ValueError(f"vehicle count {vehicles!r} is not an integer") from None
    return f"{statement}\n\nThe fleet has {count} vehicles available."

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
  ``source``/``Type`` field.

Only routing problems are kept. A record's own type field decides first (``problem_type`` /
``type`` / ``Type`` / ``task`` / ``category``, in both formats): a label that names a routing problem
(``TSP``, ``CVRP``, ``Traveling Salesman Problem``, ``TSPTW``, ``2E-VRP``, ...) keeps it whatever its
wording; a label that names no problem class (MAMO's ``complex_lp``) leaves the decision to the
wording. Every record not kept is listed with its file, line, id, type and the reason
(``AdapterReport.dropped``), never only counted.

A record may carry its instance (``instance``: our ``Instance`` JSON object, or the path of such a
file or of a library file, TSPLIB / CVRPLIB / Solomon / ..., relative to the input file): the label
audit then re-solves it without any folder of transcribed instances.

Every line that cannot become an item (invalid JSON, no text, an answer that is not a number, an
instance that does not load) is reported with its line number; nothing is skipped silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from vrpcoder.importers import import_instance
from vrpcoder.instances import Instance

from vrpcoder_eval.benchmark import INSTANCES_DIR, BenchmarkItem, BenchmarkName, LineProblem, PromptRef


class ExternalFormat(StrEnum):
    NLCO = "nlco"
    QA = "qa"


TEXT_KEYS = ("en_question", "Question", "question", "prompt", "problem", "instruction", "statement")
ANSWER_KEYS = ("en_answer", "Answer", "answer", "objective", "optimal_value", "label", "ground_truth")
TYPE_KEYS = ("problem_type", "type", "Type", "task", "category", "problem_class")
ID_KEYS = ("id", "ID", "idx", "index", "uid")
VEHICLE_KEYS = ("num_vehicles", "vehicles", "n_vehicles", "vehicle_count")
INSTANCE_KEY = "instance"

UNSUPPORTED_VARIANTS: dict[str, str] = {
    "TSPTW": "TSP with time windows",
    "2E-VRP": "two-echelon routing",
    "PVRP": "periodic routing",
    "OP": "orienteering",
    "PCTSP": "prize-collecting TSP",
    "IRP": "inventory routing",
    "LRP": "location routing",
    "DARP": "dial-a-ride",
    "MTVRP": "multi-trip routing",
    "ARP": "arc routing",
}
"""Routing problems the 21 variants do not state: kept in benchmark 4 (Pass@1 on the objective needs no
instance), reported out of scope by the label audit, which has no exact model for them."""

ROUTING_TYPES: dict[str, str] = {
    "tsp": "TSP", "atsp": "TSP", "travelingsalesman": "TSP", "travellingsalesman": "TSP",
    "travelingsalesmanproblem": "TSP", "travellingsalesmanproblem": "TSP", "travelingsalesperson": "TSP",
    "cvrp": "CVRP", "vrp": "CVRP", "vehiclerouting": "CVRP", "vehicleroutingproblem": "CVRP",
    "capacitatedvehiclerouting": "CVRP", "capacitatedvehicleroutingproblem": "CVRP",
    "vrptw": "VRPHTW", "cvrptw": "VRPHTW", "vrphtw": "VRPHTW", "vrpstw": "VRPSTW", "ovrp": "OVRP", "mdvrp": "MDVRP",
    "sdvrp": "SDVRP", "vrpb": "VRPB", "hfvrp": "HFVRP", "hvrp": "HFVRP", "dcvrp": "DCVRP", "mcvrp": "MCVRP",
    "pdp": "PDP", "pdptw": "PDPTW", "vrppd": "PDP",
    "tsptw": "TSPTW", "2evrp": "2E-VRP", "twoechelonvrp": "2E-VRP", "twoechelonvehiclerouting": "2E-VRP",
    "pvrp": "PVRP", "periodicvrp": "PVRP", "periodicvehiclerouting": "PVRP", "op": "OP", "orienteering": "OP",
    "orienteeringproblem": "OP", "top": "OP", "pctsp": "PCTSP", "irp": "IRP", "inventoryrouting": "IRP",
    "lrp": "LRP", "locationrouting": "LRP", "darp": "DARP", "dialaride": "DARP", "mtvrp": "MTVRP", "arp": "ARP",
    "arcrouting": "ARP", "carp": "ARP",
}
"""Problem-type labels of the releases (lower case, letters and digits only), mapped to our variant
names or to a name of ``UNSUPPORTED_VARIANTS``."""

_ROUTING_LABEL = re.compile(r"salesman|salesperson|routing|\btsp|vrp", re.IGNORECASE)
"""A type label not in the table that still names a routing problem (``TSP-easy``, ``Vehicle Routing (VRP)``)."""

_ROUTING_TEXT = re.compile(
    r"travel(?:l)?ing\s+sales(?:man|person)|\bTSP\b|vehicle\s+routing|\bC?VRP\w*\b|\bdelivery\s+routes?\b|"
    r"\bvisit(?:s|ing)?\s+(?:each|every|all)\s+(?:of\s+the\s+)?(?:one|city|cities|customers?|locations?|stores?|nodes?|sites?|points?)\b|"
    r"\b(?:each|every)\s+(?:one|city|customer|location|store|node|site|point)\s+(?:is\s+)?(?:visited\s+)?exactly\s+once\b|"
    r"\bvisit\w*\b[^.]{0,80}\bexactly\s+once\b|\bhamiltonian\s+(?:cycle|circuit|path|tour)\b|"
    r"\bshortest\s+(?:possible\s+)?(?:route|tour|cycle)\b|\broute\s+that\s+visits\b|\bsubtours?\b|\borienteering\b",
    re.IGNORECASE,
)

_UNSUPPORTED_TEXT: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("2E-VRP", re.compile(r"two[- ]echelon|\b2E-?VRP\b", re.IGNORECASE)),
    ("PVRP", re.compile(r"\bperiodic\s+(?:vehicle\s+)?routing|\bPVRP\b", re.IGNORECASE)),
    ("OP", re.compile(r"\borienteering\b", re.IGNORECASE)),
    ("PCTSP", re.compile(r"prize[- ]collecting", re.IGNORECASE)),
    ("IRP", re.compile(r"inventory\s+routing", re.IGNORECASE)),
    ("LRP", re.compile(r"location[- ]routing", re.IGNORECASE)),
    ("DARP", re.compile(r"dial[- ]a[- ]ride", re.IGNORECASE)),
)
"""Wording that marks a variant the 21 do not state (checked after the type label)."""
_TSP_TEXT = re.compile(r"travel(?:l)?ing\s+sales(?:man|person)|\bTSP\b", re.IGNORECASE)
_TIME_WINDOW_TEXT = re.compile(r"time\s+windows?", re.IGNORECASE)

_FORMAT_NOISE = re.compile(
    r"(?im)^[^\n]*(?:\bjson\b|output\s+format|respond\s+(?:only\s+)?with|reply\s+with|"
    r"think\s+step\s+by\s+step|show\s+your\s+reasoning|explain\s+your\s+reasoning|reasoning\s+process)[^\n]*(?:\n|$)"
)
_VEHICLE_MENTION = re.compile(r"\b\d+\s+(?:vehicles?|trucks?|vans?)\b|\bfleet\s+of\s+\d+", re.IGNORECASE)
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass(frozen=True, slots=True)
class DroppedRecord:
    """A well-formed record that is not a routing problem, and why it was judged so."""

    file: str
    line: int
    id: str | None
    type: str | None
    reason: str

    def as_json(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "id": self.id, "type": self.type, "reason": self.reason}


@dataclass
class AdapterReport:
    """What an adapter made of a file: items, the instances some carry, malformed lines, dropped records."""

    items: list[BenchmarkItem] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    dropped: list[DroppedRecord] = field(default_factory=list)
    """Well-formed records that are not routing problems, each with its reason."""
    instances: dict[str, Instance] = field(default_factory=dict)
    """item id -> the instance the record carried (``instance`` field)."""

    @property
    def filtered(self) -> int:
        return len(self.dropped)


@dataclass(frozen=True, slots=True)
class Classification:
    """Whether a record is a routing problem, its variant where told, and why."""

    routing: bool
    variant: str | None
    reason: str


def _label_key(label: str) -> str:
    return re.sub(r"[^a-z0-9]", "", label.lower())


def _variant_from_text(text: str) -> str | None:
    for name, pattern in _UNSUPPORTED_TEXT:
        if pattern.search(text):
            return name
    if _TSP_TEXT.search(text):
        return "TSPTW" if _TIME_WINDOW_TEXT.search(text) else "TSP"
    return None


def classify(text: str, type_label: str | None = None) -> Classification:
    """A TSP or VRP problem? The record's type label decides when it names a problem class; a label
    that names none (``complex_lp``) leaves it to the wording."""
    if type_label:
        key = _label_key(type_label)
        if key in ROUTING_TYPES:
            variant = ROUTING_TYPES[key]
            if variant == "TSP" and _TIME_WINDOW_TEXT.search(text):
                variant = "TSPTW"
            return Classification(True, variant, f"type {type_label!r}")
        if _ROUTING_LABEL.search(type_label):
            return Classification(True, _variant_from_text(type_label + " " + text), f"type {type_label!r}")
    if _ROUTING_TEXT.search(text):
        return Classification(True, _variant_from_text(text), "wording")
    told = f"type {type_label!r} names no routing problem and " if type_label else "no type field, and "
    return Classification(False, None, told + "the wording names no routing problem (no tour, route or vehicle-routing term)")


def is_routing(text: str, type_label: str | None = None) -> bool:
    """A TSP or VRP problem, by its type label when it names one, else by its wording."""
    return classify(text, type_label).routing


def unsupported_variant(variant: str | None) -> str | None:
    """``variant not supported: TSPTW (TSP with time windows)`` for a routing problem the 21 variants
    do not state, else None (one of ours, or not told)."""
    if variant is None or variant not in UNSUPPORTED_VARIANTS:
        return None
    return f"variant not supported: {variant} ({UNSUPPORTED_VARIANTS[variant]})"


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
            adapted = _adapt(record, fmt, number, path, default_source if source is None else source, prompt)
        except ValueError as exc:
            report.problems.append(LineProblem(str(path), number, str(exc)))
            continue
        if isinstance(adapted, DroppedRecord):
            report.dropped.append(adapted)
            continue
        item, instance = adapted
        if item.id in seen:
            report.problems.append(LineProblem(str(path), number, f"duplicate id {item.id!r}"))
            continue
        seen.add(item.id)
        report.items.append(item)
        if instance is not None:
            report.instances[item.id] = instance
    return report


def _adapt(
    record: object, fmt: ExternalFormat, number: int, path: Path, default_source: str, prompt: PromptRef
) -> tuple[BenchmarkItem, Instance | None] | DroppedRecord:
    if not isinstance(record, dict):
        raise ValueError(f"expected a JSON object, got {type(record).__name__}")
    text_key, text = _first(record, TEXT_KEYS)
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"no problem text (one of {', '.join(TEXT_KEYS)})")
    _, type_label = _first(record, TYPE_KEYS)
    type_text = str(type_label) if type_label is not None else None
    _, raw_id = _first(record, ID_KEYS)
    record_id = str(raw_id) if raw_id is not None else None
    found = classify(text, type_text)
    if not found.routing:
        return DroppedRecord(path.name, number, record_id, type_text, f"not routing: {found.reason}")
    answer_key, answer = _first(record, ANSWER_KEYS)
    if answer_key is None:
        raise ValueError(f"no published answer (one of {', '.join(ANSWER_KEYS)})")
    reference = parse_answer(answer)
    statement = text
    if fmt is ExternalFormat.NLCO:
        statement = strip_format_instructions(text)
        statement = _with_vehicle_count(statement, record, found.variant)
    source = _source_of(record, default_source)
    local_id = record_id if record_id is not None else f"line{number}"
    instance = _instance(record.get(INSTANCE_KEY), path) if record.get(INSTANCE_KEY) is not None else None
    item_id = f"b4-{source}-{local_id}"
    provenance: dict[str, str | int | float | bool | None] = {
        "file": path.name, "line": number, "format": fmt.value,
        "text_field": text_key, "published_answer": str(answer), "type": type_text, "record_id": record_id,
        "routing_by": found.reason,
    }
    if instance is not None:
        provenance["instance"] = f"{INSTANCES_DIR}/{item_id}.json"
    item = BenchmarkItem(
        id=item_id,
        benchmark=BenchmarkName.B4,
        statement=statement,
        prompt=prompt,
        reference_objective=reference,
        sample_id=None,
        variant=instance.variant if instance is not None else found.variant,
        source=source,
        provenance=provenance,
    )
    return item, instance


def _instance(value: object, path: Path) -> Instance:
    """The instance a record carries: our Instance JSON inline, or a file next to the input file
    (an Instance JSON file, or a library file read by ``vrpcoder.importers``)."""
    if isinstance(value, dict):
        try:
            return Instance.model_validate(value)
        except ValueError as exc:
            raise ValueError(f"instance: not a valid instance: {exc}") from None
    if isinstance(value, str):
        target = (path.parent / value).resolve()
        if not target.is_file():
            raise ValueError(f"instance: no such file {value!r} (paths are relative to {path.name})")
        try:
            if target.suffix == ".json":
                return Instance.model_validate_json(target.read_text(encoding="utf-8"))
            return import_instance(target)
        except (ValueError, KeyError, IndexError) as exc:
            raise ValueError(f"instance: {value!r} does not load: {exc}") from None
    raise ValueError(f"instance: expected an object or a file path, got {type(value).__name__}")


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

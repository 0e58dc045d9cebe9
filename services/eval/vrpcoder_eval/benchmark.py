"""The benchmark format: one JSONL file per benchmark, one validated item per line.

A benchmark folder holds ``b1.jsonl`` .. ``b4.jsonl`` (any subset) and ``samples/<sample_id>.json``.
An item carries everything needed to ask a model and to score its answer: the statement, a
*reference* to the system prompt (the shared code-regeneration prompt, by name and digest, so a run
notices when the prompt text changed under it), the reference objective, and, where the item has an
instance we generated or imported, the id of a verifier sample (instance + labelled probes) for INJ.
Sample files follow the synth dataset contract: the text is ``Sample.model_dump_json()`` exactly and
the file name is the sha256 of that text, which is the id the verifier registers it under.

Loaders never skip a bad line silently: every problem is collected with its line number and either
raised together (``load_items``) or returned beside the good items (``read_items``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from vrpcoder.instances import Instance
from vrpcoder.samples import Sample

SAMPLE_ID_PATTERN = r"^[0-9a-f]{64}$"
SAMPLES_DIR = "samples"
INSTANCES_DIR = "instances"
"""Instances external items carried (``instances/<item_id>.json``), which the label audit re-solves."""


class BenchmarkName(StrEnum):
    """The four benchmarks of the paper's evaluation protocol."""

    B1 = "b1"
    """In-distribution: the 18 training variants, seeds disjoint from training."""
    B2 = "b2"
    """Held-out variant combinations (OVRPHTW, MCVRPSTW, DCVRPHTW)."""
    B3 = "b3"
    """Sub-instances (5-12 customers) of public library files."""
    B4 = "b4"
    """Cross-source: routing problems of external releases (NLCO, SIRL/OptMATH/IndustryOR/MAMO)."""
    SAMPLES = "samples"
    """Not one of the paper's: a folder of verifier samples scored with ``vrpcoder eval score --samples``."""

    @classmethod
    def parse(cls, text: str) -> BenchmarkName:
        """Accept ``1``, ``b1``, ``B1`` (or ``samples``)."""
        key = text.strip().lower()
        key = key if key.startswith(("b", "samples")) else f"b{key}"
        try:
            return cls(key)
        except ValueError:
            raise ValueError(f"unknown benchmark {text!r}; expected one of 1, 2, 3, 4") from None

    @property
    def file_name(self) -> str:
        return f"{self.value}.jsonl"


class PromptRef(BaseModel):
    """Which system prompt the item is meant to be asked with.

    A reference, not a copy: 700 items would otherwise carry 700 copies of one prompt, and an item
    could silently drift from the prompt the trained model saw. ``sha256`` is the digest of the text
    when the benchmark was built; the runner warns when the text it resolves today differs.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "vrpcoder_client.prompts:CODE_SYSTEM_PROMPT"
    sha256: str | None = None


class BenchmarkItem(BaseModel):
    """One evaluation problem."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    benchmark: BenchmarkName
    statement: str = Field(min_length=1)
    prompt: PromptRef = PromptRef()
    reference_objective: float
    """The value a correct script's optimum must match (absolute tolerance 1e-3 by default)."""
    sample_id: str | None = Field(default=None, pattern=SAMPLE_ID_PATTERN)
    """The verifier sample (instance and probes) for DIFF and INJ; None for a DIFF-only item."""
    variant: str | None = None
    """Our variant name where known (B1-B3, and B4 items an adapter could classify)."""
    source: str
    """Where the problem comes from: ``synthetic``, a library (``tsplib``, ``cvrplib``, ...) or an
    external release (``nlco``, ``optmath``, ``industryor``, ``mamo``, ...)."""
    provenance: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    """How to regenerate or trace the item: file, line, seed, profile, customers kept, ..."""

    @field_validator("statement")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("statement is blank")
        return value


@dataclass(frozen=True, slots=True)
class LineProblem:
    """A line of an input file that could not be read as an item."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class BenchmarkFormatError(ValueError):
    """One or more lines of a benchmark file are malformed; every problem is listed."""

    def __init__(self, problems: Sequence[LineProblem]) -> None:
        self.problems = tuple(problems)
        shown = "\n".join(f"  {p}" for p in self.problems[:20])
        more = f"\n  ... and {len(self.problems) - 20} more" if len(self.problems) > 20 else ""
        super().__init__(f"{len(self.problems)} malformed line(s):\n{shown}{more}")


def _validation_message(exc: ValidationError) -> str:
    parts = []
    for error in exc.errors():
        where = ".".join(str(p) for p in error["loc"]) or "item"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def read_items(path: Path) -> tuple[list[BenchmarkItem], list[LineProblem]]:
    """Every valid item of a JSONL file and every problem (by line number), blank lines ignored."""
    items: list[BenchmarkItem] = []
    problems: list[LineProblem] = []
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                item = BenchmarkItem.model_validate_json(line)
            except ValidationError as exc:
                problems.append(LineProblem(str(path), number, _validation_message(exc)))
                continue
            if item.id in seen:
                problems.append(LineProblem(str(path), number, f"duplicate id {item.id!r} (first on line {seen[item.id]})"))
                continue
            seen[item.id] = number
            items.append(item)
    return items, problems


def load_items(path: Path) -> list[BenchmarkItem]:
    """The items of a JSONL file; raises ``BenchmarkFormatError`` listing every bad line."""
    items, problems = read_items(path)
    if problems:
        raise BenchmarkFormatError(problems)
    return items


def write_items(path: Path, items: Iterable[BenchmarkItem]) -> int:
    """Write items as JSONL (one compact object per line); returns how many were written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for item in items:
            handle.write(item.model_dump_json(exclude_none=False) + "\n")
            count += 1
    return count


def sample_text_id(text: str) -> str:
    """The verifier's content id of a sample serialized as ``text``."""
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class BenchmarkDir:
    """A benchmark folder: the JSONL files and the sample store beside them."""

    root: Path

    def path(self, name: BenchmarkName) -> Path:
        return self.root / name.file_name

    def available(self) -> list[BenchmarkName]:
        return [name for name in BenchmarkName if self.path(name).is_file()]

    def items(self, name: BenchmarkName) -> list[BenchmarkItem]:
        path = self.path(name)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no such benchmark file (build it with `vrpcoder eval build`)")
        return load_items(path)

    def save_sample(self, sample: Sample) -> str:
        """Store a sample under its content id (the text is exactly ``model_dump_json()``)."""
        text = sample.model_dump_json()
        sample_id = sample_text_id(text)
        folder = self.root / SAMPLES_DIR
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{sample_id}.json"
        if not target.exists():
            target.write_text(text, encoding="utf-8")
        return sample_id

    def save_instance(self, item_id: str, instance: Instance) -> Path:
        """Store the instance an external item carried, where the label audit looks for it."""
        target = self.instance_path(item_id)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(instance.model_dump_json(indent=1), encoding="utf-8")
        return target

    def instance_path(self, item_id: str) -> Path:
        return self.root / INSTANCES_DIR / f"{item_id}.json"

    def sample_path(self, sample_id: str) -> Path:
        return self.root / SAMPLES_DIR / f"{sample_id}.json"

    def load_sample(self, sample_id: str) -> Sample:
        """Read a stored sample and check that its text still hashes to its id."""
        path = self.sample_path(sample_id)
        if not path.is_file():
            raise FileNotFoundError(f"{path}: sample {sample_id} is missing from the benchmark folder")
        text = path.read_text(encoding="utf-8")
        if sample_text_id(text) != sample_id:
            raise ValueError(f"{path}: content does not hash to its name (edited after it was written?)")
        return Sample.model_validate_json(text)

    def write(self, name: BenchmarkName, items: Sequence[BenchmarkItem]) -> Path:
        path = self.path(name)
        write_items(path, items)
        return path


def dump_json(path: Path, data: object) -> None:
    """Pretty JSON for the small files humans read (manifests, reports)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")

"""`vrpcoder eval score`: answers a researcher already has, scored exactly as `eval run` scores a model.

Two kinds of answers:

* a **JSONL file of completions**, one per line: the item named by ``item_id`` / ``id`` (a benchmark
  item id or a sample id), by ``sample_id`` (the verifier sample's content id, as synth's GRPO records
  carry it), or by its ``prompt`` (the statement, or chat messages whose last user turn is the
  statement); the answer in ``completion`` / ``response`` / ``output`` / ``text`` (text or chat
  messages, the code block is extracted as for a model), or ``messages`` ending with the assistant's
  reply, or ``code`` (the script itself);
* a **folder of scripts**: ``<item id>.py`` per item.

They are scored against a benchmark folder (``eval build``) or a folder of verifier samples (synth's
``samples/``, ``vrpcoder samples build -o DIR``; the item id is the sample's ``id``), through the same
runner as ``eval run`` (``vrpcoder_eval.runner``, with a recorded :class:`AnswerSource` instead of the
model), so ``results.jsonl``, ``metrics.json`` and the reports have one format. Every line or file that
names no item, or answers an item twice, is reported by line number or name; nothing is dropped
silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from vrpcoder.samples import Sample
from vrpcoder_client.reward import extract_code

from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkItem, BenchmarkName, LineProblem
from vrpcoder_eval.generation import Completion
from vrpcoder_eval.runner import Answer

ID_KEYS = ("item_id", "id")
PROMPT_KEYS = ("prompt", "statement", "question")
COMPLETION_KEYS = ("completion", "response", "output", "text", "generation")
NO_ANSWER = "no_answer"
"""The finish reason recorded for an item the answers do not cover (scored as ``no_code``)."""


class MissingPolicy(StrEnum):
    FAIL = "fail"
    """An item without an answer is scored and fails (no code): rates stay over the whole benchmark."""
    SKIP = "skip"
    """Only answered items are scored (the summary says how many were left out)."""


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _last(messages: object, role: str) -> str | None:
    if not isinstance(messages, list):
        return None
    found = [m.get("content") for m in messages if isinstance(m, dict) and m.get("role") == role]
    return str(found[-1]) if found and found[-1] is not None else None


@dataclass
class ItemIndex:
    """Benchmark items by id, sample id and normalised statement."""

    items: Sequence[BenchmarkItem]
    by_id: dict[str, BenchmarkItem] = field(default_factory=dict)
    by_sample: dict[str, list[BenchmarkItem]] = field(default_factory=dict)
    by_statement: dict[str, list[BenchmarkItem]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for item in self.items:
            self.by_id[item.id] = item
            if item.sample_id is not None:
                self.by_sample.setdefault(item.sample_id, []).append(item)
            self.by_statement.setdefault(_normal(item.statement), []).append(item)

    def match(self, record: Mapping[str, Any]) -> BenchmarkItem:
        """The item a record answers; ValueError says why none (or several) match."""
        for key in ID_KEYS:
            if record.get(key) is not None:
                value = str(record[key])
                if value in self.by_id:
                    return self.by_id[value]
                raise ValueError(f"{key} {value!r} names no item of the benchmark")
        if record.get("sample_id") is not None:
            return self._one(self.by_sample.get(str(record["sample_id"]), []), f"sample_id {record['sample_id']!r}")
        prompt = self._prompt(record)
        if prompt is None:
            raise ValueError(f"names no item: give one of {', '.join(ID_KEYS)}, sample_id, {', '.join(PROMPT_KEYS)} or messages")
        return self._one(self.by_statement.get(_normal(prompt), []), "the prompt")

    @staticmethod
    def _prompt(record: Mapping[str, Any]) -> str | None:
        for key in PROMPT_KEYS:
            value = record.get(key)
            if isinstance(value, str) and value.strip():
                return value
            if isinstance(value, list):
                return _last(value, "user")
        return _last(record.get("messages"), "user")

    @staticmethod
    def _one(found: list[BenchmarkItem], what: str) -> BenchmarkItem:
        if not found:
            raise ValueError(f"{what} matches no item's statement" if what == "the prompt" else f"{what} names no item")
        if len(found) > 1:
            raise ValueError(f"{what} matches {len(found)} items ({', '.join(i.id for i in found[:3])}); give item_id")
        return found[0]


def _answer_of(record: Mapping[str, Any], model: str) -> Answer:
    """The completion (or script) a record holds; ValueError when it holds none."""
    meta = {"model": model, "finish_reason": record.get("finish_reason"),
            "completion_tokens": record.get("completion_tokens") if isinstance(record.get("completion_tokens"), int) else None}
    if isinstance(record.get("code"), str):
        return Answer(Completion(text=record["code"], **meta), record["code"])
    for key in COMPLETION_KEYS:
        value = record.get(key)
        if isinstance(value, str):
            return Answer(Completion(text=value, **meta), extract_code(value))
        if isinstance(value, list):
            text = _last(value, "assistant") or ""
            return Answer(Completion(text=text, **meta), extract_code(text))
    reply = _last(record.get("messages"), "assistant")
    if reply is not None:
        return Answer(Completion(text=reply, **meta), extract_code(reply))
    raise ValueError(f"holds no answer: give one of {', '.join(COMPLETION_KEYS)}, messages (with the assistant's reply) or code")


@dataclass
class RecordedAnswers:
    """An :class:`~vrpcoder_eval.runner.AnswerSource` of answers given in advance."""

    answers: dict[str, Answer]
    model: str
    problems: list[LineProblem] = field(default_factory=list)

    async def answer(self, item: BenchmarkItem) -> Answer:
        found = self.answers.get(item.id)
        if found is None:
            return Answer(Completion(text="", model=self.model, finish_reason=NO_ANSWER), None)
        return found

    def changed(self, item: BenchmarkItem, recorded_code: str | None) -> bool:
        """An answer edited since it was scored is scored again on resume."""
        found = self.answers.get(item.id)
        return (found.code if found is not None else None) != recorded_code

    def missing(self, items: Sequence[BenchmarkItem]) -> list[str]:
        return [i.id for i in items if i.id not in self.answers]


def read_completions(path: Path, items: Sequence[BenchmarkItem], model: str) -> RecordedAnswers:
    """Every answer of a JSONL file of completions, matched to ``items``; bad lines are listed."""
    index = ItemIndex(items)
    out = RecordedAnswers({}, model)
    first_line: dict[str, int] = {}
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if not isinstance(record, dict):
                    raise ValueError(f"expected a JSON object, got {type(record).__name__}")
                item = index.match(record)
                answer = _answer_of(record, model)
            except json.JSONDecodeError as exc:
                out.problems.append(LineProblem(str(path), number, f"invalid JSON: {exc.msg} at column {exc.colno}"))
                continue
            except ValueError as exc:
                out.problems.append(LineProblem(str(path), number, str(exc)))
                continue
            if item.id in out.answers:
                out.problems.append(LineProblem(str(path), number,
                                                f"item {item.id!r} already answered on line {first_line[item.id]}"))
                continue
            first_line[item.id] = number
            out.answers[item.id] = answer
    return out


def read_scripts(folder: Path, items: Sequence[BenchmarkItem], model: str) -> RecordedAnswers:
    """``<item id>.py`` per item; a script named after no item is listed as a problem."""
    known = {i.id for i in items}
    out = RecordedAnswers({}, model)
    for path in sorted(folder.glob("*.py")):
        if path.stem not in known:
            out.problems.append(LineProblem(str(path), 0, f"names no item of the benchmark ({path.stem!r})"))
            continue
        code = path.read_text(encoding="utf-8")
        out.answers[path.stem] = Answer(Completion(text=code, model=model), code)
    if not any(folder.glob("*.py")):
        out.problems.append(LineProblem(str(folder), 0, "no <item id>.py script in the folder"))
    return out


@dataclass
class SamplesImport:
    """A folder of samples turned into a benchmark folder (items + content-addressed samples)."""

    store: BenchmarkDir
    items: list[BenchmarkItem]
    problems: list[LineProblem]


def sample_files(folder: Path) -> list[Path]:
    """The sample files of a folder, or of its ``samples/`` (a synth dataset folder)."""
    files = sorted(folder.glob("*.json"))
    if not files and (folder / "samples").is_dir():
        files = sorted((folder / "samples").glob("*.json"))
    return files


def import_samples(folder: Path, target: Path) -> SamplesImport:
    """Every sample of ``folder`` as an item of benchmark ``samples`` in ``target`` (id: the sample's id)."""
    store = BenchmarkDir(target)
    items: list[BenchmarkItem] = []
    problems: list[LineProblem] = []
    seen: dict[str, Path] = {}
    for path in sample_files(folder):
        try:
            sample = Sample.model_validate_json(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            problems.append(LineProblem(str(path), 0, f"not a sample: {str(exc).splitlines()[0]}"))
            continue
        if sample.id in seen:
            problems.append(LineProblem(str(path), 0, f"sample id {sample.id!r} also in {seen[sample.id].name}"))
            continue
        seen[sample.id] = path
        items.append(BenchmarkItem(
            id=sample.id, benchmark=BenchmarkName.SAMPLES,
            statement=sample.statement or f"(sample {sample.id} has no statement)",
            reference_objective=sample.reference_objective, sample_id=store.save_sample(sample),
            variant=sample.variant, source=sample.instance.provenance.source,
            provenance={"file": path.name, "sample_kind": sample.kind},
        ))
    if not items and not problems:
        problems.append(LineProblem(str(folder), 0, "no sample file (*.json) in the folder or its samples/"))
    store.write(BenchmarkName.SAMPLES, items)
    return SamplesImport(store, items, problems)

"""The synth dataset contract as the trainer reads and writes it.

``vrpcoder synth run`` writes a folder that ``datasets.load_dataset(DIR, name)`` loads: a card
(README.md whose YAML front matter names the configs), ``sft/``, ``grpo/``, ``reserved/`` JSONL
files and ``samples/<sample_id>.json`` (the sample's exact JSON, so registering it with the verifier
gives back the same id). The frontier filter writes a folder of the same shape with one config,
``frontier``, so GRPO reads either through the same code.

``write_dataset`` builds such a folder from samples and target scripts; the tests and the CPU demo
use it instead of waiting for a synth run.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict
from vrpcoder_client.prompts import code_system_prompt
from vrpcoder_client.schemas import json_digest

from vrpcoder_trainer.config import ConfigError, DatasetSettings

SAMPLES_DIR = "samples"


class Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    content: str


class SFTRecord(BaseModel):
    """One line of ``sft/train.jsonl``."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: str
    messages: tuple[Message, ...]
    variant: str
    path: str
    sample_id: str


class GRPORecord(BaseModel):
    """One line of ``grpo/train.jsonl`` (TRL's conversational prompt format)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    id: str
    prompt: tuple[Message, ...]
    sample_id: str
    variant: str
    path: str


class DatasetEntry(BaseModel):
    """What ``write_dataset`` turns into one SFT record and one GRPO prompt."""

    model_config = ConfigDict(frozen=True)

    id: str
    variant: str
    path: str
    statement: str
    target_code: str
    sample_json: str
    """``Sample.model_dump_json()`` exactly: its sha256 is the verifier's id of the sample."""


def prompt_messages(statement: str) -> tuple[Message, ...]:
    """The shared code-regeneration system prompt and the statement: what every rollout is asked."""
    return (Message(role="system", content=code_system_prompt()), Message(role="user", content=statement))


def fenced(code: str) -> str:
    return f"```python\n{code.rstrip()}\n```"


def dataset_card(configs: Sequence[str], summary: str) -> str:
    """README.md with the ``configs:`` front matter ``datasets.load_dataset(DIR, name)`` reads."""
    front = {"configs": [{"config_name": name, "data_files": [{"split": "train", "path": f"{name}/train.jsonl"}]} for name in configs]}
    return "---\n" + yaml.safe_dump(front, sort_keys=False) + "---\n\n" + summary.rstrip() + "\n"


def _write_jsonl(path: Path, rows: Iterable[BaseModel | dict[str, Any]]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            data = row.model_dump(mode="json") if isinstance(row, BaseModel) else row
            handle.write(json.dumps(data, ensure_ascii=False) + "\n")
            count += 1
    return count


def write_samples(directory: Path, sample_jsons: Iterable[str]) -> list[str]:
    """``samples/<id>.json`` for each sample JSON (deduplicated); returns the ids."""
    folder = directory / SAMPLES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    ids = []
    for text in sample_jsons:
        sample_id = json_digest(text)
        target = folder / f"{sample_id}.json"
        if not target.exists():
            target.write_text(text, encoding="utf-8")
        ids.append(sample_id)
    return ids


def write_dataset(directory: Path | str, entries: Sequence[DatasetEntry]) -> Path:
    """A dataset folder in the synth contract (configs sft and grpo; reserved left empty)."""
    out = Path(directory)
    ids = write_samples(out, (e.sample_json for e in entries))
    sft = [
        SFTRecord(
            id=e.id,
            messages=(*prompt_messages(e.statement), Message(role="assistant", content=fenced(e.target_code))),
            variant=e.variant,
            path=e.path,
            sample_id=sample_id,
        )
        for e, sample_id in zip(entries, ids, strict=True)
    ]
    prompts: dict[tuple[str, str], GRPORecord] = {}
    for e, sample_id in zip(entries, ids, strict=True):
        prompts.setdefault(
            (e.statement, sample_id),
            GRPORecord(id=e.id, prompt=prompt_messages(e.statement), sample_id=sample_id, variant=e.variant, path=e.path),
        )
    _write_jsonl(out / "sft" / "train.jsonl", sft)
    _write_jsonl(out / "grpo" / "train.jsonl", prompts.values())
    _write_jsonl(out / "reserved" / "train.jsonl", [])
    counts = Counter((e.variant, e.path) for e in entries)
    table = "\n".join(f"| {v} | {p} | {n} |" for (v, p), n in sorted(counts.items()))
    summary = f"# Training data\n\n| variant | path | SFT records |\n|---|---|---|\n{table}\n\n{len(prompts)} GRPO prompts.\n"
    (out / "README.md").write_text(dataset_card(("sft", "grpo", "reserved"), summary), encoding="utf-8")
    return out


def card_data_files(folder: Path, config: str) -> list[Path]:
    """The train files the dataset card (README.md front matter) lists for ``config``."""
    card = folder / "README.md"
    try:
        text = card.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{folder}: not a dataset folder (no README.md with a configs list)") from exc
    parts = text.split("---", 2)
    front = yaml.safe_load(parts[1]) if text.startswith("---") and len(parts) == 3 else None
    configs = {c.get("config_name"): c for c in (front or {}).get("configs", []) if isinstance(c, dict)}
    if config not in configs:
        raise ConfigError(f"{card}: no config {config!r} (the card lists {', '.join(map(str, configs)) or 'none'})")
    files = configs[config].get("data_files")
    entries = [files] if isinstance(files, (str, dict)) else list(files or [])
    paths = [e if isinstance(e, str) else e.get("path") for e in entries if isinstance(e, str) or e.get("split", "train") == "train"]
    return [folder / p for p in paths if p]


def load_records(settings: DatasetSettings):  # type: ignore[no-untyped-def]
    """The config's train split as a ``datasets.Dataset``, read from the files its card names.

    Read in memory rather than through ``load_dataset``'s cache: datasets 5 keys that cache on the
    folder's *name* and the config, so two dataset folders both called "data" read each other's
    records (seen here between two runs).
    """
    import datasets

    folder = Path(settings.path)
    files = card_data_files(folder, settings.config)
    missing = [str(f) for f in files if not f.is_file()]
    if not files or missing:
        raise ConfigError(f"{folder}: config {settings.config!r} has no data files ({', '.join(missing) or 'none listed'})")
    rows = [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not rows:
        raise ConfigError(f"{folder}: config {settings.config!r} has no records")
    if settings.limit is not None:
        rows = rows[: settings.limit]
    return datasets.Dataset.from_list(rows)


def sample_texts(directory: Path | str, sample_ids: Iterable[str]) -> dict[str, str]:
    """The stored JSON of each sample id, checked against its id (a mismatch means the file was edited)."""
    folder = Path(directory) / SAMPLES_DIR
    texts: dict[str, str] = {}
    for sample_id in dict.fromkeys(sample_ids):
        path = folder / f"{sample_id}.json"
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"sample {sample_id} is missing from {folder}") from exc
        if json_digest(text) != sample_id:
            raise ConfigError(f"{path}: its content does not hash to its id (the file was changed)")
        texts[sample_id] = text
    return texts

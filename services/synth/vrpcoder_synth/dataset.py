"""The run's output folder, loadable with ``datasets.load_dataset(DIR, name)``.

Layout (the dataset contract shared with the trainer and eval):

- ``README.md``: the card; YAML front matter names the configs ``sft``, ``grpo`` and ``reserved``,
  then counts per variant x path x outcome and the discard reasons;
- ``sft/train.jsonl``: chat records (system: the shared code prompt, user: q, assistant: the code);
- ``grpo/train.jsonl``: TRL conversational prompts with the verifier's ``sample_id``;
- ``reserved/train.jsonl``: like sft plus the verdict (DIFF passed, INJ failed);
- ``samples/<sample_id>.json``: each referenced sample, text = ``Sample.model_dump_json()``;
- ``decisions.jsonl``: every Stage 4 decision (mutants and discards included) with its verdict.

Everything is written from the item records alone, in id order, so the bytes depend only on the
records.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from vrpcoder_client.prompts import code_prompt_version, code_system_prompt

from vrpcoder_synth.formulations import covered_variants
from vrpcoder_synth.records import ItemRecord, Outcome

CONFIGS = ("sft", "grpo", "reserved")


def _jsonl(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(row, ensure_ascii=False, sort_keys=False) + "\n" for row in rows)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def _prompt(record: ItemRecord) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": code_system_prompt()},
        {"role": "user", "content": record.statement or ""},
    ]


def _sft(record: ItemRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "messages": [*_prompt(record), {"role": "assistant", "content": f"```python\n{(record.code or '').rstrip()}\n```"}],
        "variant": record.variant,
        "path": record.path,
        "sample_id": record.sample_id,
    }


def _grpo(record: ItemRecord) -> dict[str, Any]:
    return {"id": record.id, "prompt": _prompt(record), "sample_id": record.sample_id, "variant": record.variant, "path": record.path}


def _decision(record: ItemRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "sample": record.sample,
        "variant": record.variant,
        "kind": record.kind,
        "path": record.path,
        "mutant": record.mutant,
        "coder": record.coder,
        "outcome": record.outcome.value,
        "reason": record.reason,
        "sample_id": record.sample_id,
        "verdict": record.verdict,
    }


def _distinct_pairs(records: Sequence[ItemRecord]) -> list[ItemRecord]:
    """The first record of each (statement, script) pair: an attacked copy whose statement reads like
    its base sample's (an attack that left every stated number as it was) gives the same pair again,
    and SFT would then weigh that one pair twice."""
    seen: set[tuple[str | None, str | None]] = set()
    out = []
    for record in records:
        pair = (record.statement, record.code)
        if pair not in seen:
            seen.add(pair)
            out.append(record)
    return out


def split(records: Sequence[ItemRecord]) -> dict[str, list[ItemRecord]]:
    """Records per config: ``sft`` and ``reserved`` hold each (statement, script) pair once; ``grpo``
    keeps every accepted prompt, since two samples with the same statement carry different probes."""
    accepted = [r for r in records if r.outcome is Outcome.ACCEPTED and r.mutant is None]
    reserved = [r for r in records if r.outcome is Outcome.RESERVED]
    return {"sft": _distinct_pairs(accepted), "grpo": accepted, "reserved": _distinct_pairs(reserved)}


def write_dataset(out: Path, records: Sequence[ItemRecord]) -> None:
    """(Re)write every dataset file of ``out`` from ``records``."""
    parts = split(records)
    _write(out / "sft" / "train.jsonl", _jsonl(_sft(r) for r in parts["sft"]))
    _write(out / "grpo" / "train.jsonl", _jsonl(_grpo(r) for r in parts["grpo"]))
    _write(out / "reserved" / "train.jsonl", _jsonl({**_sft(r), "verdict": r.verdict} for r in parts["reserved"]))
    _write(out / "decisions.jsonl", _jsonl(_decision(r) for r in records))
    wanted = sorted({r.sample_id for name in CONFIGS for r in parts[name]})
    samples = out / "samples"
    if samples.exists():
        shutil.rmtree(samples)
    samples.mkdir(parents=True)
    stored = out / ".work" / "samples"
    for sample_id in wanted:
        shutil.copyfile(stored / f"{sample_id}.json", samples / f"{sample_id}.json")
    _write(out / "README.md", card(records))


def _front_matter() -> str:
    lines = ["---", "configs:"]
    for name in CONFIGS:
        lines += [f"- config_name: {name}", "  data_files:", "  - split: train", f"    path: {name}/train.jsonl"]
    lines += ["license: other", "task_categories:", "- text-generation", "---"]
    return "\n".join(lines)


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def card(records: Sequence[ItemRecord]) -> str:
    """The dataset card: what is in each config and how every item was decided."""
    parts = split(records)
    plain = [r for r in records if r.mutant is None]
    mutants = [r for r in records if r.mutant is not None]
    lines = [
        _front_matter(),
        "",
        "# VRPCoder synthetic data",
        "",
        "Problem statements of sampled vehicle-routing instances and gurobipy scripts that the dual "
        "verifier (DIFF against the gold optimum + constraint injection) accepted. Held-out variants "
        "never enter this data.",
        "",
        f"- `sft`: {len(parts['sft'])} chat records (system prompt, statement, accepted script; each pair once)",
        f"- `grpo`: {len(parts['grpo'])} prompts with the verifier's `sample_id` (samples in `samples/`)",
        f"- `reserved`: {len(parts['reserved'])} scripts that match the optimum but fail injection (no-injection ablation)",
        f"- code-regeneration system prompt version: `{code_prompt_version()}`",
        "",
        "## Outcomes per variant and path",
        "",
    ]
    cells: Counter[tuple[str, str, str]] = Counter((r.variant, r.path, r.outcome.value) for r in plain)
    keys = sorted({(v, p) for v, p, _ in cells})
    lines += _table(
        ("variant", "path", "accepted", "reserved", "discarded"),
        ((v, p, cells[v, p, "accepted"], cells[v, p, "reserved"], cells[v, p, "discarded"]) for v, p in keys),
    )
    lines += ["", "## Discard reasons", ""]
    reasons = Counter(r.reason for r in records if r.outcome.value == "discarded")
    lines += _table(("reason", "items"), sorted(reasons.items())) if reasons else ["None."]
    lines += ["", "## Code sources", ""]
    coders: dict[str, Counter[str]] = defaultdict(Counter)
    for r in plain:
        if r.coder:
            coders[r.variant][r.coder] += 1
    lines += _table(
        ("variant", "formulations (items)"),
        ((v, ", ".join(f"{c} ({n})" for c, n in sorted(coders[v].items()))) for v in sorted(coders)),
    )
    uncovered = sorted({r.variant for r in plain} - covered_variants())
    lines += [
        "",
        "Offline code comes from independently written formulations (`vrpcoder_synth/templates/`), never "
        "from the gold script. "
        + (
            f"No formulation ships yet for: {', '.join(uncovered)}."
            if uncovered
            else "Every variant in this data has its own formulations; none falls back to the gold script."
        ),
        "",
        "## Mutants (constraint blocks removed on purpose)",
        "",
        "Each formulation is also sent without one block of a family the sample's probes attack. Such a "
        "script must never be accepted: DIFF catches it when the omitted rule binds at the optimum, "
        "otherwise injection does and it joins `reserved`. `mutant_undetected` counts those neither "
        "caught (for example a 2-index model of a mixed fleet, which cannot be asked about an overload "
        "that another vehicle of the fleet could carry); they are discarded, never trained on.",
        "",
    ]
    if mutants:
        cells_m = Counter((r.variant, (r.coder or "").removeprefix("offline:"), r.outcome.value, r.reason) for r in mutants)
        lines += _table(
            ("variant", "formulation-omitted block", "outcome", "reason", "items"),
            ((*k, n) for k, n in sorted(cells_m.items())),
        )
    else:
        lines.append("None in this run.")
    return "\n".join(lines) + "\n"


def stats(out: Path) -> dict[str, Any]:
    """Counts read back from a written dataset folder (``vrpcoder synth stats``).

    ``samples`` counts Stage 1's samples (a base sample and each attacked copy), as ``synth run``
    reports them; ``sample_files`` counts the stored files, where an index-path statement adds the
    copy of its sample that carries the node map."""
    if not (out / "decisions.jsonl").exists():
        raise FileNotFoundError(f"{out} holds no synthesis output (no decisions.jsonl)")
    decisions = [json.loads(line) for line in (out / "decisions.jsonl").read_text().splitlines() if line]
    configs = {}
    for name in CONFIGS:
        path = out / name / "train.jsonl"
        configs[name] = sum(1 for line in path.read_text().splitlines() if line) if path.exists() else 0
    by_outcome = Counter(d["outcome"] for d in decisions)
    by_variant: dict[str, Counter[str]] = defaultdict(Counter)
    for d in decisions:
        if d["mutant"] is None:
            by_variant[d["variant"]][d["outcome"]] += 1
    return {
        "configs": configs,
        "samples": len({d.get("sample") or d["sample_id"] for d in decisions}),
        "sample_files": sample_files(out),
        "decisions": len(decisions),
        "outcomes": dict(sorted(by_outcome.items())),
        "discard_reasons": dict(sorted(Counter(d["reason"] for d in decisions if d["outcome"] == "discarded").items())),
        "per_variant": {v: dict(sorted(c.items())) for v, c in sorted(by_variant.items())},
    }


def sample_files(out: Path) -> int:
    """Sample files the dataset stores (``samples/<sample_id>.json``)."""
    return len(list((out / "samples").glob("*.json"))) if (out / "samples").exists() else 0

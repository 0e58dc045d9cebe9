"""The SFT set of the no-injection ablation: accepted scripts plus DIFF-blind mutants at the paper's rate.

A synth dataset keeps apart what the dual verifier accepted (``sft``) and what passed DIFF but failed
injection (``reserved``: the mutants whose dropped rule does not bind on their instance). A pipeline
without injection cannot tell the two apart and trains on both. The paper's no-injection SFT set had
7,347 samples, 550 of them such DIFF-only passes (appendix, "No-injection ablation"), so a policy
trained from scratch here sees DIFF-blind mutants at that rate: both GRPO runs of the ablation start
from this one SFT policy, and only their rewards differ.

``mix_no_injection`` writes a dataset folder in the synth contract (configs ``sft`` and ``grpo``,
``samples/``): the accepted records, a stable draw of reserved ones, and the synth run's GRPO prompts
unchanged. Each SFT row says where it came from (``origin``: ``accepted`` or ``reserved``) and, for a
mutant, which rule it lacks.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vrpcoder_trainer.config import ConfigError
from vrpcoder_trainer.dataset import SAMPLES_DIR, dataset_card

PAPER_NO_INJECTION_SFT = 7347
PAPER_DIFF_ONLY_EXTRA = 550
NO_INJECTION_SHARE = PAPER_DIFF_ONLY_EXTRA / PAPER_NO_INJECTION_SFT
"""Share of DIFF-only passes in the paper's no-injection SFT set (550 / 7,347, about 7.5 %)."""

OMITTED_MARK = "-omit-"


@dataclass(frozen=True)
class MixReport:
    """What ``mix_no_injection`` wrote."""

    out: Path
    accepted: int
    reserved: int
    reserved_available: int
    grpo: int
    samples: int
    per_variant: dict[str, dict[str, int]]

    @property
    def share(self) -> float:
        total = self.accepted + self.reserved
        return self.reserved / total if total else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"accepted": self.accepted, "reserved": self.reserved, "reserved_available": self.reserved_available,
                "share": round(self.share, 4), "grpo": self.grpo, "samples": self.samples, "per_variant": self.per_variant}


def _rows(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def omitted_rule(record_id: str) -> str | None:
    """The block a mutant's record leaves out, read from its id (``...-omit-capacity-<key>``)."""
    if OMITTED_MARK not in record_id:
        return None
    return record_id.split(OMITTED_MARK, 1)[1].rsplit("-", 1)[0]


def _rank(record_id: str, seed: int) -> str:
    return hashlib.sha256(f"{seed}|{record_id}".encode()).hexdigest()


def reserved_count(accepted: int, share: float) -> int:
    """How many reserved records make them ``share`` of the mixed set (``r / (a + r) = share``)."""
    if not 0.0 <= share < 1.0:
        raise ValueError(f"share must lie in [0, 1), got {share}")
    return round(share * accepted / (1.0 - share))


def _write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(row, ensure_ascii=False) + "\n" for row in rows]
    path.write_text("".join(lines), encoding="utf-8")
    return len(lines)


def mix_no_injection(synth_dir: Path | str, out_dir: Path | str, *, share: float = NO_INJECTION_SHARE, seed: int = 0) -> MixReport:
    """Write the no-injection SFT set of ``synth_dir`` (plus its GRPO prompts) into ``out_dir``.

    Reserved records are drawn by a hash of (seed, record id), so the same inputs give the same set;
    when fewer exist than the share asks for, all of them are used (the report says how many).
    """
    source, out = Path(synth_dir), Path(out_dir)
    accepted = _rows(source / "sft" / "train.jsonl")
    if not accepted:
        raise ConfigError(f"{source}: no accepted SFT records to train on")
    reserved = _rows(source / "reserved" / "train.jsonl")
    grpo = _rows(source / "grpo" / "train.jsonl")
    wanted = min(len(reserved), reserved_count(len(accepted), share))
    picked = sorted(reserved, key=lambda row: _rank(row["id"], seed))[:wanted]
    rows = [{**row, "origin": "accepted", "omitted": None} for row in accepted]
    rows += [{**{k: v for k, v in row.items() if k != "verdict"}, "origin": "reserved", "omitted": omitted_rule(row["id"])}
             for row in picked]
    rows.sort(key=lambda row: row["id"])
    if out.exists():
        shutil.rmtree(out)
    _write_jsonl(out / "sft" / "train.jsonl", rows)
    _write_jsonl(out / "grpo" / "train.jsonl", grpo)
    needed = sorted({row["sample_id"] for row in (*rows, *grpo)})
    (out / SAMPLES_DIR).mkdir(parents=True, exist_ok=True)
    for sample_id in needed:
        shutil.copyfile(source / SAMPLES_DIR / f"{sample_id}.json", out / SAMPLES_DIR / f"{sample_id}.json")
    per_variant: dict[str, Counter[str]] = {}
    for row in rows:
        per_variant.setdefault(row["variant"], Counter())[row["origin"]] += 1
    report = MixReport(out, len(accepted), len(picked), len(reserved), len(grpo), len(needed),
                       {v: dict(sorted(c.items())) for v, c in sorted(per_variant.items())})
    table = "\n".join(f"| {v} | {c.get('accepted', 0)} | {c.get('reserved', 0)} |" for v, c in report.per_variant.items())
    summary = (
        "# No-injection SFT set\n\n"
        f"From `{source}`: {report.accepted} accepted records and {report.reserved} of {report.reserved_available} reserved "
        f"ones (DIFF passed, injection failed), {100 * report.share:.2f} % of the set, as in the paper's no-injection SFT "
        f"({PAPER_DIFF_ONLY_EXTRA} of {PAPER_NO_INJECTION_SFT}). GRPO prompts: {report.grpo}.\n\n"
        f"| variant | accepted | reserved |\n|---|---|---|\n{table}\n"
    )
    (out / "README.md").write_text(dataset_card(("sft", "grpo"), summary), encoding="utf-8")
    return report


"""A copy drill before SFT: a model trained from random weights first learns to copy lines it reads.

A pretrained LLM arrives able to copy text from its prompt; the loop's small model starts from random
weights and has to grow that ability (an "induction" circuit: find where the current tokens occurred
before and repeat what followed). Measured on two CPU cores with fresh TSP instances at every step,
so that nothing could be memorised (docs/codegen.md): full SFT on statement -> compact script
learned the skeleton in 200 steps and then sat for 1,000 steps at the loss of *guessing* every digit
of the data block, whereas the same model, shown only the node lines and asked to write them back
inside the script's ``NODES`` block, learned to copy them in about 450 steps. In the full task the
copied digits are a few percent of the tokens and the rest of the reply is predictable without
copying, so the signal that would grow the circuit is too thin; the drill makes it the whole loss.

A drill record is built from a compact SFT record (``vrpcoder_synth.compact``): the prompt is the
text of every triple-quoted data block of its script (the statement's node lines, the fleet
sentence), the completion is those blocks as the script writes them. The record is plain text, not
a chat, because that is the form measured to take hold (fresh TSP instances: loss 0.06 at step 350
and 0.023 at step 450 in two runs). Two runs in the chat template stayed near 0.77, but one
plain-text run through the loop on a finite TSP and CVRP set also stayed at 0.68, so the template is
not shown to be the cause; loop drills of TSP alone and of VRPHTW alone took off after about 300
steps (docs/codegen.md). SFT then starts from the drill's weights, with the
chat template.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from vrpcoder_client.reward import extract_code

from vrpcoder_trainer.code_tokenizer import IM_END
from vrpcoder_trainer.config import ConfigError
from vrpcoder_trainer.dataset import dataset_card

DATA_BLOCK = re.compile(r'^(?P<name>[A-Z][A-Z0-9_]*) = """\n(?P<body>.*?)\n"""$', re.S | re.M)
"""A module-level string constant holding copied text (``NODES = \"\"\"...\"\"\"``)."""


def data_blocks(code: str) -> list[tuple[str, str]]:
    """The (name, text) of every triple-quoted data block of ``code``, in order."""
    return [(m["name"], m["body"]) for m in DATA_BLOCK.finditer(code)]


def drill_pair(reply: str) -> tuple[str, str] | None:
    """The drill (prompt, completion) of an SFT reply (a fenced script), or None when it copies no text.

    The prompt ends with the end-of-turn token, so the model learns where the text to copy stops and
    its own writing begins (the trainer appends the same token to the completion)."""
    code = extract_code(reply)
    blocks = data_blocks(code) if code else []
    if not blocks:
        return None
    source = "\n".join(body for _, body in blocks)
    target = "\n".join(f'{name} = """\n{body}\n"""' for name, body in blocks)
    return f"{source}\n{IM_END}\n", target


def drill_rows(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """One drill row per SFT record whose reply copies text; each keeps the record's id and variant."""
    rows = []
    for record in records:
        messages = record.get("messages") or []
        reply = messages[-1]["content"] if messages and messages[-1].get("role") == "assistant" else ""
        pair = drill_pair(reply)
        if pair is not None:
            rows.append({"id": f"drill-{record['id']}", "variant": record.get("variant"), "prompt": pair[0], "completion": pair[1]})
    return rows


def write_copy_drill(sft_dir: Path | str, out_dir: Path | str) -> int:
    """Write the drill dataset (config ``sft``) of the SFT set in ``sft_dir``; the number of rows."""
    source = Path(sft_dir) / "sft" / "train.jsonl"
    if not source.is_file():
        raise ConfigError(f"{sft_dir}: no SFT records ({source} is missing)")
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = drill_rows(records)
    if not rows:
        raise ConfigError(f"{sft_dir}: no SFT reply copies text into a data block; nothing to drill")
    out = Path(out_dir)
    (out / "sft").mkdir(parents=True, exist_ok=True)
    (out / "sft" / "train.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    summary = (f"# Copy drill\n\nFrom `{source}`: {len(rows)} of {len(records)} SFT records, each reduced to the text its "
               "script copies (prompt) and the data blocks that hold it (completion), as plain text. "
               "See `vrpcoder_trainer.copy_drill`.\n")
    (out / "README.md").write_text(dataset_card(("sft",), summary), encoding="utf-8")
    return len(rows)

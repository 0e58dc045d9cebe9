"""The copy drill: each compact SFT record becomes "write back the lines you read" in the script's own blocks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from vrpcoder.sampling import sample_instance
from vrpcoder_synth.compact import fleet_line, node_lines, render_compact
from vrpcoder_synth.regenerate import as_completion
from vrpcoder_synth.statements import write_statement
from vrpcoder_trainer.config import ConfigError, DatasetSettings
from vrpcoder_trainer.code_tokenizer import IM_END
from vrpcoder_trainer.copy_drill import data_blocks, drill_pair, write_copy_drill
from vrpcoder_trainer.sft import to_prompt_completion
from vrpcoder_trainer.dataset import load_records


@pytest.fixture(scope="module")
def cvrp() -> tuple[str, str]:
    """A CVRP statement and its compact reply (node lines and the fleet sentence are copied)."""
    instance = sample_instance("CVRP", 1, 3, customers=4)
    statement = write_statement(instance, "condensed")
    return statement.text, as_completion(render_compact(statement, instance))


def test_the_drill_reads_the_lines_the_script_copies_and_writes_its_blocks(cvrp: tuple[str, str]) -> None:
    text, reply = cvrp
    instance = sample_instance("CVRP", 1, 3, customers=4)
    statement = write_statement(instance, "condensed")
    prompt, completion = drill_pair(reply)  # type: ignore[misc]
    lines = [*node_lines(statement, instance.num_nodes, instance.num_depots), fleet_line(statement)]
    assert prompt == "\n".join(lines) + f"\n{IM_END}\n", "the source is the statement's own lines, in the script's order"
    assert all(line in text for line in lines)
    assert completion in reply, "the target is the script's data blocks, verbatim"
    assert [name for name, _ in data_blocks(completion)] == ["NODES", "FLEET"]


@pytest.mark.parametrize("reply", [
    "no code at all",
    "```python\nimport gurobipy as gp\nX = 3\n```",
    '```python\nnodes = """\nlower-case names are not data blocks\n"""\n```',
])
def test_a_reply_that_copies_nothing_gives_no_drill(reply: str) -> None:
    assert drill_pair(reply) is None


def _dataset(folder: Path, replies: list[str]) -> Path:
    rows = [{"id": f"r{i}", "variant": "CVRP", "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "q"},
                                                            {"role": "assistant", "content": reply}]} for i, reply in enumerate(replies)]
    (folder / "sft").mkdir(parents=True)
    (folder / "sft" / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def test_the_drill_dataset_loads_like_any_sft_set(tmp_path: Path, cvrp: tuple[str, str]) -> None:
    source = _dataset(tmp_path / "sft-set", [cvrp[1], "no code", cvrp[1]])
    assert write_copy_drill(source, tmp_path / "drill") == 2
    records = load_records(DatasetSettings(path=str(tmp_path / "drill"), config="sft"))
    assert [r["id"] for r in records] == ["drill-r0", "drill-r2"]
    assert (records[0]["prompt"], records[0]["completion"]) == drill_pair(cvrp[1])
    mapped = records.map(to_prompt_completion, remove_columns=records.column_names)
    assert mapped[0] == {"prompt": records[0]["prompt"], "completion": records[0]["completion"]}, "plain text: no chat template"


def test_nothing_to_drill_is_an_error_not_an_empty_set(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="missing"):
        write_copy_drill(tmp_path / "absent", tmp_path / "drill")
    with pytest.raises(ConfigError, match="nothing to drill"):
        write_copy_drill(_dataset(tmp_path / "plain", ["```python\nx = 1\n```"]), tmp_path / "drill")

"""The pipeline with a teacher LLM behind a local OpenAI-compatible server (a stand-in for a hosted
model): draft, critic, repair, condensation, index rewriting and code through the shared prompt,
then the same fidelity checks and Stage 4 as the offline teacher; a re-run asks the teacher nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path

from vrpcoder.samples import Sample
from vrpcoder_client.prompts import code_system_prompt

from tests.synth.openai_server import FakeOpenAI
from tests.synth.support import grid_samples
from vrpcoder_synth.components import build_components
from vrpcoder_synth.config import GridConfig, SynthConfig, TeacherConfig
from vrpcoder_synth.pipeline import run
from vrpcoder_synth.records import Outcome
from vrpcoder_synth.regenerate import OfflineCoder
from vrpcoder_synth.statements import Statement, StatementPath, fmt, write_statement
from vrpcoder_synth.teacher import prompt_text

VARIANTS = ("CVRP", "VRPHTW")


class PlayedTeacher:
    """Answers like a teacher would, using the offline writer as its knowledge; the first draft of
    CVRP misstates the capacity, so the critic/repair loop and the static checks have work to do."""

    def __init__(self, samples: list[Sample], broken_repair: bool = False, sloppy_condensing: bool = False) -> None:
        self.by_name = {s.instance.name: s for s in samples}
        self.by_text: dict[str, tuple[Sample, Statement]] = {}
        self.broken_repair = broken_repair
        self.sloppy_condensing = sloppy_condensing
        self.fixes: dict[str, str] = {}
        """A wrong answer given -> the right one, for the repair call that follows."""
        self.calls: dict[str, int] = {}

    def _note(self, kind: str) -> None:
        self.calls[kind] = self.calls.get(kind, 0) + 1

    def _remember(self, sample: Sample, path: StatementPath) -> Statement:
        statement = write_statement(sample, path)
        self.by_text[statement.text.strip()] = (sample, statement)
        return statement

    def __call__(self, messages: list[dict[str, str]]) -> str:
        system, user = messages[0]["content"], messages[-1]["content"]
        if system == prompt_text("scenario_system"):
            self._note("draft")
            sample = self.by_name[re.search(r"NAME = '([^']+)'", user).group(1)]
            text = self._remember(sample, StatementPath.SCENARIO).text
            if sample.variant == "CVRP":
                capacity = fmt(sample.instance.vehicles[0].capacity)
                text = text.replace(capacity, fmt(sample.instance.vehicles[0].capacity + 3))
            return text
        if system == prompt_text("critic_system"):
            self._note("critic")
            return "COMPLETE"
        if system == prompt_text("repair_system"):
            self._note("repair")
            current = user.split("Current statement:\n", 1)[1].rsplit("\n\nThe corrected statement:", 1)[0].strip()
            if current in self.fixes:
                return self.fixes[current]
            sample = self.by_name[re.search(r"NAME = '([^']+)'", user).group(1)]
            if self.broken_repair:
                return user.split("Current statement:\n", 1)[1].rsplit("\n\nThe corrected statement:", 1)[0]
            return self._remember(sample, StatementPath.SCENARIO).text
        if system.startswith(prompt_text("condense_system").split("\n", 1)[0]):
            self._note("condense")
            source = user.split("Statement:\n", 1)[1].rsplit("\n\nAnswer with", 1)[0].strip()
            sample, _ = self.by_text[source]
            strict = "must remove every mention of virtual" in system
            text = self._remember(sample, StatementPath.STRICT if strict else StatementPath.CONDENSED).text
            if self.sloppy_condensing:
                window = next(c.window for c in sample.instance.customers if c.window is not None)
                sloppy = text.replace(f" to {fmt(window.end)}", "", 1)
                self.fixes[sloppy.strip()] = text
                return sloppy
            return text
        if system == prompt_text("index_system"):
            self._note("index")
            source = user.split("Source statement:\n", 1)[1].rsplit("\n\nRename every", 1)[0].strip()
            sample, _ = self.by_text[source]
            style = re.search(r"Target style: (.*)", user).group(1)
            path = {"1": StatementPath.INDEX_ONE_BASED, "2": StatementPath.INDEX_FROM_TWO}.get(
                re.search(r"starting at (\d)", style).group(1) if "starting at" in style else "", StatementPath.INDEX_LETTERS
            )
            statement = self._remember(sample, path)
            entries = [{"source_id": k, "target_id": v, "role": "node"} for k, v in statement.node_id_map.items()]
            return json.dumps({"rewritten_nl": statement.text, "node_id_map": entries})
        if system == code_system_prompt():
            self._note("code")
            sample, statement = self.by_text[user.strip()]
            stored = sample.model_copy(update={"node_id_map": statement.node_id_map})
            return "Here is the model.\n" + OfflineCoder().regenerate(stored, statement, user).completion
        raise AssertionError(f"unexpected prompt: {system[:80]}")


def _config(url: str) -> SynthConfig:
    return SynthConfig(
        grid=GridConfig(variants=VARIANTS, profiles=(1,), seeds=(0,), customers=5, kinds="base"),
        teacher=TeacherConfig(kind="openai", base_url=url, model="played", critic_rounds=2, concurrency=2, retries=1),
        mutants=False,
    )


def _run(config: SynthConfig, out: Path):
    parts = build_components(config, out)
    try:
        return run(config, out, writer=parts.writer, coder=parts.coder, backend=parts.backend, fingerprint=parts.fingerprint)
    finally:
        parts.close()


def test_teacher_pipeline_repairs_accepts_and_resumes_without_calls(tmp_path: Path) -> None:
    samples = [grid_samples(v)[0] for v in VARIANTS]
    teacher = PlayedTeacher(samples)
    with FakeOpenAI(teacher) as server:
        report = _run(_config(server.url), tmp_path)
        assert {r.outcome for r in report.records} == {Outcome.ACCEPTED}, [(r.id, r.reason) for r in report.records]
        assert len(report.records) == len(VARIANTS) * 4
        assert teacher.calls["repair"] >= 1, "the wrong capacity in the CVRP draft was repaired"
        assert teacher.calls["draft"] == len(VARIANTS), "the scenario draft is asked once per sample (cached for the other paths)"
        assert all(r.coder == "teacher:played" for r in report.records)
        asked = len(server.requests)
        again = _run(_config(server.url), tmp_path)
        assert again.computed == 0 and len(server.requests) == asked
        for record in report.records:
            if record.path.startswith("index:"):
                assert record.node_id_map is not None


def test_a_statement_that_stays_wrong_is_discarded_with_its_reason(tmp_path: Path) -> None:
    samples = [grid_samples(v)[0] for v in VARIANTS]
    with FakeOpenAI(PlayedTeacher(samples, broken_repair=True)) as server:
        report = _run(_config(server.url), tmp_path)
    cvrp = [r for r in report.records if r.variant == "CVRP"]
    assert cvrp and all(r.outcome is Outcome.DISCARDED for r in cvrp)
    assert {r.reason for r in cvrp} <= {"fidelity:missing_number", "fidelity:extra_number"}
    assert all(r.outcome is Outcome.ACCEPTED for r in report.records if r.variant == "VRPHTW")
    card = (tmp_path / "README.md").read_text()
    assert "fidelity:missing_number" in card or "fidelity:extra_number" in card


def test_the_token_budget_ends_the_run_cleanly_and_a_larger_one_finishes_it(tmp_path: Path) -> None:
    samples = [grid_samples(v)[0] for v in VARIANTS]
    with FakeOpenAI(PlayedTeacher(samples)) as server:
        tight = _config(server.url)
        tight = tight.model_copy(update={"teacher": tight.teacher.model_copy(update={"token_budget": 100, "concurrency": 1})})
        cut = _run(tight, tmp_path)
        assert cut.stopped is not None and "budget" in cut.stopped
        assert len(cut.records) < len(VARIANTS) * 4
        asked = len(server.requests)
        assert asked * 15 <= 100 + 15, "no request is sent once the budget is spent"
        finished = _run(_config(server.url), tmp_path)
        assert finished.stopped is None and len(finished.records) == len(VARIANTS) * 4
        assert {r.outcome for r in finished.records} == {Outcome.ACCEPTED}


def test_a_condensation_that_loses_a_number_is_repaired_locally(tmp_path: Path) -> None:
    samples = [grid_samples("VRPHTW")[0]]
    teacher = PlayedTeacher(samples, sloppy_condensing=True)
    config = _config("")
    with FakeOpenAI(teacher) as server:
        config = config.model_copy(
            update={
                "grid": config.grid.model_copy(update={"variants": ("VRPHTW",)}),
                "teacher": config.teacher.model_copy(update={"base_url": server.url}),
            }
        )
        report = _run(config, tmp_path)
    assert teacher.calls["condense"] == 2 and teacher.calls["repair"] == 2
    assert {r.path: r.outcome for r in report.records}["condensed"] is Outcome.ACCEPTED
    assert all(r.outcome is Outcome.ACCEPTED for r in report.records)

"""A run: ask the model every item, extract the script, verify it through the verifier service.

Generation and verification overlap: each completion goes into a queue as soon as it arrives, and
a verifying loop sends whatever is waiting (up to ``batch_size``) as one batch request, with a few
batches in flight. Results are appended to ``RUN_DIR/results.jsonl`` as they come, completions are
cached on disk by the hash of (model, messages, decoding), and a re-run of the same RUN_DIR skips
every item already scored: an interrupted evaluation resumes where it stopped, and a crashed
verifier costs no model calls.

A DIFF-only item (no sample: benchmark 4) is verified against a placeholder sample that holds its
reference objective and no probe, so the service runs build and DIFF only; the runner ignores
what the verifier says about the placeholder's routing variable.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field
from vrpcoder.instances import Customer, Depot, Instance, Vehicle
from vrpcoder.samples import Sample
from vrpcoder_client.client import AsyncVerifierClient, VerifierError, VerifierHTTPError
from vrpcoder_client.reward import extract_code
from vrpcoder_client.schemas import VerifyOptions, VerifyResult

from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkItem, BenchmarkName, dump_json
from vrpcoder_eval.generation import Completion, DecodingConfig, GenerationError, Generator, Message
from vrpcoder_eval.prompts import SystemPrompt, drifted
from vrpcoder_eval.results import (
    RESULTS_FILE,
    ItemResult,
    ItemStatus,
    append_results,
    from_verdict,
    no_code,
    read_results,
    unscored,
)

CONFIG_FILE = "run.json"
RESUMABLE_CHANGES = {"model", "limit", "benchmarks", "label", "only"}
"""What may differ when a run folder is resumed: the endpoint's address (the same model served
elsewhere, the same answers file moved), how many items and which benchmarks, the report label.
Anything else is another run."""
DIFF_ONLY_KIND = "diff_only"
REFUSED = frozenset({400, 401, 403, 413, 422})
"""Statuses that say the run itself is wrong (a time limit above the service's cap, a bad token, a
batch too large): every item would fail the same way, so the run stops with the service's message."""


class RunConfig(BaseModel):
    """What a run asked, recorded in ``RUN_DIR/run.json`` (a resumed run must ask the same)."""

    model_config = ConfigDict(frozen=True)

    model: str
    """The endpoint URL or checkpoint path."""
    model_name: str
    benchmark_dir: str
    benchmarks: tuple[BenchmarkName, ...]
    system_prompt_origin: str
    system_prompt_sha256: str
    decoding: DecodingConfig = DecodingConfig()
    time_limit: float | None = Field(default=None, gt=0.0)
    """Solver time limit per solve, seconds (paper: 600); None = the service's default."""
    diff_tolerance: float = Field(default=1e-3, ge=0.0)
    limit: int | None = None
    """At most this many items per benchmark (smoke runs)."""
    label: str | None = None
    """A name for reports (e.g. the model's), defaults to ``model_name``."""
    only: tuple[str, ...] | None = None
    """Only these item ids (``eval score --missing skip``: the answered ones); None: every item."""

    @property
    def display_name(self) -> str:
        return self.label or self.model_name


def diff_only_sample(item: BenchmarkItem) -> Sample:
    """The placeholder sample of an item without an instance: its reference, no probes.

    The verifier's wire format needs an instance; a one-customer TSP stands in, and since there is no
    probe, INJ asks nothing of it."""
    instance = Instance(
        name=f"{item.id}-placeholder",
        variant="TSP",
        depots=(Depot(x=0.0, y=0.0),),
        customers=(Customer(x=1.0, y=0.0),),
        vehicles=(Vehicle(),),
    )
    return Sample(
        id=item.id, variant="TSP", kind=DIFF_ONLY_KIND, instance=instance, gold_code="",
        reference_objective=item.reference_objective, probes=(),
    )


def messages_for(item: BenchmarkItem, prompt: SystemPrompt) -> list[Message]:
    return [{"role": "system", "content": prompt.text}, {"role": "user", "content": item.statement}]


@dataclass
class RunProgress:
    """Counts for progress bars and the end-of-run summary."""

    total: int = 0
    generated: int = 0
    verified: int = 0
    skipped: int = 0
    unscored: int = 0
    on_update: Callable[[RunProgress], None] | None = None

    def bump(self, **counts: int) -> None:
        for name, value in counts.items():
            setattr(self, name, getattr(self, name) + value)
        if self.on_update is not None:
            self.on_update(self)


@dataclass
class _Pending:
    item: BenchmarkItem
    code: str
    completion: Completion


@dataclass(frozen=True, slots=True)
class Answer:
    """What a candidate answered for one item: the completion, and the script in it (None: no code)."""

    completion: Completion
    code: str | None


class AnswerSource(Protocol):
    """Where a run's answers come from: a model asked now (``eval run``), or answers a researcher
    already has (``eval score``: a file of completions, a folder of scripts). Raises
    ``GenerationError`` when an item cannot be answered now (it is left unscored and retried)."""

    async def answer(self, item: BenchmarkItem) -> Answer: ...

    def changed(self, item: BenchmarkItem, recorded_code: str | None) -> bool:
        """Whether a scored item's answer differs now from the code its result recorded (then a resumed
        run scores it again)."""
        ...


@dataclass(frozen=True)
class ModelAnswers:
    """Ask the model with the run's system prompt and decoding; the code is the completion's code block."""

    generator: Generator
    prompt: SystemPrompt
    decoding: DecodingConfig

    async def answer(self, item: BenchmarkItem) -> Answer:
        completion = await self.generator.complete(messages_for(item, self.prompt), self.decoding)
        return Answer(completion, extract_code(completion.text))

    def changed(self, item: BenchmarkItem, recorded_code: str | None) -> bool:
        """Never: greedy completions are cached, so a resumed run would get the same answer."""
        return False


@dataclass
class Runner:
    """Runs one configuration into one run folder."""

    config: RunConfig
    run_dir: Path
    generator: Generator | None
    verifier: AsyncVerifierClient
    prompt: SystemPrompt
    concurrency: int = 8
    batch_size: int = 16
    verify_in_flight: int = 4
    progress: RunProgress = field(default_factory=RunProgress)
    warnings: list[str] = field(default_factory=list)
    source: AnswerSource | None = None
    """Where answers come from; None: ask ``generator`` (the model) with ``prompt``."""

    @property
    def answers(self) -> AnswerSource:
        if self.source is not None:
            return self.source
        if self.generator is None:
            raise ValueError("a run needs a model (generator) or recorded answers (source)")
        return ModelAnswers(self.generator, self.prompt, self.config.decoding)

    @property
    def results_path(self) -> Path:
        return self.run_dir / RESULTS_FILE

    def _check_config(self) -> None:
        path = self.run_dir / CONFIG_FILE
        if path.is_file():
            previous = RunConfig.model_validate_json(path.read_text(encoding="utf-8"))
            if previous.model_dump(exclude=RESUMABLE_CHANGES) != self.config.model_dump(exclude=RESUMABLE_CHANGES):
                raise ValueError(
                    f"{path} records a different run (model name, prompt, decoding or verification settings); "
                    "use a fresh RUN_DIR"
                )
        self.run_dir.mkdir(parents=True, exist_ok=True)
        dump_json(path, self.config.model_dump(mode="json"))

    def items(self) -> list[BenchmarkItem]:
        store = BenchmarkDir(Path(self.config.benchmark_dir))
        chosen: list[BenchmarkItem] = []
        for name in self.config.benchmarks:
            items = store.items(name)
            chosen += items if self.config.limit is None else items[: self.config.limit]
        if self.config.only is not None:
            keep = set(self.config.only)
            chosen = [i for i in chosen if i.id in keep]
        return chosen

    def todo(self, items: Sequence[BenchmarkItem]) -> list[BenchmarkItem]:
        done, _ = read_results(self.results_path)
        answers = self.answers
        return [i for i in items if i.id not in done or done[i.id].status is not ItemStatus.SCORED
                or answers.changed(i, done[i.id].code)]

    def _sample(self, item: BenchmarkItem) -> Sample:
        if item.sample_id is None:
            return diff_only_sample(item)
        return BenchmarkDir(Path(self.config.benchmark_dir)).load_sample(item.sample_id)

    async def run(self) -> list[ItemResult]:
        """Everything not yet scored in this run folder; returns the results written now."""
        self._check_config()
        items = self.items()
        pending = self.todo(items)
        self.progress.total = len(items)
        self.progress.bump(skipped=len(items) - len(pending))
        drift = [i.id for i in pending if drifted(i.prompt, self.prompt)]
        if drift:
            self.warnings.append(
                f"{len(drift)} item(s) were built against another version of the shared prompt (e.g. {drift[0]})"
            )
        written: list[ItemResult] = []
        queue: asyncio.Queue[_Pending | None] = asyncio.Queue()
        consumer = asyncio.create_task(self._verify_loop(queue, written))
        semaphore = asyncio.Semaphore(max(1, self.concurrency))

        answers = self.answers

        async def ask(item: BenchmarkItem) -> None:
            async with semaphore:
                try:
                    answer = await answers.answer(item)
                except GenerationError as exc:
                    self._write([unscored(item, "generation_failed", str(exc))], written)
                    self.progress.bump(generated=1, unscored=1)
                    return
            self.progress.bump(generated=1)
            completion, code = answer.completion, answer.code
            if code is None:
                self._write([no_code(item, completion.finish_reason, completion.completion_tokens)], written)
                self.progress.bump(verified=1)
                return
            await queue.put(_Pending(item, code, completion))

        try:
            await asyncio.gather(*(ask(item) for item in pending))
        finally:
            await queue.put(None)
            await consumer
        return written

    def _write(self, results: Sequence[ItemResult], written: list[ItemResult]) -> None:
        append_results(self.results_path, results)
        written.extend(results)

    async def _verify_loop(self, queue: asyncio.Queue[_Pending | None], written: list[ItemResult]) -> None:
        in_flight = asyncio.Semaphore(max(1, self.verify_in_flight))
        tasks: set[asyncio.Task[None]] = set()
        finished = False
        while not finished:
            first = await queue.get()
            if first is None:
                break
            batch = [first]
            while len(batch) < self.batch_size and not queue.empty():
                nxt = queue.get_nowait()
                if nxt is None:
                    finished = True
                    break
                batch.append(nxt)
            await in_flight.acquire()
            task = asyncio.create_task(self._verify_batch(batch, written, in_flight))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
        if tasks:
            await asyncio.gather(*tasks)

    async def _verify_batch(self, batch: list[_Pending], written: list[ItemResult], in_flight: asyncio.Semaphore) -> None:
        try:
            options = VerifyOptions(time_limit=self.config.time_limit, diff_tolerance=self.config.diff_tolerance)
            try:
                results = await self.verifier.verify_batch(
                    [p.code for p in batch], [self._sample(p.item) for p in batch], options=options
                )
            except VerifierHTTPError as exc:
                if exc.status in REFUSED:
                    raise ValueError(f"the verifier refused the run's requests: {exc}") from exc
                out = [unscored(p.item, "verifier_unavailable", str(exc), p.code) for p in batch]
            except VerifierError as exc:
                out = [unscored(p.item, "verifier_unavailable", str(exc), p.code) for p in batch]
            else:
                out = [self._classify(p, r) for p, r in zip(batch, results, strict=True)]
            self._write(out, written)
            self.progress.bump(verified=len(out), unscored=sum(r.status is ItemStatus.UNSCORED for r in out))
        finally:
            in_flight.release()

    @staticmethod
    def _classify(pending: _Pending, result: VerifyResult) -> ItemResult:
        verdict = result.verdict
        if verdict is None:
            failure = result.failure or f"job ended {result.state.value} without a verdict"
            return unscored(pending.item, "verification_failed", failure, pending.code)
        return from_verdict(
            pending.item, verdict, pending.code,
            finish_reason=pending.completion.finish_reason, tokens=pending.completion.completion_tokens,
        )


def load_run(run_dir: Path) -> tuple[RunConfig, list[ItemResult]]:
    """A run folder's configuration and its latest result per item."""
    config_path = run_dir / CONFIG_FILE
    if not config_path.is_file():
        raise FileNotFoundError(f"{run_dir}: not a run folder (no {CONFIG_FILE})")
    config = RunConfig.model_validate_json(config_path.read_text(encoding="utf-8"))
    results, problems = read_results(run_dir / RESULTS_FILE)
    if problems:
        raise ValueError(f"{run_dir / RESULTS_FILE}: {len(problems)} unreadable line(s), first: {problems[0]}")
    return config, list(results.values())

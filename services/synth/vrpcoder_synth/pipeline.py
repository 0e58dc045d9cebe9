"""The synthesis run: Stage 1 samples -> Stage 2 statements -> Stage 3 code -> Stage 4 verdicts.

Every unit of work is content-addressed: a grid point's samples are stored under a digest of
(variant, profile, seed, customers, gold time limit), and a work item's record under a digest of
everything that decides its result (the exact sample JSON, the path, the mutant, the teacher and
coder, the code prompt's version, the verifier's options). A record is written atomically the
moment its verdict is known, so a run that is killed and started again redoes nothing already
done and never calls the teacher again for a finished item (the teacher's own response cache
covers items cut off half-way). The dataset files are rebuilt from the records alone, sorted, with
no timings or dates in them, so an interrupted-and-resumed run writes the same bytes as an
uninterrupted one.

Stage 4's rule (SPEC section 2): no build -> discard; DIFF and INJ pass -> accept; DIFF passes and
INJ fails -> reserved (the no-injection ablation's extra data); DIFF fails -> discard. A mutant of
the offline coder (a formulation with one constraint block removed) is never accepted: should the
verifier miss its omission it is discarded as ``mutant_undetected``.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from vrpcoder.samples import Sample, build_samples
from vrpcoder.sampling import sample_instance
from vrpcoder.families import Family
from vrpcoder.variants import ATTACKERS, get_variant
from vrpcoder_client.prompts import code_prompt_version

from vrpcoder_synth import __version__
from vrpcoder_synth.config import SynthConfig
from vrpcoder_synth.dataset import write_dataset
from vrpcoder_synth.records import ItemRecord, Outcome, decide, verdict_summary
from vrpcoder_synth.regenerate import Coder, MutatingCoder, Regenerated
from vrpcoder_synth.statements import StatementPath, index_path_for
from vrpcoder_synth.teacher import BudgetExceeded
from vrpcoder_synth.verifiers import Answer, Backend
from vrpcoder_synth.writers import StatementWriter, Written

WORK_DIR = ".work"


def digest(*parts: object) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


# ---- stage 1 ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredSample:
    """A sample and its exact JSON text (the text is what the verifier's content id is taken of)."""

    sample: Sample
    text: str

    @classmethod
    def of(cls, sample: Sample) -> StoredSample:
        return cls(sample, sample.model_dump_json())

    @property
    def sample_id(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def grid_samples(out: Path, variant: str, profile: int, seed: int, config: SynthConfig) -> list[StoredSample]:
    """Stage 1 for one grid point, cached under its content key."""
    spec = get_variant(variant)
    if not spec.train:
        raise ValueError(f"{spec.name} is held out: it never enters synthesis")
    grid = config.grid
    key = digest("stage1", spec.name, profile, seed, grid.customers, config.gold_time_limit)
    cache = out / WORK_DIR / "stage1" / f"{key}.json"
    if cache.exists():
        texts = json.loads(cache.read_text())
    else:
        instance = sample_instance(spec.name, profile, seed, customers=grid.customers)
        report = build_samples(instance, seed=seed, time_limit=config.gold_time_limit)
        texts = [s.model_dump_json() for s in report.samples]
        _write_atomic(cache, json.dumps(texts))
    stored = [StoredSample(Sample.model_validate_json(t), t) for t in texts]
    return stored if grid.kinds == "all" else [s for s in stored if s.sample.kind == "base"]


# ---- work items ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class WorkItem:
    key: str
    base: StoredSample
    path: StatementPath
    mutant: str | None = None
    formulation: str | None = None
    """For a mutant: the formulation it is cut from."""


def probed_families(sample: Sample) -> set[Family]:
    """Families some violating probe of ``sample`` is built to reveal: a mutant lacking one of them
    is sent to this sample (a capacity omission to the capacity-attacked copy, not to the base)."""
    return {f for p in sample.probes if p.attacker is not None for f in ATTACKERS[p.attacker].reveals}


def plan_items(samples: Sequence[StoredSample], config: SynthConfig, fingerprint: str, coder: Coder | None = None) -> list[WorkItem]:
    """Every (sample, path) item and, with a coder that writes mutants (the offline ones), the mutants
    of each sample: every formulation of its variant without one block of a family the sample's
    probes attack, on the mutant paths."""
    items: list[WorkItem] = []
    for stored in samples:
        s = stored.sample
        paths = [index_path_for(s.variant, s.seed, s.profile) if name == "index" else StatementPath(name) for name in config.paths]
        for path in paths:
            items.append(WorkItem(digest("item", stored.sample_id, path, None, fingerprint), stored, path))
        if not (config.mutants and isinstance(coder, MutatingCoder)):
            continue
        probed = probed_families(s)
        for omission in coder.omissions(s):
            if omission.family not in probed:
                continue
            name = f"{omission.formulation}-{omission.block}"
            for path in mutant_paths(config, paths):
                key = digest("item", stored.sample_id, path, name, fingerprint)
                items.append(WorkItem(key, stored, path, omission.block, omission.formulation))
    return items


def mutant_paths(config: SynthConfig, paths: Sequence[StatementPath]) -> list[StatementPath]:
    """The statement paths a mutant is written for: the scenario alone (the default: a mutant only has
    to reach Stage 4), or every path of the sample when the reserved set is training data too."""
    return list(paths) if config.mutant_paths == "all" else [StatementPath.SCENARIO]


@dataclass
class StageClock:
    """Seconds spent per stage in this process (reported, never written into the dataset)."""

    seconds: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            with self._lock:
                self.seconds[name] += time.perf_counter() - started


@dataclass
class RunReport:
    out: Path
    records: list[ItemRecord]
    computed: int
    """Items worked out by this run (the rest came from earlier runs' records)."""
    clock: StageClock
    samples: int
    """Stage 1's samples (a base sample and each attacked copy), as ``synth stats`` counts them."""
    stopped: str | None = None
    """Why the run ended before every item was done (the teacher's token budget), if it did."""
    pending: int = 0
    """Items left undecided because the verifier gave no answer (a later run asks again)."""

    def counts(self) -> Counter[str]:
        return Counter(r.outcome.value for r in self.records)


def _record_id(item: WorkItem) -> str:
    s = item.base.sample
    name = f"{s.id}-{item.path.value.replace(':', '-')}"
    if item.mutant:
        name += f"-{item.formulation}-omit-{item.mutant}"
    return f"{name}-{item.key[:8]}"


@dataclass(frozen=True, slots=True)
class Prepared:
    """An item after Stages 2 and 3: what Stage 4 needs, or the record when it is decided already."""

    item: WorkItem
    stored: StoredSample
    """The sample the statement's ids belong to (with its ``node_id_map`` on an index path)."""
    written: Written
    regen: Regenerated | None = None
    decided: ItemRecord | None = None

    @property
    def script(self) -> str | None:
        return None if self.decided is not None or self.regen is None else self.regen.code

    def record(self, outcome: Outcome, reason: str, verdict: Answer | None = None) -> ItemRecord:
        s, item, statement = self.item.base.sample, self.item, self.written.statement
        return ItemRecord(
            key=item.key, id=_record_id(item), sample=s.id, variant=s.variant, kind=s.kind, profile=s.profile, seed=s.seed,
            path=item.path.value, mutant=item.mutant, sample_id=self.stored.sample_id,
            statement=None if statement is None else statement.text,
            node_id_map=None if statement is None else statement.node_id_map,
            coder=None if self.regen is None else self.regen.coder,
            code=None if self.regen is None else self.regen.code,
            outcome=outcome, reason=reason,
            verdict=None if verdict is None or isinstance(verdict, str) else verdict_summary(verdict),
        )


def _prepare(item: WorkItem, writer: StatementWriter, coder: Coder, clock: StageClock, tick: Callable[[str], None]) -> Prepared:
    """Stages 2 and 3 of one item."""
    s = item.base.sample
    with clock.stage("statement"):
        written = writer.write(s, item.path)
    tick("statements")
    stored = item.base
    if written.statement is not None and written.statement.node_id_map is not None:
        stored = StoredSample.of(s.model_copy(update={"node_id_map": written.statement.node_id_map}))
    if written.statement is None:
        tick("code")  # nothing to regenerate: the item is decided here
        unfaithful = Prepared(item, stored, written)
        return replace(unfaithful, decided=unfaithful.record(Outcome.DISCARDED, f"fidelity:{written.reason}"))
    if item.mutant and not isinstance(coder, MutatingCoder):
        raise ValueError(f"{item.key}: a mutant item, but the coder writes no mutants")
    active = coder.mutant(item.formulation or "", item.mutant) if item.mutant else coder
    with clock.stage("code"):
        regen = active.regenerate(stored.sample, written.statement, item.key)
    tick("code")
    prepared = Prepared(item, stored, written, regen)
    if regen.code is None:
        return replace(prepared, decided=prepared.record(Outcome.DISCARDED, "no_code"))
    return prepared


def run(
    config: SynthConfig,
    out: Path,
    *,
    writer: StatementWriter,
    coder: Coder,
    backend: Backend,
    fingerprint: str,
    progress: Callable[[str, int], None] | None = None,
    stop_after: int | None = None,
) -> RunReport:
    """Run (or resume) the pipeline into ``out`` and write the dataset.

    ``progress(stage, advance)`` is called as work completes (the CLI drives its bars with it):
    ``samples`` per grid point, ``todo`` once with the number of items left, then ``statements``,
    ``code`` and ``verdicts`` per item;
    ``stop_after`` ends the run after that many newly computed items without writing the dataset
    (what a killed run looks like; tests use it).
    """
    clock = StageClock()

    def tick(stage: str, advance: int = 1) -> None:
        if progress:
            progress(stage, advance)

    fingerprint = digest(fingerprint, code_prompt_version(), __version__, config.verifier.time_limit)
    samples: list[StoredSample] = []
    with clock.stage("samples"):
        for variant in config.grid.variant_names():
            for profile in config.grid.profiles:
                for seed in config.grid.seeds:
                    samples.extend(grid_samples(out, variant, profile, seed, config))
                    tick("samples")
    items = plan_items(samples, config, fingerprint, coder)
    records_dir = out / WORK_DIR / "items"
    records: dict[str, ItemRecord] = {}
    todo: list[WorkItem] = []
    for item in items:
        path = records_dir / f"{item.key}.json"
        if path.exists():
            records[item.key] = ItemRecord.model_validate_json(path.read_text())
        else:
            todo.append(item)
    tick("todo", len(todo))
    computed = 0
    stopped: str | None = None
    batch = config.verifier.batch_size
    parallel = config.teacher.concurrency if config.teacher.kind == "openai" else 1
    pending = 0
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        if stop_after is not None and computed >= stop_after:
            return RunReport(out, sorted(records.values(), key=lambda r: r.id), computed, clock, len(samples))
        try:
            # A teacher answers several items at once (its client bounds the requests in flight).
            with ThreadPoolExecutor(max_workers=parallel) as pool:
                prepared = list(pool.map(lambda i: _prepare(i, writer, coder, clock, tick), chunk))
        except BudgetExceeded as exc:
            stopped = str(exc)
            break
        jobs = [(p.script, p.stored.sample) for p in prepared if p.script is not None]
        with clock.stage("verify"):
            answers = iter(backend.verify_many(jobs))
        for p in prepared:
            record = p.decided
            if record is None:
                answer = next(answers)
                if isinstance(answer, str):
                    pending += 1
                    continue  # no decision about the item: the verifier did not answer; a re-run asks again
                record = p.record(*decide(answer, mutant=p.item.mutant is not None), answer)
            _write_atomic(records_dir / f"{p.item.key}.json", record.model_dump_json())
            _write_atomic(out / WORK_DIR / "samples" / f"{p.stored.sample_id}.json", p.stored.text)
            records[p.item.key] = record
            computed += 1
            tick("verdicts")
    ordered = sorted(records.values(), key=lambda r: r.id)
    write_dataset(out, ordered)
    return RunReport(out, ordered, computed, clock, len(samples), stopped, pending)


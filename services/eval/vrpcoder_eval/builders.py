"""Builders of benchmarks 1-3: sampled variants and public-library sub-instances.

B1 and B2 go through the same Stage-1 pipeline as training data (sampler, gold script, probes that
the gold script and the solver-free checker both confirm) on seeds disjoint from training, so an
item is in-distribution in everything but its seed. B3 cuts 5-12-customer sub-instances out of
library files through ``vrpcoder.importers`` and keeps the library's own numbers (no relaxation,
no attacked copies): its reference objective is the gold optimum, accepted only when the
independent checker finds the gold routes feasible and prices them at the same cost.

Every builder returns the items and a list of ``Discard`` records: nothing is dropped unseen.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from vrpcoder.audit import audit_gold
from vrpcoder.importers import InstanceFormat, detect_format, import_instance, parse_library_file
from vrpcoder.samples import BASE_KIND, Sample, build_grid_point, build_samples
from vrpcoder.sampling.profiles import applicable_profiles
from vrpcoder.variants import get_variant, held_out_variants, train_variants

from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkItem, BenchmarkName, PromptRef
from vrpcoder_eval.prompts import prompt_ref
from vrpcoder_eval.statements import StatementWriter, with_statement

EVAL_SEED_OFFSET = 1_000_000
"""Benchmark seeds start here; training grids use small seeds (0, 1, 2, ...), so the two never meet."""

B1_DEFAULT_SIZE = 310
B2_DEFAULT_SIZE = 66
B3_SIZES = tuple(range(5, 13))
"""Customers kept per library sub-instance (the paper's 5-12)."""

LIBRARY_SOURCES: dict[InstanceFormat, str] = {
    InstanceFormat.TSPLIB: "tsplib",
    InstanceFormat.CVRPLIB: "cvrplib",
    InstanceFormat.SOLOMON: "solomon",
    InstanceFormat.CORDEAU: "cordeau-mdvrp",
    InstanceFormat.SDVRPLIB: "sdvrplib",
    InstanceFormat.VRPB: "vrpb",
}
"""The six library families of benchmark 3 (TSP, CVRP, VRPTW, MDVRP, SDVRP, VRPB)."""


@dataclass(frozen=True, slots=True)
class Discard:
    """A candidate item that did not make it into a benchmark, and why."""

    benchmark: BenchmarkName
    key: str
    reason: str


@dataclass
class BuildResult:
    items: list[BenchmarkItem]
    discards: list[Discard]


Progress = Callable[[int], None]
"""Called with the number of grid points / files just finished (for progress bars)."""


def _noop(_: int) -> None:
    return None


def pick_sample(samples: Sequence[Sample], key: str) -> Sample:
    """One sample of a grid point, chosen by a stable hash of the point.

    A grid point yields its base sample (structural probes) and one attacked copy per parameter
    attack (capacity, time windows, distance, ...). Rotating over them by hash spreads the
    benchmark's INJ probes over every family its variants encode, where always taking the base
    would never test a parameter family.
    """
    index = int(hashlib.sha256(key.encode()).hexdigest(), 16) % len(samples)
    return samples[index]


def sampled_grid(variants: Sequence[str], size: int, seed_start: int) -> Iterator[tuple[str, int, int]]:
    """(variant, profile, seed) triples: variants round-robin, each cycling through its profiles with
    fresh seeds, until ``size`` points were proposed (the caller asks for more while items fail)."""
    counters = {v: 0 for v in variants}
    emitted = 0
    while emitted < size:
        for variant in variants:
            profiles = applicable_profiles(variant)
            j = counters[variant]
            counters[variant] += 1
            yield variant, profiles[j % len(profiles)], seed_start + j
            emitted += 1
            if emitted >= size:
                return


def build_sampled(
    name: BenchmarkName,
    variants: Sequence[str],
    size: int,
    store: BenchmarkDir,
    writer: StatementWriter,
    *,
    seed_start: int = EVAL_SEED_OFFSET,
    time_limit: float = 60.0,
    max_attempts: int | None = None,
    progress: Progress = _noop,
) -> BuildResult:
    """B1/B2: ``size`` items over ``variants`` (balanced round-robin), one sample per grid point."""
    items: list[BenchmarkItem] = []
    discards: list[Discard] = []
    limit = max_attempts if max_attempts is not None else 3 * size
    ref = prompt_ref()
    attempts = 0
    grid = sampled_grid(variants, limit, seed_start)
    for variant, profile, seed in grid:
        if len(items) >= size:
            break
        attempts += 1
        key = f"{variant}-p{profile}-s{seed}"
        try:
            report = build_grid_point(variant, profile, seed, time_limit=time_limit)
        except (ValueError, RuntimeError) as exc:
            discards.append(Discard(name, key, f"{type(exc).__name__}: {exc}"))
            progress(1)
            continue
        if not report.samples:
            reasons = sorted({f"{r.outcome.value}: {r.reason}" for r in report.records if r.outcome.value != "kept"})
            discards.append(Discard(name, key, "; ".join(reasons) or "no sample"))
            progress(1)
            continue
        sample = pick_sample(report.samples, key)
        items.append(_sampled_item(name, sample, key, store, writer, ref, profile=profile, seed=seed))
        progress(1)
    return BuildResult(items, discards)


def _sampled_item(
    name: BenchmarkName, sample: Sample, key: str, store: BenchmarkDir, writer: StatementWriter, ref: PromptRef,
    *, profile: int, seed: int,
) -> BenchmarkItem:
    written = writer(sample)
    sample_id = store.save_sample(with_statement(sample, written))
    return BenchmarkItem(
        id=f"{name.value}-{key}-{sample.kind}",
        benchmark=name,
        statement=written.text,
        prompt=ref,
        reference_objective=sample.reference_objective,
        sample_id=sample_id,
        variant=sample.variant,
        source="synthetic",
        provenance={"profile": profile, "seed": seed, "sample_kind": sample.kind, "sample": sample.id,
                    "statement_path": written.path},
    )


def chosen_variants(name: BenchmarkName, wanted: Sequence[str] | None) -> list[str]:
    """B1's training variants or B2's held-out ones, restricted to ``wanted`` (any spelling the registry
    takes); ValueError for an unknown name or when none of ``wanted`` belongs to the benchmark."""
    pool = [v.name for v in (train_variants() if name is BenchmarkName.B1 else held_out_variants())]
    if wanted is None:
        return pool
    names = [get_variant(v).name for v in wanted]
    chosen = [v for v in pool if v in names]
    if not chosen:
        kind = "training" if name is BenchmarkName.B1 else "held-out"
        raise ValueError(f"{name.value} has {kind} variants only, and none of {', '.join(names)} is one ({', '.join(pool)})")
    return chosen


def build_b1(
    store: BenchmarkDir, writer: StatementWriter, size: int = B1_DEFAULT_SIZE, *, seed_start: int = EVAL_SEED_OFFSET,
    time_limit: float = 60.0, progress: Progress = _noop, variants: Sequence[str] | None = None,
) -> BuildResult:
    """B1: the 18 training variants (or those of them in ``variants``)."""
    return build_sampled(BenchmarkName.B1, chosen_variants(BenchmarkName.B1, variants), size, store, writer,
                         seed_start=seed_start, time_limit=time_limit, progress=progress)


def build_b2(
    store: BenchmarkDir, writer: StatementWriter, size: int = B2_DEFAULT_SIZE, *, seed_start: int = EVAL_SEED_OFFSET,
    time_limit: float = 60.0, progress: Progress = _noop, variants: Sequence[str] | None = None,
) -> BuildResult:
    """B2: the three held-out variant combinations (or those of them in ``variants``)."""
    return build_sampled(BenchmarkName.B2, chosen_variants(BenchmarkName.B2, variants), size, store, writer,
                         seed_start=seed_start, time_limit=time_limit, progress=progress)


# ---- benchmark 3 ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LibraryFileInfo:
    path: Path
    fmt: InstanceFormat
    customers: int


def library_files(root: Path) -> list[LibraryFileInfo]:
    """Every readable library instance file under ``root`` (solution files and unknown files skipped)."""
    found: list[LibraryFileInfo] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.suffix in (".sol", ".res", ".tour") or path.name.endswith(".opt.tour"):
            continue
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
            fmt = detect_format(text, path)
            library = parse_library_file(text, fmt, source=path.name)
        except (ValueError, KeyError, IndexError):
            continue
        found.append(LibraryFileInfo(path, fmt, len(library.customers)))
    return found


def library_plan(files: Iterable[LibraryFileInfo], sizes: Sequence[int] = B3_SIZES) -> list[tuple[LibraryFileInfo, int]]:
    """(file, customers kept) for every size the file is large enough for."""
    return [(info, k) for info in files for k in sizes if k <= info.customers]


def build_b3(
    store: BenchmarkDir,
    writer: StatementWriter,
    library_root: Path,
    *,
    sizes: Sequence[int] = B3_SIZES,
    time_limit: float = 60.0,
    limit: int | None = None,
    progress: Progress = _noop,
) -> BuildResult:
    """B3: a sub-instance per (library file, customer count), its reference confirmed by the checker."""
    items: list[BenchmarkItem] = []
    discards: list[Discard] = []
    ref = prompt_ref()
    plan = library_plan(library_files(library_root), sizes)
    for info, keep in plan:
        if limit is not None and len(items) >= limit:
            break
        key = f"{info.path.name}-n{keep}"
        item = _library_item(info, keep, store, writer, ref, time_limit)
        if isinstance(item, str):
            discards.append(Discard(BenchmarkName.B3, key, item))
        else:
            items.append(item)
        progress(1)
    return BuildResult(items, discards)


@dataclass(frozen=True, slots=True)
class BuildRequest:
    """What ``vrpcoder eval build`` asks of the builders (one record, whichever benchmarks it names)."""

    store: BenchmarkDir
    writer: StatementWriter
    b1_size: int = B1_DEFAULT_SIZE
    b2_size: int = B2_DEFAULT_SIZE
    library_dir: Path = Path("tests/data/instances")
    b3_sizes: Sequence[int] = B3_SIZES
    b3_limit: int | None = None
    seed_start: int = EVAL_SEED_OFFSET
    time_limit: float = 60.0
    variants: Sequence[str] | None = None


@dataclass(frozen=True, slots=True)
class Builder:
    """How one benchmark is built from a request, and how many grid points its progress bar counts
    (None: the number of library files is known only while building)."""

    build: Callable[[BuildRequest, Progress], BuildResult]
    total: Callable[[BuildRequest], int | None]


BUILDERS: dict[BenchmarkName, Builder] = {
    BenchmarkName.B1: Builder(
        lambda r, tick: build_b1(r.store, r.writer, r.b1_size, seed_start=r.seed_start, time_limit=r.time_limit,
                                 progress=tick, variants=r.variants),
        lambda r: r.b1_size,
    ),
    BenchmarkName.B2: Builder(
        lambda r, tick: build_b2(r.store, r.writer, r.b2_size, seed_start=r.seed_start, time_limit=r.time_limit,
                                 progress=tick, variants=r.variants),
        lambda r: r.b2_size,
    ),
    BenchmarkName.B3: Builder(
        lambda r, tick: build_b3(r.store, r.writer, r.library_dir, sizes=r.b3_sizes, time_limit=r.time_limit,
                                 limit=r.b3_limit, progress=tick),
        lambda r: None,
    ),
}
"""The benchmarks built from our own data (benchmark 4 is read from the user's files instead)."""


SMALLER_FLEETS = (None, 2, 1)
"""Fleets tried in turn (None: the file's; else vehicles in total, per depot for multi-depot files):
a library fleet can make the gold model too large for the size-limited licence (Cordeau p01 has
four vehicles at each of four depots), and a smaller fleet that still carries the demand keeps the
item; the fleet used is recorded in the item's provenance."""


def _library_item(
    info: LibraryFileInfo, keep: int, store: BenchmarkDir, writer: StatementWriter, ref: PromptRef,
    time_limit: float,
) -> BenchmarkItem | str:
    reasons: list[str] = []
    for vehicles in SMALLER_FLEETS:
        try:
            instance = import_instance(info.path, customers=keep, vehicles=vehicles)
        except ValueError as exc:
            reasons.append(f"import failed: {exc}")
            continue
        report = build_samples(instance, time_limit=time_limit, relax_instance=False, parameter_attacks=False)
        base = next((s for s in report.samples if s.kind == BASE_KIND), None)
        if base is not None:
            return _trusted_item(info, keep, base, vehicles, store, writer, ref, time_limit)
        found = sorted({f"{r.outcome.value}: {r.reason}" for r in report.records if r.outcome.value != "kept"})
        reasons.append("no verified sample: " + ("; ".join(found) or "unknown"))
        if not any("size_limited_licence" in reason for reason in found):
            break
    return " | ".join(dict.fromkeys(reasons))


def _trusted_item(
    info: LibraryFileInfo, keep: int, base: Sample, vehicles: int | None, store: BenchmarkDir,
    writer: StatementWriter, ref: PromptRef, time_limit: float,
) -> BenchmarkItem | str:
    audit = audit_gold(base.instance, time_limit=time_limit)
    if not audit.trusted:
        return f"checker does not confirm the gold optimum (status {audit.status}, violations {list(audit.violations)})"
    if audit.objective is None or abs(audit.objective - base.reference_objective) > 1e-6 * max(1.0, abs(audit.objective)):
        return f"gold optimum {audit.objective} differs from the sample's reference {base.reference_objective}"
    written = writer(base)
    sample_id = store.save_sample(with_statement(base, written))
    source = LIBRARY_SOURCES[info.fmt]
    return BenchmarkItem(
        id=f"b3-{source}-{info.path.name}-n{keep}",
        benchmark=BenchmarkName.B3,
        statement=written.text,
        prompt=ref,
        reference_objective=base.reference_objective,
        sample_id=sample_id,
        variant=base.variant,
        source=source,
        provenance={
            "file": info.path.name,
            "format": info.fmt.value,
            "customers": keep,
            "file_customers": info.customers,
            "checker_cost": audit.checker_cost,
            "probes": len(base.probes),
            "vehicles": len(base.instance.vehicles),
            "fleet": "file" if vehicles is None else f"reduced to {vehicles}",
            "statement_path": written.path,
        },
    )

"""SandboxExecutor: same verdicts as the in-process verifier, warm reuse, sandboxes taking turns,
output capture, the unsandboxed fallback and the refusal without one."""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from vrpcoder.errors import ErrorKind
from vrpcoder.samples import Sample
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_verifier.sandbox import (
    ExecutionRecord,
    SandboxExecutor,
    SandboxPolicy,
    SandboxUnavailable,
    sandbox_status,
)
from vrpcoder_verifier.sandbox import executor as executor_module

from tests.verifier.sandbox.support import HANG, SMALL, compose, requires_bwrap
from tests.verifier.support import NO_BUILD_MODEL, RAISES, SYNTAX_ERROR, comparable, tiny_samples

CONFIG = VerifyConfig(time_limit=10.0)
CANDIDATES = Path(__file__).resolve().parents[2] / "data" / "candidates"


def _cases() -> list[tuple[str, str, str]]:
    """(id, variant of the sample, candidate source); samples are built lazily in the test."""
    return [
        ("cvrp-gold", "CVRP", "gold"),
        ("cvrp-attacked-gold", "CVRP", "gold-attacked"),
        ("tsp-gold", "TSP", "gold"),
        ("tsp-lazy-callback", "TSP", (CANDIDATES / "tsp_dfj_lazy.py").read_text()),
        ("cvrp-no-capacity", "CVRP", (CANDIDATES / "cvrp_no_capacity.py").read_text()),
        ("cvrp-one-based", "CVRP", (CANDIDATES / "cvrp_one_based.py").read_text()),
        ("syntax-error", "CVRP", SYNTAX_ERROR),
        ("no-build-model", "CVRP", NO_BUILD_MODEL),
        ("raises", "CVRP", RAISES),
    ]


def _sample_and_code(variant: str, source: str) -> tuple[Sample, str]:
    samples = tiny_samples(variant)
    if source == "gold-attacked":
        assert len(samples) > 1, "the CVRP grid point has no attacked sample"
        return samples[1], samples[1].gold_code
    return samples[0], samples[0].gold_code if source == "gold" else source


@requires_bwrap
@pytest.mark.parametrize(("variant", "source"), [c[1:] for c in _cases()], ids=[c[0] for c in _cases()])
def test_verdict_equals_the_in_process_verifier(executor: SandboxExecutor, variant: str, source: str) -> None:
    sample, code = _sample_and_code(variant, source)
    record = executor.execute(code, sample, CONFIG)
    assert record.mechanism == "bubblewrap"
    assert comparable(record.verdict) == comparable(verify(code, sample, CONFIG))


@requires_bwrap
def test_sandbox_status_reports_bubblewrap() -> None:
    status = sandbox_status()
    assert status.available and status.mechanism == "bubblewrap"
    assert "no network" in status.detail


@requires_bwrap
def test_a_sandbox_is_reused_until_warm_jobs_is_reached(cvrp: Sample) -> None:
    with SandboxExecutor(SMALL.model_copy(update={"warm_jobs": 2})) as running:
        warm = [running.execute(cvrp.gold_code, cvrp, CONFIG).warm for _ in range(4)]
    assert warm == [False, True, False, True]


@requires_bwrap
def test_the_sandbox_survives_the_thread_that_started_it(cvrp: Sample) -> None:
    """bubblewrap's parent-death signal follows the thread that forked it: a short-lived caller
    thread must not take the warm sandbox down with it."""
    with SandboxExecutor(SMALL) as running:
        results: list[ExecutionRecord] = []
        caller = threading.Thread(target=lambda: results.append(running.execute(cvrp.gold_code, cvrp, CONFIG)))
        caller.start()
        caller.join()
        again = running.execute(cvrp.gold_code, cvrp, CONFIG)
    assert results[0].verdict.passed and again.verdict.passed
    assert again.warm


@requires_bwrap
def test_output_is_captured_and_truncated_without_an_error(executor: SandboxExecutor, cvrp: Sample) -> None:
    count = 3 * SMALL.max_output_bytes // 10
    code = cvrp.gold_code.replace("def build_model(", "def gold_build_model(") + (
        f"\n\ndef build_model():\n    print('abcdefghi\\n' * {count})\n    return gold_build_model()\n"
    )
    record = executor.execute(code, cvrp, CONFIG)
    assert record.verdict.passed
    assert record.output.startswith("abcdefghi\n")
    assert len(record.output.encode()) == SMALL.max_output_bytes
    assert record.output_bytes >= 10 * count and record.output_truncated


RING = SMALL.model_copy(update={"sandboxes": 2, "head_start": "always"})
"""Two sandboxes, every job with a head start: jobs alternate between them."""


def _alive(pid: int) -> bool:
    """A process that exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@requires_bwrap
def test_jobs_take_turns_between_the_sandboxes(cvrp: Sample) -> None:
    with SandboxExecutor(RING) as running:
        running.warm_up()
        started = set(running.sandbox_ids)
        records = [running.execute(cvrp.gold_code, cvrp, CONFIG) for _ in range(4)]
    first, second = records[0].sandbox, records[1].sandbox
    assert len(started) == 2 and {first, second} == started
    assert [r.sandbox for r in records] == [first, second, first, second]
    assert [r.warm for r in records] == [False, False, True, True]
    assert all(r.verdict.passed for r in records)


@requires_bwrap
def test_without_a_head_start_jobs_stay_in_one_sandbox(cvrp: Sample) -> None:
    with SandboxExecutor(RING.model_copy(update={"head_start": "never"})) as running:
        running.warm_up()
        first = running.sandbox_ids[0]
        records = [running.execute(cvrp.gold_code, cvrp, CONFIG) for _ in range(3)]
    assert [r.sandbox for r in records] == [first] * 3
    assert all(r.verdict.passed for r in records)


@requires_bwrap
def test_a_sandbox_killed_by_its_job_is_replaced_and_the_other_keeps_serving(
    cvrp: Sample, hostile_code: Callable[..., str]
) -> None:
    with SandboxExecutor(RING) as running:
        running.warm_up()
        started = set(running.sandbox_ids)
        killed = running.execute(hostile_code("kill_parent"), cvrp, CONFIG)
        victim = killed.sandbox
        (other,) = started - {victim}
        assert killed.verdict.error is not None and killed.verdict.error.kind is ErrorKind.SANDBOX_VIOLATION
        after = [running.execute(cvrp.gold_code, cvrp, CONFIG) for _ in range(3)]
        running.warm_up()
        ring = running.sandbox_ids
    assert after[0].sandbox == other
    assert all(r.verdict.passed for r in after)
    assert victim not in ring and len(ring) == 2 and not _alive(victim)


@requires_bwrap
def test_what_a_job_leaves_reaches_no_later_job_in_either_sandbox(
    cvrp: Sample, hostile_code: Callable[..., str]
) -> None:
    marker = f"previous-job-{secrets.token_hex(6)}"
    with SandboxExecutor(RING) as running:
        running.warm_up()
        planted = running.execute(hostile_code("plant_for_next_job"), cvrp, CONFIG)
        secret = running.execute(cvrp.gold_code + f"\nSECRET = {marker!r}\n", cvrp, CONFIG)
        later = [running.execute(hostile_code("previous_job", MARKER=marker[::-1]), cvrp, CONFIG) for _ in range(2)]
    assert planted.verdict.passed and "planted" in planted.output and secret.verdict.passed
    assert {r.sandbox for r in later} == {planted.sandbox, secret.sandbox}
    for record in later:
        assert record.verdict.passed, record.verdict.error
        assert "no previous job in reach" in record.output


@requires_bwrap
def test_spares_copy_ahead_the_pages_a_job_writes(cvrp: Sample) -> None:
    """The supervisor's probe was read from outside the sandbox: every sandbox learned a page list
    (a few thousand pages at most; the interpreter alone maps tens of thousands), and jobs still
    pass with the spares copying it."""
    with SandboxExecutor(RING) as running:
        running.warm_up()
        learned = running.prefault_pages
        records = [running.execute(cvrp.gold_code, cvrp, CONFIG) for _ in range(2)]
    assert len(learned) == 2 and all(100 < pages < 10_000 for pages in learned)
    assert all(r.verdict.passed for r in records)


@requires_bwrap
def test_a_closed_executor_refuses_work_and_leaves_no_sandbox(cvrp: Sample) -> None:
    running = SandboxExecutor(RING)
    running.warm_up()
    started = running.sandbox_ids
    assert len(started) == 2 and all(_alive(pid) for pid in started)
    running.close()
    assert not any(_alive(pid) for pid in started)
    with pytest.raises(RuntimeError):
        running.execute(cvrp.gold_code, cvrp, CONFIG)


@requires_bwrap
def test_a_sandbox_that_cannot_start_is_an_infrastructure_fault(
    cvrp: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    with SandboxExecutor(SMALL) as running:
        monkeypatch.setattr(executor_module, "find_bwrap", lambda: "/bin/false")
        verdict = running.verify(cvrp.gold_code, cvrp, CONFIG)
    assert verdict.error is not None and verdict.error.kind is ErrorKind.INFRASTRUCTURE
    assert verdict.reward is None


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(executor_module, "find_bwrap", lambda: None)
    sandbox_status.cache_clear()
    yield
    sandbox_status.cache_clear()


@pytest.mark.usefixtures("no_bwrap")
def test_without_a_sandbox_untrusted_code_is_refused() -> None:
    assert not sandbox_status().available
    with pytest.raises(SandboxUnavailable, match="bwrap"):
        SandboxExecutor(SandboxPolicy())


@pytest.mark.usefixtures("no_bwrap")
def test_unsandboxed_fallback_runs_with_limits_and_says_so(cvrp: Sample) -> None:
    allowed = SMALL.model_copy(update={"allow_unsandboxed": True})
    with SandboxExecutor(allowed) as running:
        assert running.status.mechanism == "none" and "UNSANDBOXED" in running.status.detail
        gold = running.execute(cvrp.gold_code, cvrp, CONFIG)
        assert all(pages > 100 for pages in running.prefault_pages)
        bomb = running.verify(compose("memory_bomb", cvrp, {}), cvrp, CONFIG)
        again = running.verify(cvrp.gold_code, cvrp, CONFIG)
    assert gold.mechanism == "none"
    assert comparable(gold.verdict) == comparable(verify(cvrp.gold_code, cvrp, CONFIG))
    assert bomb.error is not None and bomb.error.kind is ErrorKind.MEMORY_LIMIT
    assert again.passed


@pytest.mark.usefixtures("no_bwrap")
def test_unsandboxed_fallback_enforces_the_wall_clock_and_scrubs_the_environment(
    cvrp: Sample, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECRET_TOKEN", "unsandboxed-secret-value")
    with SandboxExecutor(HANG.model_copy(update={"allow_unsandboxed": True})) as running:
        slept = running.verify(compose("sleep_forever", cvrp, {}), cvrp, CONFIG)
        leaked = running.verify(compose("env_secrets", cvrp, {}), cvrp, CONFIG)
    assert slept.error is not None and slept.error.kind is ErrorKind.TIMEOUT
    assert leaked.error is not None and "environment:" in leaked.error.detail
    assert "unsandboxed-secret-value" not in leaked.error.detail
    assert os.environ["SECRET_TOKEN"] == "unsandboxed-secret-value"

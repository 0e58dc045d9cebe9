"""When the next job gets a head start: only while the host leaves a core idle."""

from __future__ import annotations

from pathlib import Path

import pytest
from vrpcoder_verifier.sandbox.load import SpareCoreWatch, cpu_times

STAT = """cpu  100 0 50 800 50 0 0 0 0 0
cpu0 50 0 25 400 25 0 0 0 0 0
cpu1 50 0 25 400 25 0 0 0 0 0
intr 12345
"""


def test_cpu_times_reads_idle_all_and_cores(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    stat.write_text(STAT)
    assert cpu_times(stat) == (850, 1000, 2)


@pytest.mark.parametrize("text", ["", "cpu  x y z\n", "intr 1\n"])
def test_unreadable_cpu_times_are_none(tmp_path: Path, text: str) -> None:
    stat = tmp_path / "stat"
    stat.write_text(text)
    assert cpu_times(stat) is None
    assert cpu_times(tmp_path / "missing") is None


def _busy(watch: SpareCoreWatch, idle_cores: float, rounds: int, start: tuple[int, int, int]) -> tuple[bool, tuple[int, int, int]]:
    """Feed ``rounds`` intervals of 100 jiffies per core with ``idle_cores`` of 2 idle."""
    idle, total, cores = start
    answer = False
    for _ in range(rounds):
        idle, total = idle + round(100 * idle_cores), total + 100 * cores
        answer = watch.observe((idle, total, cores))
    return answer, (idle, total, cores)


def test_no_head_start_without_a_first_interval() -> None:
    watch = SpareCoreWatch()
    assert watch.observe((0, 0, 2)) is False
    assert watch.observe(None) is False


def test_one_busy_worker_on_two_cores_leaves_a_core_to_spare() -> None:
    watch = SpareCoreWatch()
    watch.observe((0, 0, 2))
    spare, _ = _busy(watch, idle_cores=0.9, rounds=3, start=(0, 0, 2))
    assert spare


def test_every_core_busy_takes_no_head_start_and_recovers_when_one_idles() -> None:
    watch = SpareCoreWatch()
    watch.observe((0, 0, 2))
    spare, now = _busy(watch, idle_cores=0.9, rounds=3, start=(0, 0, 2))
    assert spare
    saturated, now = _busy(watch, idle_cores=0.05, rounds=6, start=now)
    assert not saturated
    recovered, _ = _busy(watch, idle_cores=1.0, rounds=6, start=now)
    assert recovered


def test_an_interval_without_a_tick_keeps_the_last_answer() -> None:
    watch = SpareCoreWatch()
    watch.observe((0, 0, 2))
    spare, now = _busy(watch, idle_cores=1.0, rounds=2, start=(0, 0, 2))
    assert spare and watch.observe(now) is True

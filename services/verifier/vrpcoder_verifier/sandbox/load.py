"""Whether this host has a core to spare: what decides if the next job gets a head start.

A head start (the next job in the other sandbox while this one cleans up, its child's pages copied
before it arrives; see ``executor`` and ``prefault``) moves work off the job's clock onto another
core. With a core idle that is free; with every core busy (as many busy workers as cores) it is
extra work that competes with the other jobs: two warm supervisors in turn keep twice the memory
hot, and a spare that copies pages while another job runs slows that job down. Measured on the
project's 2-core VM, it took sandboxed throughput from 70 % to 84 % of in-process with one busy
worker, and from about 55 % down to about 45 % with two. So the executor asks before each job.

The signal is the share of CPU time the host left idle since the previous job (``/proc/stat``),
as a number of idle cores, smoothed over recent jobs. It counts our own sandboxes' clean-up as
work, which is right: that is what a head start would compete with.
"""

from __future__ import annotations

from pathlib import Path

SMOOTHING = 0.3
"""Weight of the newest interval in the moving average of idle cores."""
SPARE_CORES = 0.5
"""Average idle cores above which a head start is taken."""
_IDLE_FIELDS = (3, 4)
"""idle and iowait in the ``cpu`` line of /proc/stat."""


def cpu_times(stat: Path = Path("/proc/stat")) -> tuple[int, int, int] | None:
    """(idle jiffies, all jiffies, cores) since boot, from /proc/stat; None where it cannot be read."""
    try:
        lines = stat.read_text().splitlines()
        name, *values = lines[0].split()
        fields = [int(value) for value in values]
    except (OSError, ValueError, IndexError):
        return None
    if name != "cpu" or len(fields) < 4:
        return None
    cores = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
    return sum(fields[i] for i in _IDLE_FIELDS if i < len(fields)), sum(fields[:8]), max(1, cores)


class SpareCoreWatch:
    """Answers, before each job, whether a core besides this job's own is likely to be idle."""

    def __init__(self) -> None:
        self._last: tuple[int, int, int] | None = None
        self._idle_cores: float | None = None

    def observe(self, sample: tuple[int, int, int] | None) -> bool:
        """Feed the cumulative CPU times now; True if the host left a core idle lately.

        No verdict without two samples (the first job gets no head start), or without /proc."""
        if sample is None:
            return False
        last, self._last = self._last, sample
        if last is None or sample[1] <= last[1]:
            return self._idle_cores is not None and self._idle_cores > SPARE_CORES
        idle = sample[2] * (sample[0] - last[0]) / (sample[1] - last[1])
        self._idle_cores = idle if self._idle_cores is None else SMOOTHING * idle + (1 - SMOOTHING) * self._idle_cores
        return self._idle_cores > SPARE_CORES

    def spare_core(self) -> bool:
        return self.observe(cpu_times())

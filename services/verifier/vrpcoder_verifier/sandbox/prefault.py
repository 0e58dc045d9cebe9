"""Copying, while a spare waits, the pages of the inherited heap that its job would copy anyway.

After ``fork`` a child shares every page with the supervisor until it first writes one; the kernel
then copies that page in a page fault, on the job's clock. A small job writes about 1,500 of them
(reference counts of the interpreter's, the verifier's and gurobipy's objects, free slots of
allocator pools): 5-6 ms of system time per job on our VMs, most of what the sandbox adds to a
job. The set barely depends on the job, so it is learned once per sandbox:

1. the supervisor forks a probe that runs a canned job the way a child runs a real one
   (``rehearsal``) and then waits;
2. the executor, outside the sandbox (which has no /proc), reads the probe's pagemap
   (``probed_spans``): the pages of its writable private mappings it holds alone (present and
   exclusively mapped: it wrote them), and the pages of read-only file mappings (libraries' code and
   constants) it has mapped. ``fork`` copies no page-table entries for the latter, so a child
   faults on each such page it reads, as a job did about 170 times (each fault maps a few pages);
3. a spare given a head start (``load``) copies the written pages (``MADV_POPULATE_WRITE``) and maps
   the read ones (``MADV_POPULATE_READ``) before it waits for its job (``populate``). That costs
   about what the faults would have; it happens while the spare is idle, on a core the host left
   idle, not on the job's clock.

Everything here is an optimisation only: a kernel without ``MADV_POPULATE_WRITE`` (before 5.14), a
pagemap the executor may not read, or a probe that fails leaves the list empty and the spares as
they were. The probe runs nothing but our own code on our own canned sample.
"""

from __future__ import annotations

import ctypes
import errno
import os
import struct
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")
MADV_POPULATE_READ = 22
MADV_POPULATE_WRITE = 23
MAX_SPANS = 1 << 14
"""Far more runs than a small job writes; a longer list is cut (it would only cost more copying)."""
_PRESENT = 1 << 63
_EXCLUSIVE = 1 << 56
"""pagemap flags: the page is in memory, and mapped by this process alone (so: copied, or new)."""
_ENTRY = struct.Struct("<Q")


def _check_runs(runs: tuple[tuple[int, int], ...]) -> None:
    end = 0
    for start, length in runs:
        if start % PAGE_SIZE or length <= 0 or length % PAGE_SIZE or start < end:
            raise ValueError(f"not a sorted run of whole pages: ({start:#x}, {length})")
        end = start + length


class PageSpans(BaseModel):
    """Runs of whole pages as (start address, length in bytes), each list sorted and disjoint."""

    model_config = ConfigDict(frozen=True)

    spans: tuple[tuple[int, int], ...] = Field(default=(), max_length=MAX_SPANS)
    """Pages a job writes: copied ahead."""
    mapped: tuple[tuple[int, int], ...] = Field(default=(), max_length=MAX_SPANS)
    """Pages of read-only file mappings a job reads: mapped ahead."""

    @model_validator(mode="after")
    def _whole_sorted_pages(self) -> PageSpans:
        _check_runs(self.spans)
        _check_runs(self.mapped)
        return self

    @property
    def pages(self) -> int:
        """Pages copied ahead."""
        return sum(length for _, length in self.spans) // PAGE_SIZE


def writable_private_mappings(maps: str) -> list[tuple[int, int]]:
    """(start, end) of every private writable mapping in a ``/proc/<pid>/maps`` text: the mappings
    a write copies (the heap, anonymous memory, libraries' data)."""
    found = []
    for line in maps.splitlines():
        fields = line.split(maxsplit=2)
        if len(fields) < 2 or not fields[1].startswith("rw") or fields[1][3:4] != "p":
            continue
        start, _, end = fields[0].partition("-")
        found.append((int(start, 16), int(end, 16)))
    return found


def readonly_file_mappings(maps: str) -> list[tuple[int, int]]:
    """(start, end) of every readable, non-writable mapping of a file in a ``/proc/<pid>/maps``
    text: code and constants of the interpreter and libraries."""
    found = []
    for line in maps.splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) < 6 or fields[1][:2] != "r-" or fields[4] == "0":
            continue
        start, _, end = fields[0].partition("-")
        found.append((int(start, 16), int(end, 16)))
    return found


def _runs(start: int, entries: bytes, flags: int) -> Iterator[tuple[int, int]]:
    run_start: int | None = None
    index = -1
    for index, (entry,) in enumerate(_ENTRY.iter_unpack(entries)):
        if entry & flags == flags:
            if run_start is None:
                run_start = start + index * PAGE_SIZE
        elif run_start is not None:
            yield run_start, start + index * PAGE_SIZE - run_start
            run_start = None
    if run_start is not None:
        yield run_start, start + (index + 1) * PAGE_SIZE - run_start


def exclusive_runs(start: int, entries: bytes) -> Iterator[tuple[int, int]]:
    """Runs of present, exclusively mapped pages among the pagemap ``entries`` of the mapping at ``start``."""
    return _runs(start, entries, _PRESENT | _EXCLUSIVE)


def present_runs(start: int, entries: bytes) -> Iterator[tuple[int, int]]:
    """Runs of present pages among the pagemap ``entries`` of the mapping at ``start``."""
    return _runs(start, entries, _PRESENT)


def probed_spans(pid: int) -> PageSpans:
    """The pages process ``pid`` wrote and the library pages it mapped, from its /proc entries
    (readable by a process of the same user while ``pid`` is dumpable, or by root)."""
    maps = Path(f"/proc/{pid}/maps").read_text()
    with open(f"/proc/{pid}/pagemap", "rb", buffering=0) as pagemap:

        def entries(start: int, end: int) -> bytes:
            return os.pread(pagemap.fileno(), (end - start) // PAGE_SIZE * _ENTRY.size, start // PAGE_SIZE * _ENTRY.size)

        written = [run for start, end in writable_private_mappings(maps) for run in exclusive_runs(start, entries(start, end))]
        mapped = [run for start, end in readonly_file_mappings(maps) for run in present_runs(start, entries(start, end))]
    return PageSpans(spans=tuple(written[:MAX_SPANS]), mapped=tuple(mapped[:MAX_SPANS]))


def host_pid(root: int, namespace_pid: int) -> int | None:
    """The host pid of the process known as ``namespace_pid`` inside the pid namespace whose init
    is ``root`` (from the last field of each descendant's ``NSpid``)."""
    pending = [root]
    while pending:
        pid = pending.pop()
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            children = [
                int(child)
                for task in os.listdir(f"/proc/{pid}/task")
                for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()
            ]
        except (OSError, ValueError):
            continue
        for line in status.splitlines():
            if line.startswith("NSpid:") and line.split()[-1] == str(namespace_pid) and pid != root:
                return pid
        pending.extend(children)
    return None


_libc = ctypes.CDLL(None, use_errno=True)
_madvise = _libc.madvise
_madvise.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
_madvise.restype = ctypes.c_int


def _advise_each(runs: tuple[tuple[int, int], ...], advice: int) -> int:
    """Pages of ``runs`` the advice was taken for. A run no longer mapped (memory the probe's job
    mapped anew) is skipped; a kernel that does not know the advice refuses the first run, and
    then nothing more is asked."""
    done = 0
    for index, (start, length) in enumerate(runs):
        if _madvise(start, length, advice) == 0:
            done += length // PAGE_SIZE
        elif index == 0 and ctypes.get_errno() == errno.EINVAL:
            break
    return done


def populate(spans: PageSpans) -> int:
    """Copy the written pages and map the read ones now, as the job's own accesses would; returns
    how many pages were copied or mapped."""
    return _advise_each(spans.spans, MADV_POPULATE_WRITE) + _advise_each(spans.mapped, MADV_POPULATE_READ)

"""Pages copied ahead: the maps and pagemap readers, the span record, and that a populated page
costs the job no fault."""

from __future__ import annotations

import ctypes
import mmap
import os
import resource
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from pydantic import ValidationError
from vrpcoder_verifier.sandbox.prefault import (
    PAGE_SIZE,
    PageSpans,
    exclusive_runs,
    host_pid,
    populate,
    present_runs,
    probed_spans,
    readonly_file_mappings,
    writable_private_mappings,
)

MAPS = """\
55d0c0000000-55d0c0002000 r--p 00000000 08:01 123  /usr/bin/python3.11
55d0c0002000-55d0c0004000 rw-p 00002000 08:01 123  /usr/bin/python3.11
55d0c1000000-55d0c1100000 rw-p 00000000 00:00 0    [heap]
7f0000000000-7f0000010000 rw-s 00000000 00:01 77   /dev/shm/shared
7f0000010000-7f0000020000 ---p 00000000 00:00 0
7f0000020000-7f0000040000 rw-p 00000000 00:00 0
7f0000040000-7f0000050000 r-xp 00000000 08:01 456  /usr/lib/libgurobi.so
7f0000050000-7f0000051000 r--p 00010000 08:01 456  /usr/lib/libgurobi.so
7f0000051000-7f0000052000 r--p 00000000 00:00 0
7ffd00000000-7ffd00002000 r-xp 00000000 00:00 0    [vdso]
"""

PRESENT, EXCLUSIVE = 1 << 63, 1 << 56


def _entries(*flags: int) -> bytes:
    return b"".join(struct.pack("<Q", f) for f in flags)


def test_only_private_writable_mappings_are_read() -> None:
    assert writable_private_mappings(MAPS) == [
        (0x55D0C0002000, 0x55D0C0004000),
        (0x55D0C1000000, 0x55D0C1100000),
        (0x7F0000020000, 0x7F0000040000),
    ]


def test_only_readonly_file_mappings_are_mapped_ahead() -> None:
    assert readonly_file_mappings(MAPS) == [
        (0x55D0C0000000, 0x55D0C0002000),
        (0x7F0000040000, 0x7F0000050000),
        (0x7F0000050000, 0x7F0000051000),
    ]


def test_present_runs_ignore_whether_a_page_is_shared() -> None:
    start = 0x7F0000000000
    runs = list(present_runs(start, _entries(PRESENT, PRESENT | EXCLUSIVE, 0, EXCLUSIVE, PRESENT)))
    assert runs == [(start, 2 * PAGE_SIZE), (start + 4 * PAGE_SIZE, PAGE_SIZE)]


@pytest.mark.parametrize(
    ("flags", "runs"),
    [
        ((), []),
        ((PRESENT | EXCLUSIVE,), [(0, 1)]),
        ((PRESENT, EXCLUSIVE, 0), []),
        ((PRESENT | EXCLUSIVE, PRESENT | EXCLUSIVE, PRESENT, PRESENT | EXCLUSIVE), [(0, 2), (3, 1)]),
        ((0, PRESENT | EXCLUSIVE, PRESENT | EXCLUSIVE), [(1, 2)]),
    ],
    ids=["empty", "one", "shared-or-absent", "two-runs", "run-to-the-end"],
)
def test_exclusive_runs_are_present_pages_mapped_once(flags: tuple[int, ...], runs: list[tuple[int, int]]) -> None:
    start = 0x7F0000000000
    expected = [(start + first * PAGE_SIZE, count * PAGE_SIZE) for first, count in runs]
    assert list(exclusive_runs(start, _entries(*flags))) == expected


@pytest.mark.parametrize(
    "spans",
    [((1, PAGE_SIZE),), ((0, PAGE_SIZE + 1),), ((0, 0),), ((PAGE_SIZE, PAGE_SIZE), (0, PAGE_SIZE)),
     ((0, 2 * PAGE_SIZE), (PAGE_SIZE, PAGE_SIZE))],
    ids=["unaligned-start", "partial-page", "empty-run", "unsorted", "overlapping"],
)
@pytest.mark.parametrize("field", ["spans", "mapped"])
def test_page_spans_refuse_what_is_not_sorted_whole_pages(spans: tuple[tuple[int, int], ...], field: str) -> None:
    with pytest.raises(ValidationError):
        PageSpans(**{field: spans})


def test_page_spans_count_pages() -> None:
    spans = PageSpans(spans=((0, PAGE_SIZE), (4 * PAGE_SIZE, 3 * PAGE_SIZE)), mapped=((0, 2 * PAGE_SIZE),))
    assert spans.pages == 4


def _in_child(body: Callable[[], int]) -> int:
    """Run ``body`` in a forked child and return the number it reports."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            os.write(write_fd, str(body()).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    try:
        return int(os.read(read_fd, 64))
    finally:
        os.close(read_fd)
        os.waitpid(pid, 0)


PAGES = 256


@pytest.fixture(scope="module")
def inherited() -> mmap.mmap:
    """Anonymous private memory the parent has written, so a child shares every page of it."""
    area = mmap.mmap(-1, PAGES * PAGE_SIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    for page in range(PAGES):
        area[page * PAGE_SIZE] = 1
    return area


def _address(area: mmap.mmap) -> int:
    return ctypes.addressof(ctypes.c_char.from_buffer(area))


def _faults_writing(area: mmap.mmap) -> int:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for page in range(PAGES):
        area[page * PAGE_SIZE] = 2
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_a_child_writing_inherited_pages_faults_on_each(inherited: mmap.mmap) -> None:
    assert _in_child(lambda: _faults_writing(inherited)) >= PAGES


def test_populated_pages_are_written_without_a_fault(inherited: mmap.mmap) -> None:
    spans = PageSpans(spans=((_address(inherited), PAGES * PAGE_SIZE),))

    def populated_then_written() -> int:
        assert populate(spans) == PAGES
        return _faults_writing(inherited)

    assert _in_child(populated_then_written) < PAGES // 8


@dataclass(frozen=True)
class MappedFile:
    area: mmap.mmap
    start: int


@pytest.fixture(scope="module")
def library_file(tmp_path_factory: pytest.TempPathFactory) -> MappedFile:
    """A read-only private mapping of a file, its pages in the page cache and in this process's
    page tables (read here); ``fork`` gives a child none of those page-table entries."""
    path = tmp_path_factory.mktemp("library") / "lib.so"
    path.write_bytes(bytes(range(256)) * (PAGES * PAGE_SIZE // 256))
    with open(path, "rb") as file:
        area = mmap.mmap(file.fileno(), PAGES * PAGE_SIZE, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
    assert sum(area[page * PAGE_SIZE] for page in range(PAGES)) == 0
    maps = Path("/proc/self/maps").read_text()
    (start,) = [int(line.split("-")[0], 16) for line in maps.splitlines() if line.endswith(str(path))]
    assert (start, start + PAGES * PAGE_SIZE) in readonly_file_mappings(maps)
    return MappedFile(area, start)


def _present_pages(start: int) -> int:
    """Pages of the range this process has page-table entries for (its own pagemap)."""
    with open("/proc/self/pagemap", "rb", buffering=0) as pagemap:
        entries = os.pread(pagemap.fileno(), PAGES * 8, start // PAGE_SIZE * 8)
    return sum(length for _, length in present_runs(start, entries)) // PAGE_SIZE


def test_a_forked_child_has_no_entries_for_the_file_pages_it_inherits(library_file: MappedFile) -> None:
    assert _present_pages(library_file.start) == PAGES
    assert _in_child(lambda: _present_pages(library_file.start)) == 0


def test_mapped_ahead_file_pages_are_in_the_childs_page_tables(library_file: MappedFile) -> None:
    spans = PageSpans(mapped=((library_file.start, PAGES * PAGE_SIZE),))

    def mapped() -> int:
        assert populate(spans) == PAGES
        return _present_pages(library_file.start)

    assert _in_child(mapped) == PAGES


def test_the_pages_a_child_wrote_are_read_from_outside_it(inherited: mmap.mmap) -> None:
    """What the executor does with the probe: read another process's pagemap while it waits."""
    start = _address(inherited)
    ready_r, ready_w = os.pipe()
    release_r, release_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            for page in range(0, PAGES, 2):
                inherited[page * PAGE_SIZE] = 3
            os.write(ready_w, b"1")
            os.read(release_r, 1)
        finally:
            os._exit(0)
    try:
        assert os.read(ready_r, 1) == b"1"
        assert host_pid(os.getpid(), pid) == pid
        spans = probed_spans(pid)
    finally:
        os.write(release_w, b"1")
        os.waitpid(pid, 0)
        for fd in (ready_r, ready_w, release_r, release_w):
            os.close(fd)
    written = {
        (address - start) // PAGE_SIZE
        for first, length in spans.spans
        for address in range(first, first + length, PAGE_SIZE)
        if start <= address < start + PAGES * PAGE_SIZE
    }
    assert written == set(range(0, PAGES, 2))


def test_no_process_of_that_pid_in_the_tree_is_none() -> None:
    assert host_pid(os.getpid(), 2**22 + 17) is None

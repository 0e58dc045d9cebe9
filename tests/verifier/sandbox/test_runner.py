"""The supervisor's between-jobs cleanup: the scratch wipe, and leftovers that must not reach the next job."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from vrpcoder.samples import Sample
from vrpcoder.verification import VerifyConfig
from vrpcoder_verifier.sandbox import SandboxExecutor
from vrpcoder_verifier.sandbox.runner import ScratchBaseline, scratch_problems, wipe_scratch, wipe_tree

CONFIG = VerifyConfig(time_limit=10.0)


def _populate(root: Path) -> None:
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "deep.txt").write_text("x")
    (root / "top.txt").write_text("y")
    (root / "link").symlink_to("/etc/hostname")
    locked = root / "locked"
    locked.mkdir()
    (locked / "inside.txt").write_text("z")
    locked.chmod(0)


def test_wipe_tree_removes_everything_a_job_can_leave(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    _populate(scratch)
    wipe_tree(str(scratch), scratch.lstat().st_dev)
    assert list(scratch.iterdir()) == []
    assert Path("/etc/hostname").exists()


def test_wipe_tree_removes_a_tree_deeper_than_path_max(tmp_path: Path) -> None:
    start = os.getcwd()
    os.chdir(tmp_path)
    try:
        for level in range(1200):
            os.mkdir("d")
            os.chdir("d")
            if level % 100 == 0:
                Path("f").write_text("x")
    finally:
        os.chdir(start)
    wipe_tree(str(tmp_path), tmp_path.lstat().st_dev)
    assert list(tmp_path.iterdir()) == []
    assert os.getcwd() == start


def test_wipe_tree_of_an_empty_or_missing_directory_does_nothing(tmp_path: Path) -> None:
    wipe_tree(str(tmp_path), tmp_path.lstat().st_dev)
    wipe_tree(str(tmp_path / "missing"), tmp_path.lstat().st_dev)
    assert tmp_path.exists()


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap for a mount of its own")
def test_wipe_tree_never_enters_a_filesystem_mounted_inside_the_scratch(tmp_path: Path) -> None:
    """As on CI, where the checkout under /tmp is bound into the sandbox's /tmp: its files stay."""
    outer = tmp_path / "outer"
    (outer / "mounted").mkdir(parents=True)
    script = textwrap.dedent(
        f"""
        import os
        from pathlib import Path
        from vrpcoder_verifier.sandbox.runner import ScratchBaseline, scratch_problems, wipe_scratch, wipe_tree
        outer = Path({str(outer)!r})
        (outer / "mounted" / "kept.txt").write_text("bound file")
        (outer / "plain.txt").write_text("job file")
        wipe_tree(str(outer), outer.lstat().st_dev)
        print(sorted(str(p.relative_to(outer)) for p in outer.rglob("*")))
        """
    )
    done = subprocess.run(
        ["bwrap", "--dev-bind", "/", "/", "--tmpfs", str(outer / "mounted"), sys.executable, "-c", script],
        capture_output=True, text=True, timeout=60, check=False,
    )
    if done.returncode != 0 and "Operation not permitted" in done.stderr:
        pytest.skip(f"bubblewrap cannot mount here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['mounted', 'mounted/kept.txt']"


MARK_NS = 4242424242424242424
"""A time a job might stamp on the scratch root for the next one to read."""


def _scratch_root(tmp_path: Path) -> Path:
    """A directory standing in for the sandbox's /tmp: mode 1777, as bubblewrap makes it."""
    root = tmp_path / "scratch"
    root.mkdir()
    root.chmod(0o1777)
    return root


def _user_xattrs_or_skip(path: Path) -> None:
    try:
        os.setxattr(path, "user.probe", b"1")
        os.removexattr(path, "user.probe")
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
            pytest.skip(f"this filesystem refuses user. extended attributes ({exc.strerror})")
        raise


def test_the_wipe_puts_back_the_mode_and_times_of_the_scratch_root(tmp_path: Path) -> None:
    """A job (owning the root, unprivileged) leaves its mode and times changed: the next job must
    find neither, and the clean check must agree."""
    root = _scratch_root(tmp_path)
    baseline = ScratchBaseline.record(str(root))
    before = root.lstat()
    (root / "job").mkdir()
    (root / "job" / "left.txt").write_text("x")
    root.chmod(0o1775)
    os.utime(root, ns=(MARK_NS, MARK_NS))
    assert any("mode 0o1775" in problem for problem in scratch_problems(baseline))

    wipe_scratch(baseline)

    after = root.lstat()
    assert list(root.iterdir()) == []
    assert after.st_mode & 0o7777 == 0o1777
    assert (after.st_atime_ns, after.st_mtime_ns) == (before.st_atime_ns, before.st_mtime_ns)
    assert scratch_problems(baseline) == []


def test_the_wipe_unlocks_a_scratch_root_locked_to_000(tmp_path: Path) -> None:
    """Locked to 000, the root could be neither entered nor emptied by its (unprivileged) owner:
    the wipe gives it its mode back first, then empties it."""
    root = _scratch_root(tmp_path)
    baseline = ScratchBaseline.record(str(root))
    (root / "left_behind.txt").write_text("a file the wipe must remove")
    root.chmod(0)

    wipe_scratch(baseline)

    assert root.lstat().st_mode & 0o7777 == 0o1777
    assert list(root.iterdir()) == []
    assert scratch_problems(baseline) == []


def test_the_wipe_removes_extended_attributes_set_on_the_scratch_root(tmp_path: Path) -> None:
    """``os.setxattr('/tmp', 'user.next_job', ...)``: the attribute goes, together with a changed
    mode; one the root had before any job (a security label, say) stays, with its own value."""
    root = _scratch_root(tmp_path)
    _user_xattrs_or_skip(root)
    os.setxattr(root, "user.from_start_up", b"kept")
    baseline = ScratchBaseline.record(str(root))
    os.setxattr(root, "user.next_job", b"hello from an earlier job")
    os.setxattr(root, "user.from_start_up", b"overwritten by a job")
    root.chmod(0o1775)
    problems = scratch_problems(baseline)
    assert any("extended attributes" in problem for problem in problems), problems
    assert any("mode" in problem for problem in problems), problems

    wipe_scratch(baseline)

    assert os.listxattr(root) == ["user.from_start_up"]
    assert os.getxattr(root, "user.from_start_up") == b"kept"
    assert root.lstat().st_mode & 0o7777 == 0o1777
    assert scratch_problems(baseline) == []


def test_a_scratch_root_with_another_mode_is_not_clean(tmp_path: Path) -> None:
    """The check compares the root's mode with the one recorded at start-up (whoever we are: as
    root, mode 000 stops no read, so this is what catches a root the wipe could not unlock)."""
    root = _scratch_root(tmp_path)
    baseline = ScratchBaseline.record(str(root))
    root.chmod(0)
    try:
        assert f"{root}: mode 0o0, not 0o1777" in scratch_problems(baseline)
    finally:
        root.chmod(0o1777)


def test_a_scratch_that_cannot_be_read_is_not_clean(tmp_path: Path) -> None:
    """A root whose listing fails is unknown, not empty (the old check read it as empty, so clean):
    here it fails for good, as a directory gone and then a non-directory in its place."""
    root = _scratch_root(tmp_path)
    baseline = ScratchBaseline.record(str(root))
    root.rmdir()
    assert scratch_problems(baseline) == ["cannot be read: No such file or directory", f"{root}: gone"]
    root.write_text("not a directory")
    assert scratch_problems(baseline)[0] == "cannot be read: Not a directory"


@pytest.mark.skipif(os.geteuid() == 0, reason="as root, permission bits do not stop a directory's listing")
def test_a_scratch_root_its_owner_cannot_list_is_not_clean(tmp_path: Path) -> None:
    """Unprivileged, mode 000 makes the listing fail: that reads as not clean, never as empty."""
    root = _scratch_root(tmp_path)
    baseline = ScratchBaseline.record(str(root))
    (root / "hidden.txt").write_text("x")
    root.chmod(0)
    try:
        problems = scratch_problems(baseline)
        assert problems and problems[0].startswith("cannot be read"), problems
    finally:
        root.chmod(0o1777)


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap for a mount of its own")
def test_the_directories_holding_mount_points_get_their_marks_back(tmp_path: Path) -> None:
    """The directories bubblewrap makes to hold binds under /tmp cannot be deleted either: their
    mode (and extended attributes) go back as the root's do, and the bound files stay."""
    outer = tmp_path / "outer"
    (outer / "holder" / "mounted").mkdir(parents=True)
    (outer / "holder").chmod(0o755)
    script = textwrap.dedent(
        f"""
        import errno, os
        from pathlib import Path
        from vrpcoder_verifier.sandbox.runner import ScratchBaseline, scratch_problems, wipe_scratch
        outer = Path({str(outer)!r})
        holder = outer / "holder"
        (holder / "mounted" / "kept.txt").write_text("bound file")
        baseline = ScratchBaseline.record(str(outer))
        (holder / "job.txt").write_text("job file")
        holder.chmod(0o700)
        try:
            os.setxattr(holder, "user.next_job", b"x")
        except OSError as exc:
            if exc.errno not in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
                raise
        print("before", scratch_problems(baseline) != [])
        wipe_scratch(baseline)
        print("after", scratch_problems(baseline), oct(holder.lstat().st_mode & 0o7777), os.listxattr(holder))
        print(sorted(str(p.relative_to(outer)) for p in outer.rglob("*")))
        """
    )
    done = subprocess.run(
        ["bwrap", "--dev-bind", "/", "/", "--tmpfs", str(outer / "holder" / "mounted"), sys.executable, "-c", script],
        capture_output=True, text=True, timeout=60, check=False,
    )
    if done.returncode != 0 and "Operation not permitted" in done.stderr:
        pytest.skip(f"bubblewrap cannot mount here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "before True",
        "after [] 0o755 []",
        "['holder', 'holder/mounted', 'holder/mounted/kept.txt']",
    ]


def test_the_next_job_finds_no_file_of_the_previous_one(executor: SandboxExecutor, cvrp: Sample) -> None:
    """Job 1 leaves files, nested and locked directories in its scratch; job 2 sees none of them
    (and the supervisor's deferred reaping leaves it nothing else to find either)."""
    leave = cvrp.gold_code + textwrap.dedent(
        """
        import os as _os
        _os.makedirs("left/deeper", exist_ok=True)
        open("left/deeper/file.txt", "w").write("previous")
        open("/tmp/top-level.txt", "w").write("previous")
        _os.chmod("left", 0)
        """
    )
    assert executor.execute(leave, cvrp, CONFIG).verdict.passed
    look = cvrp.gold_code.replace(
        "def build_model(",
        "import os as _os\n"
        "_found = sorted(_os.listdir('/tmp')) + sorted(_os.listdir('.'))\n"
        "print('FOUND', _found)\n"
        "def build_model(",
        1,
    )
    record = executor.execute(look, cvrp, CONFIG)
    assert record.verdict.passed
    found = next(line for line in record.output.splitlines() if line.startswith("FOUND"))
    assert "left" not in found and "top-level.txt" not in found


def test_a_tree_deeper_than_path_max_is_wiped_before_the_next_job(
    executor: SandboxExecutor, cvrp: Sample
) -> None:
    """Paths past PATH_MAX cannot be removed by name; the wipe walks down by bare names, so the
    tree goes and the next job, in the same warm sandbox, never sees it."""
    deep = cvrp.gold_code + textwrap.dedent(
        """
        import os as _os
        _start = _os.getcwd()
        for _ in range(2200):
            _os.mkdir("deep")
            _os.chdir("deep")
        _os.chdir(_start)
        """
    )
    assert executor.execute(deep, cvrp, CONFIG).verdict.passed
    look = cvrp.gold_code.replace(
        "def build_model(",
        "import os as _os\nprint('FOUND', sorted(_os.listdir('.')), sorted(_os.listdir('/tmp')))\ndef build_model(",
        1,
    )
    record = executor.execute(look, cvrp, CONFIG)
    assert record.verdict.passed, record.verdict.error
    assert record.warm
    found = next(line for line in record.output.splitlines() if line.startswith("FOUND"))
    assert "deep" not in found

"""The supervisor's between-jobs cleanup: the scratch wipe, and leftovers that must not reach the next job."""

from __future__ import annotations

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
from vrpcoder_verifier.sandbox.runner import wipe_tree

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
        from vrpcoder_verifier.sandbox.runner import wipe_tree
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

"""The README's quick starts, run exactly as written against a private stack, and its other promises.

A quick start that drifts from the product fails its first reader, so the blocks marked
``<!-- quickstart:stack -->``, ``<!-- quickstart:bash -->`` and ``<!-- quickstart:python -->`` are
taken from README.md verbatim and executed: the stack block (``vrpcoder verifier up``: a real
``redis-server``, the API and workers that run candidates in the bubblewrap sandbox) in the
background until it prints ``ready``, then the two examples with the variables it prints, which must
be the line the README has the reader export. They run in a scratch folder with ``.venv`` linked in,
so ``.venv/bin/...`` resolves as it does from the repository root and ``quickstart/`` lands there.

The README also promises CI's exact test command and a map of every ``vrpcoder`` command; both are
held to the real ``.ci/run`` and the real command tree.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO
from pathlib import Path

import pytest
import typer
from vrpcoder_client import VerifierClient
from vrpcoder_verifier.sandbox import sandbox_status

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
VENV = Path(sys.executable).parent.parent
QUICKSTART = re.compile(r"<!-- quickstart:(?P<lang>\w+) -->\n```(?:bash|python)\n(?P<code>.*?)```", re.S)


def quickstart_blocks() -> list[tuple[str, str]]:
    """(language, code) of every marked quick-start block, in README order."""
    return [(m["lang"], m["code"]) for m in QUICKSTART.finditer(README.read_text(encoding="utf-8"))]


def prose(text: str) -> str:
    """Markdown with its line breaks folded, as a reader sees a paragraph."""
    return re.sub(r"\s+", " ", text)


def test_the_readme_marks_the_stack_and_one_bash_and_one_python_quick_start() -> None:
    assert [lang for lang, _ in quickstart_blocks()] == ["stack", "bash", "python"]
    markers = README.read_text(encoding="utf-8").count("<!-- quickstart:")
    assert markers == 3, "a marker without a block after it"


@dataclass(frozen=True)
class Reader:
    """The scratch folder that looks like the repository root, and the second terminal's environment."""

    folder: Path
    env: dict[str, str]
    export_line: str


def _wait_for_ready(process: subprocess.Popen[str], timeout: float) -> list[str]:
    """The stack's stdout up to its ``ready`` line (a stack that exits or stalls fails the test).
    A thread reads the lines, since a buffered pipe hides lines already read from ``select``."""
    assert process.stdout is not None
    lines: queue.Queue[str | None] = queue.Queue()

    def pump(stream: IO[str]) -> None:
        for line in iter(stream.readline, ""):
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=pump, args=(process.stdout,), daemon=True).start()
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            line = lines.get(timeout=left)
        except queue.Empty:
            break
        if line is None:
            break
        seen.append(line)
        if line.startswith("ready"):
            return seen
    pytest.fail(f"the README's stack did not print ready within {timeout:.0f} s: {seen}")


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Reader]:
    """The README's stack block running in the background, as written, until the module ends."""
    status = sandbox_status()
    missing = None if status.available else f"no sandbox on this host: {status.detail}"
    if shutil.which("curl") is None:
        missing = "no curl on this host (.ci/run installs it)"
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the README's quick start for real: {missing}")
        pytest.skip(missing)
    folder = tmp_path_factory.mktemp("reader")
    (folder / ".venv").symlink_to(VENV, target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("VRPCODER_VERIFIER_")}
    (_, stack_code), *_ = quickstart_blocks()
    process = subprocess.Popen(["bash", "-euo", "pipefail", "-c", stack_code], cwd=folder, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        lines = _wait_for_ready(process, timeout=120)
        export_line = next(line for line in lines if line.startswith("export "))
        exported = dict(pair.split("=", 1) for pair in export_line.removeprefix("export ").split())
        with VerifierClient(exported["VRPCODER_VERIFIER_URL"], exported["VRPCODER_VERIFIER_TOKEN"]) as client:
            workers = client.ready().workers
        assert [w.sandbox.mechanism for w in workers] == ["bubblewrap"] * 2, workers
        yield Reader(folder, {**env, **exported}, export_line)
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise
    assert process.returncode == 0, f"Ctrl-C should stop the stack cleanly, not with status {process.returncode}"


def test_the_stack_prints_the_line_the_readme_has_the_reader_export(reader: Reader) -> None:
    assert f"```bash\n{reader.export_line}\n```" in README.read_text(encoding="utf-8")


def run_block(lang: str, code: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run one block as the reader would: bash stopping at the first failure, or the venv's Python."""
    interpreter = ["bash", "-euo", "pipefail"] if lang == "bash" else [str(VENV / "bin" / "python")]
    done = subprocess.run([*interpreter, "-c", code], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, f"the {lang} quick start failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def curl_answer(reader: Reader) -> str:
    """What curl printed: the block's last line (``samples build`` prints its table before it)."""
    _, (lang, code), _ = quickstart_blocks()
    return run_block(lang, code, reader.folder, reader.env).stdout.rstrip().splitlines()[-1]


def test_the_curl_quick_start_gets_the_gold_scripts_full_reward(curl_answer: str) -> None:
    answer = json.loads(curl_answer)
    assert answer["state"] == "finished"
    assert answer["reward"] == 1.0
    verdict = answer["verdict"]
    assert verdict["passed"] and verdict["diff"] and verdict["failed_checks"] == []
    assert len(verdict["probes"]) >= 2, "the sample's probes were asked"
    assert verdict["costs"] and all(check["passed"] for check in verdict["costs"])
    assert curl_answer.endswith('"reward":1.0}'), "the README says the answer ends with the reward"


def test_the_python_quick_start_tells_the_gold_script_from_one_that_drops_a_rule(
    reader: Reader, curl_answer: str
) -> None:
    _, _, (lang, code) = quickstart_blocks()
    lines = run_block(lang, code, reader.folder, reader.env).stdout.splitlines()
    assert lines == [
        "gold: reward 1.0, DIFF passed True, failed []",
        "no fleet limit: reward 0.94, DIFF passed True, failed ['inj:route_structure']",
    ]
    text = prose(README.read_text(encoding="utf-8"))
    assert "`gold: reward 1.0, DIFF passed True, failed []`" in text
    assert "`reward 0.94, DIFF passed True, failed ['inj:route_structure']`" in text


def test_the_readme_gives_the_test_command_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    calls = re.findall(r"^(make test\b[^|>\n]*?)\s*(?:2>&1|\||$)", ci, re.M)
    assert len(calls) == 1, f".ci/run should call make test once, found {calls}"
    readme = README.read_text(encoding="utf-8")
    assert f"`{calls[0]}`" in readme, f"the README should quote CI's command {calls[0]!r}"
    setup = re.search(r"## Set-up\n.*?```bash\n(?P<code>.*?)```", readme, re.S)
    assert setup is not None
    commands = [line.split("#")[0].strip() for line in setup["code"].splitlines()]
    assert commands == ["make run", "make test"]


def _command_paths(command: object, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every leaf of the command tree (Typer vendors its own click, so groups are told by their
    ``commands``); a group without subcommands, such as ``loop``, is a command itself."""
    subcommands: dict[str, object] = getattr(command, "commands", None) or {}
    if not subcommands:
        yield prefix
    for name, sub in subcommands.items():
        yield from _command_paths(sub, (*prefix, name))


def test_the_command_map_lists_every_command() -> None:
    from vrpcoder import cli

    cli._register_service_commands()
    paths = sorted(" ".join(path) for path in _command_paths(typer.main.get_command(cli.app)))
    readme = README.read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| `vrpcoder ([a-z -]+)` \|", readme, re.M))
    assert set(paths) == rows

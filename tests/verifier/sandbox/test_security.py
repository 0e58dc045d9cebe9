"""The security suite: hostile candidates against the real sandbox, each followed by a good one.

Every hostile script must end with the error kind in its row (or, where the attempt simply fails
inside the sandbox, a normal passing verdict with the side effect absent), never with a forged
pass, and the same executor must then still verify the gold script correctly.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from vrpcoder.errors import ErrorKind
from vrpcoder.gold import render_gold
from vrpcoder.samples import Sample
from vrpcoder.verification import VerifyConfig
from vrpcoder_verifier.sandbox import ExecutionRecord, SandboxExecutor

from tests.verifier.sandbox.support import SMALL, compose, requires_bwrap

pytestmark = requires_bwrap

CONFIG = VerifyConfig(time_limit=10.0)
REPO_ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Case:
    script: str
    kind: ErrorKind | None
    """None: the attack fails harmlessly inside the sandbox and the gold model passes."""
    output: str = ""
    """Text the script prints once its attempt has failed (proof the attempt was made)."""
    hang: bool = False
    harmless_possible: bool = False
    """The attack may also simply fail: a correct pass of the gold model is then the true verdict."""


CASES = [
    Case("net_dns", ErrorKind.SANDBOX_VIOLATION, "network blocked"),
    Case("net_redis", ErrorKind.SANDBOX_VIOLATION, "redis unreachable"),
    Case("read_shadow", None, "shadow unreadable"),
    Case("fork_bomb", ErrorKind.SANDBOX_VIOLATION, "fork refused after"),
    Case("thread_bomb", ErrorKind.SANDBOX_VIOLATION, "thread refused after"),
    Case("memory_bomb", ErrorKind.MEMORY_LIMIT),
    Case("infinite_loop", ErrorKind.TIMEOUT, hang=True),
    Case("sleep_forever", ErrorKind.TIMEOUT, hang=True),
    Case("stdout_flood", ErrorKind.OUTPUT_LIMIT, "xxxx"),
    Case("subprocess_shell", ErrorKind.SANDBOX_VIOLATION),
    Case("os_system", ErrorKind.SANDBOX_VIOLATION),
    Case("ctypes_libc", ErrorKind.SANDBOX_VIOLATION),
    Case("kill_parent", ErrorKind.SANDBOX_VIOLATION),
    Case("forge_stdout", ErrorKind.NO_ROUTING_VARIABLE, "VERDICT: passed"),
    Case("forge_fds", ErrorKind.SANDBOX_VIOLATION),
    Case("patch_gurobi", ErrorKind.SANDBOX_VIOLATION),
    Case("shadow_status", ErrorKind.SANDBOX_VIOLATION),
    Case("exit_early", ErrorKind.BUILD_ERROR),
    Case("disk_fill", None, "errno 28"),
    Case("raise_rlimits", None, "stays"),
    Case("proc_other", ErrorKind.SANDBOX_VIOLATION, "no /proc"),
    Case("proc_self_mem", ErrorKind.SANDBOX_VIOLATION),
    Case("gc_introspection", ErrorKind.SANDBOX_VIOLATION),
    Case("frame_walk", ErrorKind.NO_ROUTING_VARIABLE, "no sample in reach"),
    Case("native_module", ErrorKind.SANDBOX_VIOLATION),
    # Red-team round 2: Gurobi's own files and parameters, signals, callbacks, finalizers, the
    # interpreter's global state, limits lowered under the verifier, leftovers for the next job.
    Case("gurobi_params", None, "threads after the cap: 1"),
    Case("huge_model", ErrorKind.MEMORY_LIMIT, "adding 10^8 variables"),
    Case("dispose_default_env", None, "default environment disposed"),
    Case("modified_after_optimize", ErrorKind.SOLVER_STATUS, "modified after optimize"),
    Case("duck_model", ErrorKind.NOT_A_MODEL, "returning a duck"),
    Case("model_subclass", ErrorKind.SANDBOX_VIOLATION, "returning a Model subclass"),
    Case("callback_exit", ErrorKind.BUILD_ERROR, "optimized with a callback that exits under INJ"),
    Case("callback_sleep", ErrorKind.TIMEOUT, "optimized with a callback that sleeps under INJ", hang=True),
    Case("ignore_sigxcpu", ErrorKind.TIMEOUT, "signals ignored", hang=True),
    # A replaced stdout is put back once the build is over, so a hang in it never comes.
    Case("hanging_stdout", None, "stdout is about to hang"),
    Case("atexit_sleep", None, "exit handlers registered"),
    Case("del_raises", None, "bombs planted"),
    Case("deep_recursion", ErrorKind.BUILD_ERROR, "recursing"),
    Case("thread_tamper", ErrorKind.SANDBOX_VIOLATION, "tampering thread started"),
    Case("writer_daemon", ErrorKind.SANDBOX_VIOLATION, "writer daemon detached"),
    Case("new_session", None, "nice 19"),
    Case("kill_everyone", ErrorKind.SANDBOX_VIOLATION),
    Case("abstract_socket", ErrorKind.SANDBOX_VIOLATION, "unreachable"),
    Case("plant_for_next_job", None, "files for the next job"),
    Case("replace_modules", ErrorKind.SANDBOX_VIOLATION, "modules replaced"),
    Case("patch_builtins", ErrorKind.SANDBOX_VIOLATION, "builtins patched"),
    Case("warnings_as_errors", None, "warnings are errors now"),
    Case("lower_rlimits", None, "no more descriptors"),
    # No thread can be started for the verifier's queries once the limit is cut, so the job ends
    # out of memory (where the build's last allocations fail first, so does the build).
    Case("lower_memory", ErrorKind.MEMORY_LIMIT, "address space cut to the bone"),
    Case("gurobi_write_outside", None, "gurobi write refused /etc/pwned.lp"),
    Case("dirfd_write_outside", None, "dir_fd write refused in /"),
    Case("fake_size_limit", ErrorKind.BUILD_ERROR, "raising a home-made GurobiError 10010"),
    # A candidate's own act must not read as our fault (an infrastructure verdict: no reward at all).
    Case("forge_crash_report", ErrorKind.SANDBOX_VIOLATION),
    Case("exit_crash_code", ErrorKind.BUILD_ERROR, "leaving with status 88"),
    Case("callback_exit_code", ErrorKind.BUILD_ERROR, "exits 88 under INJ"),
    Case("recursion_limit", ErrorKind.BUILD_ERROR, "recursion limit lowered"),
    Case("evil_id2idx", ErrorKind.INDEX_MISMATCH, "booby-trapped id2idx"),
    Case("disposed_model", ErrorKind.NOT_A_MODEL),
    # Interpreter state armed during the build is put back before the verifier runs.
    Case("starve_sample_pipe", None, "made non-blocking"),
    # Signal handlers can only be set from the main thread, and build_model runs off it.
    Case("signal_in_verify", ErrorKind.BUILD_ERROR, "timer armed"),
    Case("patch_and_restore", ErrorKind.BUILD_ERROR, "timer armed"),
    # Red-team round 3: the start logic, the report channel and the child's last steps.
    Case("forge_frames", ErrorKind.SANDBOX_VIOLATION),
    Case("flush_exit", None, "stdout will leave with status 88"),
    Case("callback_terminate", ErrorKind.SOLVER_STATUS, "optimized with a callback that terminates INJ"),
    Case("sigmask_loop", ErrorKind.TIMEOUT, "every signal blocked", hang=True),
    # Round 3 holes, closed: the verifier patched from the candidate's stream flush, from inside the
    # integrity check, by a swapped __code__, mid-verification and put back, from an audit hook of
    # its own, and a standard function replaced so that the verifier's failure looks like ours.
    Case("flush_forge", ErrorKind.NO_ROUTING_VARIABLE, "stdout replaced"),
    Case("guard_key", ErrorKind.SANDBOX_VIOLATION, "booby-trapped attribute key planted"),
    Case("code_swap", ErrorKind.SANDBOX_VIOLATION),
    Case("restore_in_verify", ErrorKind.SANDBOX_VIOLATION, "id2idx is a booby-trapped dict"),
    Case("audit_rearm", ErrorKind.SANDBOX_VIOLATION),
    Case("blame_us", ErrorKind.SANDBOX_VIOLATION, "perf_counter replaced"),
    Case("forge_build_failed", ErrorKind.SANDBOX_VIOLATION),  # killed at once: its print may not come
    Case("callback_base_exception", ErrorKind.BUILD_ERROR),
    # Red-team round 4: the objects the verifier touches on its own thread, what the isolation's
    # trampoline still leads to, Gurobi state the verifier reads unguarded, the scratch root itself.
    Case("callback_dispose", ErrorKind.SANDBOX_VIOLATION, "disposes of the model under INJ"),  # a SIGSEGV
    Case("pidfd_kill_parent", ErrorKind.SANDBOX_VIOLATION),  # the supervisor dies with the job's output
    # Unprivileged, the wipe unlocks and cleans the root and the next job passes in the same sandbox;
    # as root the chmod is refused.
    Case("scratch_root_lock", None, "scratch root lock"),
    # Its marks on /tmp (xattr, mode, times) are put back by the wipe (test_runner shows it, unprivileged).
    Case("scratch_root_marks", None, "left on the scratch root"),
    # The objects the verifier reads of the script (its node table, its Python x, the model's
    # outcome and names) are read during the build, on the candidate's thread: a booby-trapped
    # id2idx once ran on the verifier's thread and forged a pass (or blamed us for its crash).
    Case("verifier_thread_rewire", ErrorKind.SOLVER_STATUS, "id2idx is a booby-trapped dict"),
    Case("verifier_thread_dispose", ErrorKind.NOT_A_MODEL, "id2idx keys are booby-trapped"),
    Case("multiobj_solution_number", None, "multi-objective model solved"),
    Case("non_utf8_name", ErrorKind.NOT_A_MODEL, "non-UTF-8 name"),
    # A refusal of the licence counts only for the returned model or the failure it caused.
    Case("throwaway_size_limit", ErrorKind.NO_ROUTING_VARIABLE, "caught"),
    # Red-team round 5: code of the candidate's that still runs on the verifier's thread after the
    # build (through Python's logging, the model's instance dict written from a callback, objects
    # the verifier's thread drops, unwatched standard modules) and a name read there unguarded.
    # A None handle planted by the callback reads as a freed model, as it should.
    Case("callback_null_handle", ErrorKind.NOT_A_MODEL, "handle set to None under INJ"),
    # Fixed: the logging configuration is put back after every call of the candidate's code; the
    # model's shape is checked after every call; every object the candidate's code could reach
    # lives until the process ends; abc, random, logging and pydantic's metaclass are watched, and
    # no namespace written during a call is used before a check written without any lookup.
    Case("log_handler_forge", ErrorKind.SOLVER_STATUS, "a handler sits on the gurobipy logger"),
    Case("callback_shadow_forge", ErrorKind.SANDBOX_VIOLATION, "plants a helper on the model under INJ"),
    Case("slot_finalizer", ErrorKind.SANDBOX_VIOLATION, "planted in the hand-back slot"),
    Case("guarded_finalizer", ErrorKind.SOLVER_STATUS, "hangs a finalizer on the verifier's wrapper"),
    Case("shuffle_patch", ErrorKind.SANDBOX_VIOLATION, "random.Random.shuffle replaced"),
    Case("abc_instancecheck", ErrorKind.SANDBOX_VIOLATION, "abc.ABCMeta.__instancecheck__ replaced"),
    Case("non_utf8_objective_name", ErrorKind.NOT_A_MODEL, "non-UTF-8 objective name", harmless_possible=True),
    # Red-team round 6: what the per-call check does not compare. No watched namespace is written
    # by defining subclasses of ABCs with a metaclass of the script's own; the verifier makes no
    # negative isinstance against them on its own thread (the honest failure stands).
    Case("abc_subclass_hook", ErrorKind.SOLVER_STATUS, "subclasses with a hostile metaclass defined"),
    # Closed: a name added to a watched module's globals that shadows a built-in its code uses, and
    # a cached_property's own state, once ran the candidate's code on the verifier's thread (a
    # forged pass with reward 1.0); the per-call check now compares both.
    Case("module_global_shadow", ErrorKind.SANDBOX_VIOLATION, "all added to vrpcoder.verification's globals"),
    Case("descriptor_state", ErrorKind.SANDBOX_VIOLATION, "RoutingVariable._by_arc's func replaced"),
    # Red-team round 7: an exception class named by a str subclass. type.__name__ accepts any str
    # instance; Escaped carries type(exc).__name__ as it is, and the child formats it on its own
    # thread after the per-call check (_build_phase's "build_model() raised {...}"): the
    # subclass's __format__ ran there, rebuilt the gold model and sent its honest verdict (reward 1.0).
    # Closed: an exception class named by a str subclass of the candidate's; its name was formatted
    # on the verifier's thread (a forged pass). What comes back from a call is now exact str.
    Case("escaped_name_format", ErrorKind.BUILD_ERROR, "raising a BaseException whose class name is a str subclass"),
    # The same name from a KeyboardInterrupt raised by the callback under INJ does not reach the
    # child's formatting (the queries end in errors; the honest failure stands).
    Case("escaped_name_callback", ErrorKind.SOLVER_STATUS, "callback armed with a KeyboardInterrupt"),
]


def _assert_contained(record: ExecutionRecord, case: Case) -> None:
    verdict = record.verdict
    detail = verdict.error.detail if verdict.error else ""
    assert "ESCAPED" not in detail
    if case.kind is None or (case.harmless_possible and verdict.error is None):
        assert verdict.error is None, detail
        assert verdict.passed
    else:
        assert verdict.error is not None and verdict.error.kind is case.kind, (verdict.error, record.output[-500:])
        assert not verdict.passed
        assert verdict.reward is not None
        assert verdict.reward == 0.0 if not verdict.build else verdict.reward < 1.0
    assert case.output in record.output


def _assert_still_usable(executor: SandboxExecutor, sample: Sample) -> None:
    good = executor.verify(sample.gold_code, sample, CONFIG)
    assert good.passed and good.error is None, good.error


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.script)
def test_hostile_script_is_contained(
    case: Case,
    executor: SandboxExecutor,
    hang_executor: SandboxExecutor,
    hostile_code: Callable[..., str],
    cvrp: Sample,
) -> None:
    running = hang_executor if case.hang else executor
    record = running.execute(hostile_code(case.script), cvrp, CONFIG)
    _assert_contained(record, case)
    _assert_still_usable(running, cvrp)


@pytest.mark.parametrize("route", ["build", "callback", "stdout", "finalizer"])
def test_the_verifiers_frames_are_out_of_the_candidates_reach(
    route: str, executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample
) -> None:
    """A broken model whose code walks up the stack to rewire the report writer: from its build,
    its callback during INJ, a replaced stdout or a finalizer. Every route once forged a full
    reward; the candidate's code now runs on threads of its own and finds nothing to rewire."""
    record = executor.execute(hostile_code("frame_walk_forge", ROUTE=repr(route)), cvrp, CONFIG)
    assert f"attempt made from {route}" in record.output
    assert "rewired" not in record.output
    verdict = record.verdict
    assert (verdict.error, verdict.diff, verdict.passed) == (None, False, False), verdict.error
    assert verdict.objective is not None and verdict.objective > verdict.reference_objective
    assert verdict.reward is not None and verdict.reward < 1.0
    _assert_still_usable(executor, cvrp)


def test_fork_bomb_stops_at_the_process_limit(executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample) -> None:
    record = executor.execute(hostile_code("fork_bomb"), cvrp, CONFIG)
    children = int(re.search(r"fork refused after (\d+) children", record.output).group(1))  # type: ignore[union-attr]
    assert 0 < children < SMALL.max_processes


def test_flooded_output_is_capped(executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample) -> None:
    record = executor.execute(hostile_code("stdout_flood"), cvrp, CONFIG)
    assert len(record.output.encode()) <= SMALL.max_output_bytes
    assert record.output_bytes > SMALL.output_flood_bytes
    assert record.output_truncated


def test_raised_limits_stay_where_they_were(executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample) -> None:
    record = executor.execute(hostile_code("raise_rlimits"), cvrp, CONFIG)
    limit = SMALL.memory_mb * 1024 * 1024
    assert f"address space now ({limit}, {limit})" in record.output
    assert "RAISED" not in record.output


def test_other_jobs_and_repository_files_are_invisible(
    executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample, tmp_path: Path
) -> None:
    other_job = tmp_path / "other-job-result.json"
    other_job.write_text('{"secret": "another job"}')
    targets = [str(other_job), str(REPO_ROOT / "pyproject.toml"), str(REPO_ROOT / "README.md"), "/root/.bashrc"]
    record = executor.execute(hostile_code("read_host_files", HOST_FILES=repr(targets)), cvrp, CONFIG)
    _assert_contained(record, Case("read_host_files", None))
    for target in targets:
        assert f"unreadable {target}" in record.output


def test_writes_outside_scratch_do_not_land(
    executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample, tmp_path: Path
) -> None:
    targets = [str(tmp_path / "pwned.txt"), str(REPO_ROOT / "pwned.txt"), "/etc/pwned"]
    record = executor.execute(hostile_code("write_outside", TARGETS=repr(targets)), cvrp, CONFIG)
    _assert_contained(record, Case("write_outside", ErrorKind.SANDBOX_VIOLATION))
    for target in targets:
        assert not Path(target).exists()
    _assert_still_usable(executor, cvrp)


def _processes_with(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if token.encode() in cmdline:
                found.append(int(entry.name))
    return found


def test_detached_grandchild_does_not_outlive_the_job(
    executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample
) -> None:
    token = f"3600.{secrets.randbelow(10**6):06d}"
    record = executor.execute(hostile_code("daemon_grandchild", TOKEN=token), cvrp, CONFIG)
    _assert_contained(record, Case("daemon_grandchild", ErrorKind.SANDBOX_VIOLATION))
    assert _processes_with(token) == []
    _assert_still_usable(executor, cvrp)


def test_grandchild_dies_with_a_killed_sandbox(
    executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample
) -> None:
    """The supervisor itself killed: nothing is left to sweep, so the pid namespace must go."""
    token = f"3600.{secrets.randbelow(10**6):06d}"
    code = hostile_code("daemon_grandchild", TOKEN=token).replace(
        "    return gold_build_model()", "    os.kill(os.getppid(), 9)\n    return gold_build_model()"
    )
    record = executor.execute(code, cvrp, CONFIG)
    assert record.verdict.error is not None and record.verdict.error.kind is ErrorKind.SANDBOX_VIOLATION
    assert _processes_with(token) == []
    _assert_still_usable(executor, cvrp)


def test_environment_secrets_do_not_reach_the_candidate(
    monkeypatch: pytest.MonkeyPatch, hostile_code: Callable[..., str], cvrp: Sample
) -> None:
    token = f"tok-{secrets.token_hex(8)}"
    redis_url = f"redis://:{secrets.token_hex(6)}@10.0.0.1:6379/0"
    monkeypatch.setenv("SECRET_TOKEN", token)
    monkeypatch.setenv("REDIS_URL", redis_url)
    with SandboxExecutor(SMALL) as fresh:
        record = fresh.execute(hostile_code("env_secrets"), cvrp, CONFIG)
    assert record.verdict.error is not None and record.verdict.error.kind is ErrorKind.BUILD_ERROR
    detail = record.verdict.error.detail
    assert "environment:" in detail
    for leaked in (token, redis_url, "SECRET_TOKEN", "REDIS_URL"):
        assert leaked not in detail and leaked not in record.output


@pytest.mark.slow
def test_a_frozen_supervisor_is_killed_by_the_executor_with_everything_in_it(
    hang_executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample
) -> None:
    """The candidate stops its supervisor, so only the executor's own deadline is left; when it
    fires, the whole sandbox goes, daemon included."""
    token = f"3600.{secrets.randbelow(10**6):06d}"
    record = hang_executor.execute(hostile_code("freeze_parent", TOKEN=token), cvrp, CONFIG)
    assert record.verdict.error is not None and record.verdict.error.kind is ErrorKind.TIMEOUT
    assert _processes_with(token) == []
    _assert_still_usable(hang_executor, cvrp)


def test_the_next_job_cannot_find_the_previous_one(
    executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample
) -> None:
    """The child of job 2 is forked from the supervisor after job 1: nothing on its stack may
    still hold job 1's script. The marker is stored reversed in the hostile script so that it
    cannot find its own source."""
    marker = f"previous-job-{secrets.token_hex(6)}"
    first = executor.execute(cvrp.gold_code + f"\nSECRET = {marker!r}\n", cvrp, CONFIG)
    assert first.verdict.passed
    record = executor.execute(hostile_code("previous_job", MARKER=marker[::-1]), cvrp, CONFIG)
    _assert_contained(record, Case("previous_job", None, "no previous job in reach"))


@pytest.mark.parametrize(("script", "substitutions", "poisoned"), [
    ("persist_outside_scratch", {"MEGABYTES": "4"}, "stored 4 MiB outside the scratch"),
    ("poison_licence", {}, "POISONED"),
])
def test_nothing_a_job_stores_reaches_the_next_job(
    script: str, substitutions: dict[str, str], poisoned: str,
    executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample,
) -> None:
    """Outside the scratch nothing is writable (the sandbox's root and /dev are remounted
    read-only), and the scratch is wiped between jobs: a second job finds nothing of the first."""
    for _ in range(2):
        record = executor.execute(hostile_code(script, **substitutions), cvrp, CONFIG)
        _assert_contained(record, Case(script, None))
        assert poisoned not in record.output
        assert set(re.findall(r"(\d+) file\(s\) left by earlier jobs", record.output)) <= {"0"}
    _assert_still_usable(executor, cvrp)


def test_a_candidate_cannot_impersonate_the_verifier(
    executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample
) -> None:
    """The script finds the report and sample pipes among its own descriptors, reports its build
    itself, reads the disclosed sample and sends a self-consistent passing verdict. Its reports
    lack the job's token (held by the verifier's side of the child, out of reach short of walking
    interpreter frames), so the first one is a protocol violation."""
    record = executor.execute(hostile_code("impersonate_child"), cvrp, CONFIG)
    _assert_contained(record, Case("impersonate_child", ErrorKind.SANDBOX_VIOLATION))
    assert any("token" in violation for violation in record.violations)


def test_in_memory_files_are_bounded_by_the_descriptor_limit(
    executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample
) -> None:
    """memfds hold memory the address-space limit does not count; the descriptor limit caps them."""
    record = executor.execute(hostile_code("memfd_hoard", TARGET_MB="3000"), cvrp, CONFIG)
    _assert_contained(record, Case("memfd_hoard", None, "Too many open files"))
    held = int(re.search(r"holding (\d+) MiB", record.output).group(1))  # type: ignore[union-attr]
    assert held <= SMALL.max_open_files * SMALL.max_file_mb


def test_a_deep_flood_of_files_is_gone_before_the_next_job(
    executor: SandboxExecutor, hostile_code: Callable[..., str], cvrp: Sample
) -> None:
    """Two hundred thousand empty files 1,900 directories deep are wiped before the flooder's
    verdict goes out, not on the next job's clock."""
    record = executor.execute(hostile_code("deep_flood", SECONDS="3"), cvrp, CONFIG)
    _assert_contained(record, Case("deep_flood", None, "empty files created"))
    after = executor.execute(cvrp.gold_code, cvrp, CONFIG)
    assert after.verdict.passed and after.warm


@pytest.mark.xfail(strict=True, reason="known gap: INJ's own rows can cross the size-limited licence (see docs/sandbox.md, Known limits)")
def test_a_model_padded_to_the_licence_limit_still_earns_its_failure(executor: SandboxExecutor, cvrp: Sample) -> None:
    """A wrong model padded to just under the licence's row limit: INJ's equality rows push it over,
    and the verdict becomes "licence too small" (no reward) instead of the failure it earned."""
    # over the vehicle-indexed gold: INJ pins x[i, j, k] with equality rows (on the two-index
    # default x[i, j] it sets bounds and adds no row)
    gold = render_gold(cvrp.instance, two_index=False)
    code = compose("licence_padding", cvrp.model_copy(update={"gold_code": gold}), {})
    record = executor.execute(code, cvrp, CONFIG)
    assert record.verdict.error is None or record.verdict.error.kind is not ErrorKind.SIZE_LIMITED_LICENCE

"""How the end of a candidate's process becomes a verdict, and how forged verdicts are caught."""

from __future__ import annotations

import signal
from collections.abc import Callable

import pytest
from vrpcoder.errors import ErrorKind, VerificationError
from vrpcoder.injection import InjVerdict
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig, verify
from vrpcoder_verifier.sandbox.outcomes import (
    EXIT_CRASH,
    EXIT_OUT_OF_MEMORY,
    EXIT_REPORT_BROKEN,
    Phase,
    WorkerEnd,
    conclude,
    failure_verdict,
    verdict_inconsistency,
)

CONFIG = VerifyConfig(time_limit=10.0)
LIMITS = {"cpu_limit": 5, "memory_mb": 100, "wall_seconds": 7.0}


def _end(**changes: object) -> WorkerEnd:
    base: dict[str, object] = {
        "phase": Phase.BUILDING, "verdict": None, "violations": (), "crash": None, "candidate_ran": True, "flooded": False,
        "timed_out": False, "exit_code": 0, "signal": None, "cpu_seconds": 0.1, "max_rss_kb": 1000, "elapsed": 0.2,
    }
    base.update(changes)
    return WorkerEnd(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def gold_verdict(cvrp: Sample) -> Verdict:
    verdict = verify(cvrp.gold_code, cvrp, CONFIG)
    assert verdict.passed
    return verdict


@pytest.mark.parametrize(
    ("changes", "kind"),
    [
        ({"violations": ("os.fork",), "flooded": True, "timed_out": True}, ErrorKind.SANDBOX_VIOLATION),
        ({"flooded": True, "timed_out": True}, ErrorKind.OUTPUT_LIMIT),
        ({"timed_out": True, "exit_code": None, "signal": signal.SIGKILL}, ErrorKind.TIMEOUT),
        ({"crash": "bug", "exit_code": EXIT_CRASH}, ErrorKind.INFRASTRUCTURE),
        ({"exit_code": None, "signal": signal.SIGXCPU}, ErrorKind.TIMEOUT),
        ({"exit_code": None, "signal": signal.SIGKILL, "cpu_seconds": 5.0}, ErrorKind.TIMEOUT),
        ({"exit_code": None, "signal": signal.SIGXFSZ}, ErrorKind.OUTPUT_LIMIT),
        ({"exit_code": None, "signal": signal.SIGSEGV, "max_rss_kb": 95 * 1024}, ErrorKind.MEMORY_LIMIT),
        ({"exit_code": None, "signal": signal.SIGSEGV}, ErrorKind.BUILD_ERROR),
        ({"exit_code": None, "signal": signal.SIGSEGV, "phase": Phase.VERIFYING}, ErrorKind.SANDBOX_VIOLATION),
        ({"exit_code": EXIT_OUT_OF_MEMORY}, ErrorKind.MEMORY_LIMIT),
        ({"exit_code": EXIT_REPORT_BROKEN}, ErrorKind.SANDBOX_VIOLATION),
        ({"exit_code": EXIT_CRASH, "candidate_ran": False}, ErrorKind.INFRASTRUCTURE),
        ({"exit_code": None, "signal": signal.SIGSEGV, "candidate_ran": False}, ErrorKind.INFRASTRUCTURE),
        ({"exit_code": EXIT_CRASH}, ErrorKind.BUILD_ERROR),
        ({"exit_code": EXIT_CRASH, "phase": Phase.VERIFYING}, ErrorKind.SANDBOX_VIOLATION),
        ({"exit_code": 0}, ErrorKind.BUILD_ERROR),
        ({"exit_code": 0, "phase": Phase.VERIFYING}, ErrorKind.SANDBOX_VIOLATION),
    ],
)
def test_strongest_evidence_decides(changes: dict[str, object], kind: ErrorKind, cvrp: Sample) -> None:
    verdict = conclude(_end(**changes), cvrp, **LIMITS)  # type: ignore[arg-type]
    assert verdict.error is not None and verdict.error.kind is kind
    assert not verdict.passed and not verdict.build
    assert verdict.reward == (None if kind is ErrorKind.INFRASTRUCTURE else 0.0)


def test_an_accepted_verdict_stands_unless_a_violation_was_seen(cvrp: Sample, gold_verdict: Verdict) -> None:
    assert conclude(_end(phase=Phase.DONE, verdict=gold_verdict), cvrp, **LIMITS) == gold_verdict  # type: ignore[arg-type]
    overruled = conclude(_end(phase=Phase.DONE, verdict=gold_verdict, violations=("gc.get_objects",)), cvrp, **LIMITS)  # type: ignore[arg-type]
    assert overruled.error is not None and overruled.error.kind is ErrorKind.SANDBOX_VIOLATION


def test_failure_verdict_scores_like_a_failed_build(cvrp: Sample) -> None:
    verdict = failure_verdict(cvrp, ErrorKind.TIMEOUT, "slow", 1.5)
    assert (verdict.sample_id, verdict.reference_objective) == (cvrp.id, cvrp.reference_objective)
    assert (verdict.build, verdict.passed, verdict.reward, verdict.probes) == (False, False, 0.0, ())
    assert failure_verdict(cvrp, ErrorKind.INFRASTRUCTURE, "ours").reward is None


def test_the_verifiers_own_verdict_is_consistent(cvrp: Sample, gold_verdict: Verdict) -> None:
    assert gold_verdict.costs and all(c.judged and c.passed for c in gold_verdict.costs)
    assert verdict_inconsistency(gold_verdict, cvrp, CONFIG) is None


Forgery = Callable[[Verdict], Verdict]

FORGERIES: list[tuple[str, Forgery]] = [
    ("other sample", lambda v: v.model_copy(update={"sample_id": "elsewhere"})),
    ("moved reference", lambda v: v.model_copy(update={"reference_objective": v.reference_objective + 1})),
    ("no build", lambda v: v.model_copy(update={"build": False})),
    ("probes dropped", lambda v: v.model_copy(update={"probes": ()})),
    ("diff without objective", lambda v: v.model_copy(update={"objective": v.reference_objective + 50.0})),
    ("passed despite a failed probe", lambda v: v.model_copy(
        update={"probes": (v.probes[0].model_copy(update={"passed": False}), *v.probes[1:])}
    )),
    ("inflated reward", lambda v: v.model_copy(update={"reward": 1.0, "diff": False, "passed": False,
                                                      "objective": v.reference_objective + 50.0})),
    ("infinite objective", lambda v: v.model_copy(update={"objective": float("inf")})),
    ("a failed probe called unjudgeable", lambda v: v.model_copy(
        update={"probes": (*v.probes[:-1], v.probes[-1].model_copy(update={"verdict": InjVerdict.UNJUDGEABLE, "passed": False}))}
    )),
    ("cost checks dropped", lambda v: v.model_copy(update={"costs": ()})),
    ("a mispriced plan called passed", lambda v: v.model_copy(
        update={"costs": (v.costs[0].model_copy(update={"objective": v.costs[0].price + 5.0}), *v.costs[1:])}
    )),
    ("the checker's price moved", lambda v: v.model_copy(
        update={"costs": (v.costs[0].model_copy(update={"price": v.costs[0].price + 5.0, "objective": v.costs[0].price + 5.0}), *v.costs[1:])}
    )),
    ("passed despite a failed cost check", lambda v: v.model_copy(
        update={"costs": (v.costs[0].model_copy(update={"objective": v.costs[0].price + 5.0, "passed": False}), *v.costs[1:])}
    )),
]


@pytest.mark.parametrize(("name", "forge"), FORGERIES, ids=[n for n, _ in FORGERIES])
def test_forged_verdicts_are_inconsistent(name: str, forge: Forgery, cvrp: Sample, gold_verdict: Verdict) -> None:
    assert verdict_inconsistency(forge(gold_verdict), cvrp, CONFIG) is not None


def _budget(verdict: Verdict, **changes: object) -> Verdict:
    """``verdict`` claiming the time budget ran out (no reward) on top of ``changes``."""
    error = VerificationError(kind=ErrorKind.TIME_BUDGET, detail="claimed")
    return verdict.model_copy(update={"error": error, "reward": None, **changes})


def test_a_budget_verdict_the_solve_supports_is_consistent(cvrp: Sample) -> None:
    """A budget verdict from a real out-of-time solve: the spent limit, and a bound that admits the reference."""
    tight = VerifyConfig(time_limit=0.001)
    verdict = verify(cvrp.gold_code, cvrp, tight)
    if verdict.error is None or verdict.error.kind is not ErrorKind.TIME_BUDGET:
        pytest.skip("the gold solve of this small sample finished within a millisecond")
    assert verdict_inconsistency(verdict, cvrp, tight) is None


@pytest.mark.parametrize("status", ["optimal", "time_limit"], ids=["solved", "time-left-to-continue"])
def test_a_forged_budget_verdict_is_inconsistent(status: str, cvrp: Sample, tsp: Sample) -> None:
    """A failing candidate must not trade its 0 for no reward by claiming the budget ran out: a
    wrong optimum (the TSP gold script on a CVRP sample), consistent in every other respect."""
    wrong = verify(tsp.gold_code, cvrp, CONFIG)
    assert not wrong.diff and wrong.reward is not None and wrong.diff_check is not None
    record = wrong.diff_check.model_copy(update={"final_status": status})
    forged = _budget(wrong, status=status, diff_check=record)
    assert verdict_inconsistency(forged, cvrp, CONFIG) is not None

"""How the end of a candidate's process becomes a verdict: the error taxonomy of the sandbox.

The candidate's process can die in ways the in-process verifier never sees (signals from
rlimits, ``os._exit``, a killed supervisor), and whatever it *says* may be forged. So the
supervisor's facts about the process rank first: a recorded violation beats everything, then
the supervisor's own kills (output flood, wall clock), then a verdict that arrived in order with
the right nonce and is consistent with the sample, then what the exit status tells.

Every abnormal end scores like a failed build (reward 0, ``build`` false) even when it happened
during the probes: a candidate that hangs or crashes the verifier earns nothing for its build.
"""

from __future__ import annotations

import math
import signal
from dataclasses import dataclass
from enum import StrEnum

from vrpcoder.candidate import Outcome
from vrpcoder.errors import ErrorKind, VerificationError
from vrpcoder.injection import InjVerdict
from vrpcoder.optimum import judge_plan
from vrpcoder.pricing import plan_price
from vrpcoder.probes import Label
from vrpcoder.relabelling import judgeable_by_arcs
from vrpcoder.samples import Sample
from vrpcoder.verification import Verdict, VerifyConfig, all_passed, budget_spent, failed_verdict, reward, solve_error

EXIT_OUT_OF_MEMORY = 86
"""The candidate's process ran out of memory while reporting (RLIMIT_AS)."""
EXIT_REPORT_BROKEN = 87
"""The report pipe was closed or replaced under the reporting code."""
EXIT_CRASH = 88
"""Our code in the candidate's process raised where it never should (its traceback is in the
captured output). Only before the candidate's code has run is that known to be our fault: after
it, the candidate can exit with any status, this one included, so the status counts as its own."""

_MEMORY_SIGNAL_FRACTION = 0.9
"""A process killed by a signal with a peak RSS this close to its limit ran out of memory."""
_REWARD_TOLERANCE = 1e-9


class Phase(StrEnum):
    BUILDING = "building"
    """The candidate's own code runs; the sample has not been disclosed."""
    VERIFYING = "verifying"
    """The build was reported; the sample was disclosed; DIFF and INJ run."""
    DONE = "done"


def failure_verdict(sample: Sample, kind: ErrorKind, detail: str, seconds: float = 0.0) -> Verdict:
    """The verdict of a job that produced no trustworthy verdict of its own."""
    return failed_verdict(sample, VerificationError(kind=kind, detail=detail), seconds)


def verdict_inconsistency(verdict: Verdict, sample: Sample, config: VerifyConfig) -> str | None:
    """Why a reported verdict cannot be the verifier's own for this sample, or None.

    Recomputes everything derivable from the sample and the verdict's own facts, so a forged
    verdict has to be self-consistent down to the reward.
    """
    if verdict.sample_id != sample.id:
        return f"verdict for sample {verdict.sample_id!r}, job was {sample.id!r}"
    if verdict.reference_objective != sample.reference_objective:
        return "reference objective differs from the sample's"
    if not verdict.build:
        return "a finished verification must have built"
    expected = [(p.name, p.label) for p in sample.probes]
    if [(p.name, p.label) for p in verdict.probes] != expected:
        return "probe results do not match the sample's probes"
    within = verdict.objective is not None and math.isfinite(verdict.objective) and (
        abs(verdict.objective - sample.reference_objective) <= config.diff_tolerance
    )
    if verdict.diff != within:
        return "DIFF does not follow from the objective"
    for result, probe in zip(verdict.probes, sample.probes, strict=True):
        if not result.judged and (result.passed or judgeable_by_arcs(sample.instance, probe)):
            return f"probe {probe.name} reported unjudgeable, but its label holds under every relabelling"
    problem = _optimum_inconsistency(verdict, sample) or _cost_inconsistency(verdict, sample, config)
    if problem is not None:
        return problem
    if verdict.passed != all_passed(verdict.diff, verdict.probes, verdict.optimum_ok, verdict.cost_ok):
        return "passed does not follow from DIFF, the optimum check, the cost checks and the probes"
    problem = _budget_inconsistency(verdict, sample, config)
    if problem is not None:
        return problem
    infrastructure = verdict.error is not None and not verdict.error.kind.is_candidate_fault
    if infrastructure:
        return None if verdict.reward is None else "an infrastructure fault carries no reward"
    earned = reward(
        True, verdict.diff, verdict.inj_fraction, config.weights, optimum_ok=verdict.optimum_ok, cost_ok=verdict.cost_ok
    )
    if verdict.reward is None or abs(verdict.reward - earned) > _REWARD_TOLERANCE:
        return "reward does not follow from the verdict"
    return None


def _budget_inconsistency(verdict: Verdict, sample: Sample, config: VerifyConfig) -> str | None:
    """A time-budget verdict (no reward) must follow from its own facts by the verifier's rule
    (``solve_error``): a solve stopped on a spent time limit with a bound that admits the reference.
    Otherwise a forged one would trade a failing candidate's 0 for no reward at all."""
    if verdict.error is None or verdict.error.kind is not ErrorKind.TIME_BUDGET:
        return None
    check = verdict.diff_check
    if check is None or verdict.status is None or verdict.diff:
        return "a time-budget verdict without a failed DIFF record"
    bound = check.final_bound
    objective = verdict.objective
    minimize = objective is None or bound is None or bound <= objective
    outcome = Outcome(status=verdict.status, objective=objective, has_solution=objective is not None,
                      bound=bound, minimize=minimize)
    spent = check.continued or budget_spent(config, verdict.build_seconds)
    expected = solve_error(outcome, spent, sample.reference_objective, config.diff_tolerance)
    if expected is None or expected.kind is not ErrorKind.TIME_BUDGET:
        return "a time-budget verdict that its own solve does not support"
    return None


def _optimum_inconsistency(verdict: Verdict, sample: Sample) -> str | None:
    """The optimum check's claims that do not hold: DIFF's record names another objective, a check
    is missing where a solution and an ``x`` were there to read, or a plan reported as passing is
    one the checker rejects (it is judged again here, with no solver)."""
    check = verdict.diff_check
    if check is not None and check.final_objective != verdict.objective:
        return "DIFF's record does not end at the verdict's objective"
    optimum = verdict.optimum
    if optimum is None:
        unread = all(p.verdict is InjVerdict.ERROR for p in verdict.probes)
        return None if verdict.objective is None or unread else "the optimum check is missing"
    if not optimum.passed:
        return None
    again = judge_plan(sample.instance, optimum.routes, optimum.cycles, reading=optimum.reading)
    return None if again.passed else "the optimum check passed a plan the checker rejects"


def _cost_inconsistency(verdict: Verdict, sample: Sample, config: VerifyConfig) -> str | None:
    """The cost checks' claims that do not hold: a feasible probe that was asked but has no cost
    check, or a judged check whose price is not the checker's price of the probe's plan (priced
    again here, with no solver) or whose ``passed`` does not follow from the two prices."""
    feasible = [r for r in verdict.probes if r.label is Label.FEASIBLE and r.verdict is not InjVerdict.UNJUDGEABLE]
    names = [c.probe for c in verdict.costs]
    unread = not names and all(r.verdict is InjVerdict.ERROR for r in feasible)  # no x to pin
    if names != ([r.name for r in feasible] if config.check_costs and not unread else []):
        return "the cost checks do not match the feasible probes asked"
    plans = {p.name: p.solution for p in sample.probes}
    for check in verdict.costs:
        if not check.judged:
            continue
        price = plan_price(sample.instance, plans[check.probe])
        if check.price is None or abs(check.price - price) > _REWARD_TOLERANCE:
            return f"the cost check of {check.probe} names another price than the checker's"
        within = check.objective is not None and abs(check.objective - price) <= config.diff_tolerance
        if check.passed != within:
            return f"the cost check of {check.probe} does not follow from its prices"
    return None


@dataclass(frozen=True, slots=True)
class WorkerEnd:
    """Everything the supervisor knows when a candidate's process is over."""

    phase: Phase
    verdict: Verdict | None
    """The verdict that arrived in order and passed the consistency check, if any."""
    violations: tuple[str, ...]
    crash: str | None
    """Our own code in the candidate's process failed (reported, and the integrity check held)."""
    candidate_ran: bool
    """The child announced that the candidate's code was about to run (``Started``)."""
    flooded: bool
    timed_out: bool
    exit_code: int | None
    signal: int | None
    cpu_seconds: float | None
    """None for a child that reported its result and was not waited for."""
    max_rss_kb: int
    elapsed: float


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def conclude(end: WorkerEnd, sample: Sample, *, cpu_limit: int, memory_mb: int, wall_seconds: float) -> Verdict:
    """The job's verdict from the supervisor's facts, strongest evidence first."""
    if end.violations:
        shown = "; ".join(end.violations[:3])
        more = f" (+{len(end.violations) - 3} more)" if len(end.violations) > 3 else ""
        return failure_verdict(sample, ErrorKind.SANDBOX_VIOLATION, shown + more, end.elapsed)
    if end.flooded:
        return failure_verdict(sample, ErrorKind.OUTPUT_LIMIT, "the candidate flooded stdout/stderr", end.elapsed)
    if end.timed_out:
        return failure_verdict(
            sample, ErrorKind.TIMEOUT, f"wall-clock limit of {wall_seconds:g} s exceeded", end.elapsed
        )
    if end.verdict is not None:
        return end.verdict
    if end.crash is not None:
        return failure_verdict(sample, ErrorKind.INFRASTRUCTURE, end.crash, end.elapsed)
    return _from_exit(end, sample, cpu_limit=cpu_limit, memory_mb=memory_mb)


def _from_exit(end: WorkerEnd, sample: Sample, *, cpu_limit: int, memory_mb: int) -> Verdict:
    if not end.candidate_ran:
        how = f"killed by {_signal_name(end.signal)}" if end.signal is not None else f"exit status {end.exit_code}"
        detail = f"the sandbox's child ended ({how}) before the candidate's code ran"
        return failure_verdict(sample, ErrorKind.INFRASTRUCTURE, detail, end.elapsed)
    if end.signal is not None:
        name = _signal_name(end.signal)
        if end.signal == signal.SIGXCPU or (end.signal == signal.SIGKILL and (end.cpu_seconds or 0.0) >= cpu_limit):
            return failure_verdict(sample, ErrorKind.TIMEOUT, f"CPU-time limit of {cpu_limit} s exceeded", end.elapsed)
        if end.signal == signal.SIGXFSZ:
            return failure_verdict(sample, ErrorKind.OUTPUT_LIMIT, "file-size limit exceeded", end.elapsed)
        if end.max_rss_kb >= _MEMORY_SIGNAL_FRACTION * memory_mb * 1024:
            return failure_verdict(sample, ErrorKind.MEMORY_LIMIT, f"killed by {name} at the memory limit", end.elapsed)
        if end.phase is Phase.VERIFYING:
            return failure_verdict(sample, ErrorKind.SANDBOX_VIOLATION, f"killed by {name} during verification", end.elapsed)
        return failure_verdict(sample, ErrorKind.BUILD_ERROR, f"the interpreter was killed by {name}", end.elapsed)
    code = end.exit_code
    if code == EXIT_OUT_OF_MEMORY:
        return failure_verdict(sample, ErrorKind.MEMORY_LIMIT, "out of memory", end.elapsed)
    if code == EXIT_REPORT_BROKEN:
        return failure_verdict(sample, ErrorKind.SANDBOX_VIOLATION, "the report channel was tampered with", end.elapsed)
    if end.phase is Phase.BUILDING:
        return failure_verdict(
            sample, ErrorKind.BUILD_ERROR, f"the process exited (status {code}) before build_model returned", end.elapsed
        )
    return failure_verdict(
        sample, ErrorKind.SANDBOX_VIOLATION, f"the process exited (status {code}) during verification", end.elapsed
    )

"""What the service can honestly promise: is a sandbox there, which Gurobi licence do we have, and
is anyone there to run a candidate at all.

Readiness is decided by what serves a request: Redis to queue it on and a live worker whose sandbox
works to run it. The API process never runs a candidate, so its own sandbox does not count: in a
container it rightly keeps the runtime's default seccomp profile, under which bubblewrap cannot
create namespaces, and requiring that check made the API "never ready" while verification worked.
The sandbox and licence answers below feed each worker's heartbeat record (and, for information
only, the API's own report). The licence is probed by solving a
model one variable over the size-limited licence's cap in a *subprocess*: a hung or crashing
licence check must not take the API down, and the answer ("size-limited" means samples over 2000
variables or constraints will come back ``size_limited_licence``) is worth a second at start-up.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from enum import StrEnum

from vrpcoder_client.schemas import ReadyReport, SandboxReport, WorkerReport

_LICENCE_PROBE = """
import gurobipy as gp
env = gp.Env(empty=True)
env.setParam("OutputFlag", 0)
env.start()
model = gp.Model(env=env)
model.Params.Threads = 1
model.addVars(2001)
try:
    model.optimize()
except gp.GurobiError as exc:
    print("size-limited" if exc.errno == 10010 else f"unavailable: {exc}")
else:
    print("full")
"""


class LicenceKind(StrEnum):
    FULL = "full"
    SIZE_LIMITED = "size-limited"
    CHECKING = "checking"
    DISABLED = "not checked"


def probe_licence(timeout: float = 30.0) -> str:
    """``full``, ``size-limited`` or ``unavailable: <why>``, from a subprocess that builds 2001 variables."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", _LICENCE_PROBE], capture_output=True, text=True, timeout=timeout, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unavailable: licence probe failed ({exc})"
    answer = done.stdout.strip().splitlines()[-1:] or [""]
    if done.returncode != 0 or not answer[0]:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return f"unavailable: {tail}"
    return answer[0]


def sandbox_report() -> SandboxReport:
    """The sandbox executor's own status, or why there is none (its package may not be installed)."""
    try:
        from vrpcoder_verifier.sandbox import sandbox_status
    except ImportError as exc:
        return SandboxReport(
            available=False, mechanism="none", detail=f"sandbox executor not installed ({exc}); in-process only"
        )
    status = sandbox_status()
    return SandboxReport(available=status.available, mechanism=status.mechanism, detail=status.detail)


def worker_serves(worker: WorkerReport, unsandboxed_ok: bool) -> bool:
    """The worker can take candidates: its sandbox works, or it runs them in-process and this
    deployment allows unsandboxed runs (tests and trusted gold scripts; never the default)."""
    return worker.sandbox.available or (unsandboxed_ok and worker.sandbox.mechanism == "in-process")


def is_ready(redis_reachable: bool, workers: Sequence[WorkerReport], unsandboxed_ok: bool) -> bool:
    """Ready when a request can be served now: Redis answers and at least one live worker can run it.

    With no such worker a request would only sit in the queue, so the instance must not receive
    traffic (503), however healthy the API process itself is (that is /healthz's question).
    """
    return redis_reachable and any(worker_serves(w, unsandboxed_ok) for w in workers)


_HIDDEN = "hidden (send a bearer token to see it)"


def without_identities(report: ReadyReport) -> ReadyReport:
    """The readiness report for a caller without a token: worker names, versions and sandbox
    details (which say which build runs on which host) replaced, everything a probe needs kept."""
    workers = tuple(
        WorkerReport(
            name=f"worker-{i}",
            version=_HIDDEN,
            sandbox=SandboxReport(available=w.sandbox.available, mechanism=w.sandbox.mechanism, detail=_HIDDEN),
            licence=w.licence,
        )
        for i, w in enumerate(report.workers, start=1)
    )
    sandbox = SandboxReport(available=report.sandbox.available, mechanism=report.sandbox.mechanism, detail=_HIDDEN)
    return report.model_copy(update={"workers": workers, "sandbox": sandbox})

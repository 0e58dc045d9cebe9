"""What the service can honestly promise: is a sandbox there, and which Gurobi licence do we have.

Both answers feed /readyz and each worker's heartbeat record. The licence is probed by solving a
model one variable over the size-limited licence's cap in a *subprocess*: a hung or crashing
licence check must not take the API down, and the answer ("size-limited" means samples over 2000
variables or constraints will come back ``size_limited_licence``) is worth a second at start-up.
"""

from __future__ import annotations

import subprocess
import sys
from enum import StrEnum

from vrpcoder_verifier.schemas import SandboxReport

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

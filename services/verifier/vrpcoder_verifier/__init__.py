"""Verifier service: runs untrusted candidate scripts in a sandbox and answers DIFF / INJ / verify
requests over HTTP, with jobs queued through Redis + rq. Built on `vrpcoder` (shared).

Halves: ``api`` (FastAPI, enqueues and waits), ``worker`` (rq, runs each job through the sandbox
executor), ``client`` (typed httpx client) and ``reward`` (a TRL reward function on top of it).
"""

from importlib.metadata import PackageNotFoundError, version


def _version() -> str:
    """Both distributions: a change in the shared verifier must also invalidate cached verdicts."""
    try:
        return f"{version('vrpcoder-verifier')}+vrpcoder-{version('vrpcoder')}"
    except PackageNotFoundError:
        return "0+unknown"


__version__ = _version()

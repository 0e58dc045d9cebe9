"""The verifier an evaluation command talks to: the one it is given, or a private stack of its own.

`eval run`, `eval score` and `eval audit` need the verifier service. With ``--verifier-url`` (or
``VRPCODER_VERIFIER_URL``) they use that one; without, they start a private stack for the length of
the command (a throw-away ``redis-server``, the API and sandboxed workers on free ports, through
:func:`vrpcoder_verifier.stack.private_stack`) and stop it afterwards, Ctrl-C and SIGTERM included.
Candidates are untrusted code, so the private stack refuses to run them outside the sandbox unless
told that the code is trusted (``--allow-unsandboxed``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


class ServiceError(RuntimeError):
    """No verifier could be had (the private stack did not come up, or no sandbox for untrusted code)."""


@dataclass(frozen=True, slots=True)
class Endpoint:
    url: str
    token: str | None
    private: bool


@dataclass(frozen=True, slots=True)
class StackOptions:
    """How a private stack is started when no service is named."""

    workers: int = 2
    allow_unsandboxed: bool = False
    log_dir: Path | None = None
    time_limit: float | None = None
    """The longest solver time limit the command asks for (the stack's cap is raised to it)."""


@contextmanager
def verifier_endpoint(url: str | None, token: str | None, options: StackOptions,
                      say: Callable[[str], None] = lambda _: None) -> Iterator[Endpoint]:
    """The service at ``url``, or a private stack while the block runs."""
    if url:
        yield Endpoint(url, token, private=False)
        return
    from vrpcoder_verifier.health import sandbox_report
    from vrpcoder_verifier.stack import StackError, private_stack

    sandbox = sandbox_report()
    if not sandbox.available and not options.allow_unsandboxed:
        raise ServiceError(f"no sandbox for untrusted candidates here ({sandbox.detail}); name a running service with "
                           "--verifier-url, or pass --allow-unsandboxed for trusted code only")
    log_dir = options.log_dir or Path(tempfile.mkdtemp(prefix="vrpcoder-eval-stack-"))
    limit = options.time_limit or 60.0
    say(f"verifier: no service named; starting a private Redis, the API and {options.workers} "
        f"{'sandboxed ' if sandbox.available else 'UNSANDBOXED '}workers (logs in {log_dir})")
    try:
        with private_stack(workers=options.workers, log_dir=log_dir, executor="auto",
                           allow_unsandboxed=options.allow_unsandboxed, max_time_limit=max(120.0, limit),
                           default_time_limit=limit, max_body_bytes=16 * 1024 * 1024) as stack:
            say(f"verifier: API at {stack.base_url}")
            yield Endpoint(stack.base_url, stack.token, private=True)
    except StackError as exc:
        raise ServiceError(f"the private verifier stack did not come up: {exc} (logs in {log_dir})") from exc

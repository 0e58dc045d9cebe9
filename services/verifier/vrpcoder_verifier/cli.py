"""`vrpcoder verifier ...`: start the API, a worker, or the whole local stack as a demo; and
`vrpcoder verify`, one candidate against one sample under the service's own policy.

Registered through the ``vrpcoder.cli`` (the ``verifier`` group) and ``vrpcoder.commands`` (the
top-level ``verify``) entry-point groups, so the shared CLI never imports this package. Settings come from the environment (``VRPCODER_VERIFIER_*``, ``REDIS_URL``); the flags
here override the few that matter on a command line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError
from rich.console import Console
from vrpcoder.cli import (
    EXIT_NO_ANSWER,
    EXIT_REJECTED,
    SIZE_LIMIT_HINT,
    JsonOpt,
    TimeLimitOpt,
    fail,
    json_only,
    print_verdict,
)

from vrpcoder_verifier.settings import Settings

if TYPE_CHECKING:
    from vrpcoder.samples import Sample
    from vrpcoder.verification import Verdict, VerifyConfig

app = typer.Typer(
    name="verifier",
    help="The verifier service: HTTP API, rq workers, and a local demo stack.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode="markdown",  # paragraphs of a docstring are reflowed, not broken where the source breaks
)
err_console = Console(stderr=True)

NoSandboxOpt = Annotated[
    bool,
    typer.Option(
        "--no-sandbox",
        help="Run candidates in-process, without the sandbox. Only for code you trust (gold scripts, tests).",
    ),
]
RedisOpt = Annotated[
    str | None, typer.Option("--redis-url", help="Redis URL (default: $REDIS_URL or redis://127.0.0.1:6379/0).")
]


LogLevelOpt = Annotated[
    str | None,
    typer.Option(help="Log level: DEBUG, INFO, WARNING, ERROR (default: $VRPCODER_VERIFIER_LOG_LEVEL or INFO)."),
]
LogJsonOpt = Annotated[
    bool | None,
    typer.Option(
        "--log-json/--log-text",
        help="Log lines as JSON objects or as key=value text (default: $VRPCODER_VERIFIER_LOG_JSON or text).",
    ),
]


def _configure_logging(settings: Settings) -> None:
    from vrpcoder_verifier.logs import configure_logging

    try:
        configure_logging(settings.log_level, settings.log_json)
    except ValueError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None


def _settings(**overrides: object) -> Settings:
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})  # type: ignore[arg-type]
    except ValidationError as exc:
        err_console.print(f"[bold red]error:[/] invalid settings: {exc}", highlight=False)
        raise typer.Exit(2) from None


@app.command()
def api(
    host: Annotated[str, typer.Option(help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="TCP port (0 picks a free one).")] = 8000,
    redis_url: RedisOpt = None,
    no_sandbox: NoSandboxOpt = False,
    anonymous: Annotated[
        bool, typer.Option("--anonymous", help="Serve /v1 without bearer tokens (local development only).")
    ] = False,
    access_log: Annotated[
        bool | None,
        typer.Option(
            "--access-log/--no-access-log",
            help="One line per request: method, path, status, ms (default: $VRPCODER_VERIFIER_ACCESS_LOG or on).",
        ),
    ] = None,
    graceful_seconds: Annotated[
        float, typer.Option(min=0.0, help="On SIGTERM, how long in-flight requests may finish before they are cut.")
    ] = 5.0,
    log_level: LogLevelOpt = None,
    log_json: LogJsonOpt = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1,
            help="API processes sharing the port. Each keeps its own Prometheus counters, so /metrics then "
            "shows one process's share; on a small machine one process usually serves best.",
        ),
    ] = 1,
) -> None:
    """Serve the HTTP API (FastAPI under uvicorn, uvloop and httptools); jobs go to Redis for the workers."""
    import uvicorn
    from fastapi import FastAPI

    from vrpcoder_verifier.api import create_app

    settings = _settings(
        redis_url=redis_url, executor="in-process" if no_sandbox else None, allow_anonymous=anonymous or None,
        log_level=log_level, log_json=log_json, access_log=access_log,
    )
    _configure_logging(settings)
    try:
        application = create_app(settings)
    except ValueError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None
    served: FastAPI | str = application
    if workers > 1:
        # worker processes build their own app from the environment, so the flags above must reach it there
        from vrpcoder_verifier.stack import settings_env

        os.environ.update(settings_env(settings))
        served = "vrpcoder_verifier.api.main:create_app_from_env"
    uvicorn.run(
        served,
        factory=workers > 1,
        workers=workers,
        host=host,
        port=port,
        log_config=None,  # our handlers (configured above) carry uvicorn's lines too, in the same format
        log_level=settings.log_level.lower(),
        access_log=False,  # the app writes its own access line, with the latency uvicorn's lacks
        timeout_graceful_shutdown=int(graceful_seconds),
    )


@app.command()
def worker(
    name: Annotated[str | None, typer.Option(help="Worker name (default: host-pid-random).")] = None,
    redis_url: RedisOpt = None,
    no_sandbox: NoSandboxOpt = False,
    burst: Annotated[bool, typer.Option(help="Quit once the queue is empty.")] = False,
    log_level: LogLevelOpt = None,
    log_json: LogJsonOpt = None,
) -> None:
    """Take verification jobs from Redis and run each through the sandbox executor (run N of these)."""
    import logging

    from vrpcoder_verifier.worker import NoSandboxError, run_worker

    settings = _settings(
        redis_url=redis_url, executor="in-process" if no_sandbox else None, log_level=log_level, log_json=log_json
    )
    _configure_logging(settings)
    from vrpcoder_verifier.logs import log_event

    log_event(
        logging.getLogger("vrpcoder_verifier.worker"), "worker starting",
        queue=settings.queue_name, executor=settings.executor.value, version=settings.version,
    )
    from vrpcoder_verifier.node import node_check

    node = node_check()
    log_event(logging.getLogger("vrpcoder_verifier.worker"), "node check",
              level=logging.INFO if node.ok else logging.WARNING, **node.fields())
    # rq's own lines per job repeat what the worker's one line per job says; they show at DEBUG only
    rq_level = "DEBUG" if logging.getLogger("vrpcoder_verifier").isEnabledFor(logging.DEBUG) else "WARNING"
    try:
        run_worker(settings, name=name, burst=burst, log_level=rq_level)
    except NoSandboxError as exc:
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from None


@app.command()
def up(
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port of the API on 127.0.0.1.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, max=16, help="Worker processes to start.")] = 2,
    token: Annotated[
        str | None,
        typer.Option(envvar="VRPCODER_VERIFIER_TOKEN", show_envvar=True,
                     help="Bearer token the API accepts (default: a random one, printed)."),
    ] = None,
    log_dir: Annotated[
        Path | None, typer.Option(help="Folder for the API's and workers' logs (default: a new temporary one).")
    ] = None,
    no_sandbox: NoSandboxOpt = False,
) -> None:
    """Run a whole local stack in the foreground: a private `redis-server`, the API on 127.0.0.1:PORT and
    WORKERS sandboxed workers. It prints the two variables the client reads, then `ready`; Ctrl-C (or
    SIGTERM) stops every part and removes the throw-away Redis.

    For trying the service, notebooks and local training runs; a deployment runs the parts on their
    own (`vrpcoder verifier api`, `... worker`, docs/deployment.md)."""
    import secrets
    import socket
    import tempfile
    import time

    from pydantic import SecretStr

    from vrpcoder_verifier.sandbox import sandbox_status
    from vrpcoder_verifier.stack import StackError, private_stack

    if not no_sandbox and not (status := sandbox_status()).available:
        fail(f"no sandbox on this host ({status.detail}); untrusted candidates need one. "
             "--no-sandbox runs trusted code in-process")
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            fail(f"port {port} on 127.0.0.1 is taken; choose another with --port")
    token = token or secrets.token_hex(16)
    log_dir = log_dir or Path(tempfile.mkdtemp(prefix="vrpcoder-stack-"))
    executor = "in-process" if no_sandbox else "sandbox"
    try:
        with private_stack(workers=workers, port=port, log_dir=log_dir, executor=executor,
                           api_tokens=(SecretStr(token),)) as stack:
            kind = "UNSANDBOXED" if no_sandbox else "sandboxed"
            print(f"verifier: API at {stack.base_url} with {workers} {kind} workers (logs in {log_dir})")
            print(f"export VRPCODER_VERIFIER_URL={stack.base_url} VRPCODER_VERIFIER_TOKEN={token}")
            print("ready (Ctrl-C stops it)", flush=True)
            while (api := stack.api_process) is not None and api.poll() is None:
                time.sleep(0.5)
            fail(f"the API stopped on its own (exit status {api.returncode if api else '?'}); see {log_dir}/api.log", 1)
    except StackError as exc:
        fail(f"the local stack did not come up: {exc} (logs in {log_dir})")
    except KeyboardInterrupt:
        print("verifier: stopped")


@app.command()
def demo(
    workers: Annotated[int, typer.Option(min=1, max=8, help="Worker processes to start.")] = 2,
    mutants: Annotated[int, typer.Option(min=0, help="Mutants per variant, besides the gold script.")] = 3,
    seed: Annotated[int, typer.Option(min=0, help="Seed of every sampled instance.")] = 0,
    time_limit: Annotated[float, typer.Option(min=0.1, help="Gurobi time limit per solve, in seconds.")] = 30.0,
    no_sandbox: NoSandboxOpt = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document instead of a table.")] = False,
) -> None:
    """Start Redis (or use a running one), the API and workers; verify gold scripts and mutants of all 21 variants.

    Exit status: 0 every row as expected (gold scripts pass, mutants are caught), 1 a row that is
    not, 3 the stack could not be brought up."""
    from vrpcoder.cli import EXIT_NO_ANSWER, json_only

    from vrpcoder_verifier.demo import DemoError, print_rows, run_demo

    try:
        with json_only(as_json):  # Gurobi's licence banner and the stack's own lines go to stderr
            rows = run_demo(
                workers=workers, mutants=mutants, seed=seed, time_limit=time_limit,
                no_sandbox=no_sandbox, progress=not as_json,
            )
    except DemoError as exc:  # the stack gave no answer: exit 3, as `vrpcoder verify` without a verdict
        err_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(EXIT_NO_ANSWER) from None
    except KeyboardInterrupt:
        err_console.print("interrupted; everything the demo started has been shut down")
        raise typer.Exit(130) from None
    if as_json:
        import json

        print(json.dumps([row.model_dump(mode="json") for row in rows], indent=2))
    else:
        print_rows(rows)
    if not all(row.as_expected for row in rows):
        raise typer.Exit(1)


# ---- vrpcoder verify ----------------------------------------------------------------------------


def verify(
    candidate: Annotated[Path, typer.Argument(help="Candidate gurobipy script (defines build_model()).")],
    sample_file: Annotated[Path, typer.Argument(help="Sample JSON from `vrpcoder samples build`.")],
    as_json: JsonOpt = False,
    time_limit: TimeLimitOpt = 60.0,
    diff_tolerance: Annotated[float, typer.Option(min=0.0, help="Absolute objective tolerance of DIFF.")] = 1e-3,
    no_sandbox: Annotated[
        bool, typer.Option("--no-sandbox", help="Run the candidate in this process (only for code you trust).")
    ] = False,
) -> None:
    """Verify a candidate script against a sample: build, DIFF, the optimum check, INJ on every probe, reward.

    The candidate runs in the verifier service's bubblewrap sandbox (no network, read-only system,
    limits on time, memory, processes, files and output); without a usable sandbox the command
    refuses unless --no-sandbox is given. It follows the service's own policy, read from the same
    VRPCODER_VERIFIER_* settings: the job's wall limit is job_build_seconds + time_limit * (probes + 2)
    + job_grace_seconds (at most sandbox_wall_seconds), and a script that is not valid UTF-8 is
    judged as the candidate's syntax error, so the command and the API give the same verdict.
    Exit status: 0 passed, 1 rejected, 2 bad input, 3 no answer (no reward: an infrastructure
    fault, the licence's size limit, or a time limit too small to decide)."""
    from vrpcoder.io import read_record
    from vrpcoder.samples import Sample
    from vrpcoder.verification import VerifyConfig

    try:
        sample = read_record(sample_file, Sample)
        code = candidate.read_bytes().decode("utf-8", "surrogateescape")  # bytes that are not UTF-8 stay the script's
    except ValueError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{candidate}: cannot read ({exc.strerror})")
    config = VerifyConfig(time_limit=time_limit, diff_tolerance=diff_tolerance)
    with json_only(as_json):
        verdict = _verify_as_the_service(code, sample, config, no_sandbox=no_sandbox)
    if as_json:
        print(verdict.model_dump_json(indent=2))
    else:
        print_verdict(verdict)
    if verdict.error is not None and verdict.error.kind.value == "size_limited_licence":
        err_console.print(f"[yellow]{SIZE_LIMIT_HINT[0].upper()}{SIZE_LIMIT_HINT[1:]}.[/]")
    if not verdict.passed:
        raise typer.Exit(EXIT_NO_ANSWER if verdict.reward is None else EXIT_REJECTED)




def _verify_as_the_service(code: str, sample: Sample, config: VerifyConfig, *, no_sandbox: bool) -> Verdict:
    """Verify under the verifier service's policy (``vrpcoder_verifier.executors.verify_candidate``,
    what every worker runs): the same verdict, wall limit and messages as the API gives."""
    from vrpcoder_verifier.executors import NoSandboxError, build_executor, verify_candidate
    from vrpcoder_verifier.settings import ExecutorKind

    kind = ExecutorKind.IN_PROCESS if no_sandbox else ExecutorKind.SANDBOX
    try:
        settings = Settings(executor=kind, sandboxes=1, check_licence=False)
    except ValueError as exc:
        fail(f"the VRPCODER_VERIFIER_* settings are invalid: {exc}")
    try:
        executor = build_executor(settings)
    except (NoSandboxError, RuntimeError) as exc:
        fail(f"no sandbox available ({exc}); pass --no-sandbox to run trusted code unsandboxed")
    try:
        return verify_candidate(executor, settings, code, sample, config).verdict
    finally:
        close = getattr(executor, "close", None)
        if callable(close):
            close()

"""Configuration of the verifier service, read from the environment (prefix ``VRPCODER_VERIFIER_``).

One frozen object is built at start-up and handed to the API, the workers and the CLI, so that
every limit is decided in one place and a test can build a service with different limits without
touching the process environment. ``REDIS_URL`` is accepted as well as the prefixed name because
that is what container platforms and the local stack hand out.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from vrpcoder_verifier import __version__


class ExecutorKind(StrEnum):
    AUTO = "auto"
    """The sandbox when it is usable; in-process only if ``allow_unsandboxed``; else refuse to start."""
    SANDBOX = "sandbox"
    IN_PROCESS = "in-process"
    """Explicitly unsandboxed (``--no-sandbox``): for trusted code such as gold scripts and tests."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="VRPCODER_VERIFIER_", frozen=True, extra="ignore")

    redis_url: str = Field(
        default="redis://127.0.0.1:6379/0",
        validation_alias=AliasChoices("VRPCODER_VERIFIER_REDIS_URL", "REDIS_URL", "redis_url"),
    )
    queue_name: str = "vrpcoder-verify"
    key_prefix: str = "vrpcoder:verifier"
    """Prefix of every Redis key the service owns (rq keeps its own ``rq:`` keys)."""

    api_tokens: Annotated[tuple[SecretStr, ...], NoDecode] = ()
    """Accepted bearer tokens; from the environment as a comma-separated list."""
    allow_anonymous: bool = False
    """Serve /v1 without tokens (local development only); refused unless set explicitly."""

    max_body_bytes: int = Field(default=8 * 1024 * 1024, ge=1024)
    max_batch_items: int = Field(default=512, ge=1)
    default_time_limit: float = Field(default=60.0, gt=0.0)
    """Gurobi time limit per solve when the request names none, in seconds."""
    max_time_limit: float = Field(default=120.0, gt=0.0)
    """Upper bound on the per-solve time limit a request may ask for."""
    default_wait_seconds: float = Field(default=20.0, ge=0.0)
    max_wait_seconds: float = Field(default=60.0, ge=0.0)
    """How long a request may hold its connection waiting for a verdict before it gets a job id."""

    job_timeout_seconds: int = Field(default=900, ge=1)
    """Hard rq timeout of a job (one candidate): a backstop behind the job's own wall limit, which
    the sandbox enforces and which never exceeds ``sandbox_wall_seconds``."""
    job_retries: int = Field(default=1, ge=0)
    """Re-runs of a job whose worker died under it; after that the job ends failed."""
    result_ttl_seconds: int = Field(default=24 * 3600, ge=1)
    failure_ttl_seconds: int = Field(default=24 * 3600, ge=1)
    cache_ttl_seconds: int = Field(default=7 * 24 * 3600, ge=1)
    sample_ttl_seconds: int = Field(default=7 * 24 * 3600, ge=1)

    worker_heartbeat_seconds: float = Field(default=1.0, gt=0.0)
    worker_dead_after_seconds: float = Field(default=6.0, gt=0.0)
    """A worker silent for this long is dead, and the job it held is retried or failed."""
    join_poll_seconds: float = Field(default=2.0, gt=0.0)
    """How often an idle worker looks for a running batch with items still waiting, to join it
    (a worker started mid-batch, or one whose own batch is done, takes items from it)."""
    handover_budget: int = Field(default=5, ge=1)
    """How many times in a row a batch may be handed to a fresh drain without any of its items
    ending in between; past it the batch's waiting items fail (a batch no drain can work on must
    not circle through the queue forever)."""
    redis_outage_seconds: float = Field(default=30.0, ge=0.0)
    """How long a worker retries a Redis command while Redis is away (a restart takes seconds),
    so an item in hand is published when it returns instead of being dropped."""
    retry_after_seconds: int = Field(default=2, ge=1)
    """``Retry-After`` of a 503 (Redis away, or this API process shutting down)."""

    executor: ExecutorKind = ExecutorKind.AUTO
    allow_unsandboxed: bool = False
    """With ``executor=auto``: run candidates in-process when no sandbox is available (trusted code only)."""
    sandbox_wall_seconds: float = Field(default=600.0, gt=0.0)
    """The server's cap on the wall clock of one job, whatever its request asks (see ``job_wall_seconds``)."""
    job_build_seconds: float = Field(default=10.0, gt=0.0)
    """Wall clock a job allows the candidate's ``build_model`` itself: Python that runs before any
    solve, which no Gurobi time limit bounds (an honest 12-customer build takes well under 1 s)."""
    job_grace_seconds: float = Field(default=5.0, ge=0.0)
    """Wall clock a job allows for everything that is not the candidate's: reading the job, matching
    the routing variable, fixing and restoring bounds for each probe, writing the verdict."""
    sandbox_cpu_seconds: int = Field(default=600, ge=1)
    sandbox_memory_mb: int = Field(default=4096, ge=64)
    sandboxes: int = Field(default=2, ge=1)
    """Warm sandboxes per worker (see ``SandboxPolicy.sandboxes``)."""
    sandbox_warm_jobs: int = Field(default=1000, ge=1)
    """Jobs one warm sandbox serves before a fresh one replaces it (see ``SandboxPolicy.warm_jobs``)."""
    head_start: Literal["auto", "always", "never"] = "auto"
    """Give the next job a head start in the other sandbox: "auto" while the host leaves a core
    idle, "always", or "never" (see ``SandboxPolicy.head_start``)."""

    log_level: str = "INFO"
    """Level of the API's and workers' log lines (DEBUG, INFO, WARNING, ERROR), see ``logs.py``."""
    log_json: bool = False
    """Write log lines as one JSON object each (for a log collector) instead of ``key=value`` text."""
    access_log: bool = True
    """The API writes one line per request (method, path, status, milliseconds; never a body or header)."""
    public_worker_details: bool = False
    """Show worker names and versions on /readyz and /metrics without a bearer token. Off by default:
    they tell a stranger which build runs where; with a valid token they are always shown."""

    redis_timeout_seconds: float = Field(default=2.0, gt=0.0)
    check_licence: bool = True
    """Probe the Gurobi licence size limit once at start-up (a 2001-variable model, in a subprocess)."""
    version: str = __version__
    """Verifier version; part of every cache key, so a new verifier never serves old verdicts."""

    @field_validator("api_tokens", mode="before")
    @classmethod
    def _split_tokens(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(t.strip() for t in value.split(",") if t.strip())
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        if self.default_time_limit > self.max_time_limit:
            raise ValueError(
                f"default_time_limit {self.default_time_limit} exceeds max_time_limit {self.max_time_limit}"
            )
        if self.default_wait_seconds > self.max_wait_seconds:
            raise ValueError(
                f"default_wait_seconds {self.default_wait_seconds} exceeds max_wait_seconds {self.max_wait_seconds}"
            )
        if self.sandbox_wall_seconds >= self.job_timeout_seconds:
            raise ValueError("sandbox_wall_seconds must stay below job_timeout_seconds, so the sandbox fires first")
        if self.worker_dead_after_seconds <= 2 * self.worker_heartbeat_seconds:
            raise ValueError("worker_dead_after_seconds must exceed two heartbeats")
        return self

    def job_wall_seconds(self, time_limit: float, probes: int) -> float:
        """The wall limit of one job: what its request's ``time_limit`` can use, never past the cap.

        A verification solves the candidate's model once (DIFF) and asks it once per probe plus one
        control query (the feasible probe again, under the violating probes' encoding), each solve
        capped at ``time_limit``; the build and our own work get allowances of their own:

            wall = min(sandbox_wall_seconds, job_build_seconds + time_limit * (probes + 2) + job_grace_seconds)

        A job past it (a ``while True`` in ``build_model``, a callback that never returns) ends as
        ``timeout`` and frees its worker; LLM policies write such loops routinely.
        """
        wanted = self.job_build_seconds + time_limit * (probes + 2) + self.job_grace_seconds
        return min(self.sandbox_wall_seconds, wanted)

    @property
    def unsandboxed_ok(self) -> bool:
        return self.executor is ExecutorKind.IN_PROCESS or self.allow_unsandboxed

    def token_values(self) -> frozenset[str]:
        return frozenset(t.get_secret_value() for t in self.api_tokens)

    def key(self, *parts: str) -> str:
        """A Redis key in the service's namespace."""
        return ":".join((self.key_prefix, *parts))

"""The local stack as real processes: Redis (found or started), the API under uvicorn, N workers.

The demo, the integration tests and the throughput benchmark all need the same thing: the service
exactly as deployed (separate processes talking HTTP and Redis), started on free ports and torn
down completely afterwards, including on Ctrl-C. Each stack gets its own queue name and key prefix,
so it never mixes jobs with another stack on the same Redis.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx
import redis
from pydantic import SecretStr

from vrpcoder_verifier.settings import Settings

_DEFAULT_REDIS = "redis://127.0.0.1:6379/0"


class StackError(RuntimeError):
    """A part of the local stack did not come up."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def redis_answers(url: str, timeout: float = 0.5) -> bool:
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except redis.exceptions.RedisError:
        return False


def _wait_until(predicate: object, timeout: float, what: str, process: subprocess.Popen[bytes] | None = None) -> None:
    assert callable(predicate)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if process is not None and process.poll() is not None:
            raise StackError(f"{what}: process exited with status {process.returncode}")
        time.sleep(0.05)
    raise StackError(f"{what}: not up after {timeout:.0f} s")


REDIS_PERSISTENCE: tuple[str, ...] = ("--appendonly", "yes", "--appendfsync", "everysec", "--save", "")
"""The Redis persistence the service ships (compose and k8s run Redis with these flags and its data
directory on a volume; tests/verifier/test_redis_persistence.py holds them to it).

Append-only file, fsync once a second: a restart (SIGTERM: a rolling update, a node drain) loses
nothing, and a crash (SIGKILL, power loss) at most the last second of writes, so registered
samples, queued batches, job records and cached verdicts survive it. RDB snapshots are off: the
AOF is the one copy (Redis 7 rewrites it compactly, with an RDB preamble, as it grows). The cost:
one write per second to the volume, and a start that replays the file (seconds for a few hundred
MB). Snapshots alone (RDB every few minutes) would cost less I/O but lose minutes of work on a
crash, and a Redis without persistence forgets every registered sample and queued item."""


class RedisServer:
    """A throw-away ``redis-server`` on a free port, stopped and restarted at will; ``persistent``
    runs it with the shipped persistence (``REDIS_PERSISTENCE``), so a restart keeps its data."""

    def __init__(self, port: int | None = None, *, persistent: bool = False) -> None:
        self.port = port or free_port()
        self.persistent = persistent
        self._process: subprocess.Popen[bytes] | None = None
        self._dir = Path(tempfile.mkdtemp(prefix="vrpcoder-redis-"))

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise StackError("redis-server is not installed (apt-get install redis-server)")
        persistence = REDIS_PERSISTENCE if self.persistent else ("--save", "", "--appendonly", "no")
        self._process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", *persistence,
             "--dir", str(self._dir), "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # Its own session: a Ctrl-C at the terminal reaches the command that owns the stack, which
            # stops the API and workers first (they still talk to Redis while they stop), then Redis.
            start_new_session=True,
        )
        _wait_until(lambda: redis_answers(self.url), timeout, f"redis-server on port {self.port}", self._process)

    def stop(self, *, graceful: bool = False) -> None:
        """Kill the server (SIGKILL), or with ``graceful`` stop it as a container runtime does
        (SIGTERM: it flushes its append-only file first)."""
        if self._process is not None and self._process.poll() is None:
            if graceful:
                self._process.terminate()
            else:
                self._process.kill()
            self._process.wait(timeout=30)
        self._process = None

    def restart(self, *, graceful: bool = True, down_seconds: float = 0.0) -> None:
        """Stop, stay down ``down_seconds``, start again on the same port with the same data directory."""
        self.stop(graceful=graceful)
        time.sleep(down_seconds)
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)


def settings_env(settings: Settings) -> dict[str, str]:
    """The environment that makes ``Settings()`` in a child process equal to ``settings``."""
    env: dict[str, str] = {}
    for name, value in settings:
        if isinstance(value, tuple):
            text = ",".join(v.get_secret_value() if isinstance(v, SecretStr) else str(v) for v in value)
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        env[f"VRPCODER_VERIFIER_{name.upper()}"] = text
    return env


def stack_settings(redis_url: str, **overrides: object) -> Settings:
    """Settings for a private stack: its own queue and key prefix, a random token, short TTLs."""
    run = uuid.uuid4().hex[:10]
    values: dict[str, object] = {
        "redis_url": redis_url,
        "queue_name": f"vrpcoder-stack-{run}",
        "key_prefix": f"vrpcoder:stack:{run}",
        "api_tokens": (SecretStr(uuid.uuid4().hex),),
        "result_ttl_seconds": 3600,
        "failure_ttl_seconds": 3600,
        "cache_ttl_seconds": 3600,
        "sample_ttl_seconds": 3600,
    }
    values.update(overrides)
    return Settings(**values)  # type: ignore[arg-type]


@dataclass
class LocalStack:
    """API + workers as subprocesses against ``settings.redis_url``; a context manager that cleans up."""

    settings: Settings
    workers: int = 2
    port: int = 0
    log_dir: Path | None = None
    worker_log_level: str = "WARNING"
    """INFO writes the workers' line per job (job, sample, verdict, reward, seconds, sandbox) to their logs."""
    api_process: subprocess.Popen[bytes] | None = None
    worker_processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    _logs: list[object] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def token(self) -> str:
        return self.settings.api_tokens[0].get_secret_value() if self.settings.api_tokens else ""

    def _env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("VRPCODER_VERIFIER_")}
        env.update(settings_env(self.settings))
        env.pop("REDIS_URL", None)
        env["PYTHONUNBUFFERED"] = "1"
        return env

    def _spawn(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        out: int | object = subprocess.DEVNULL
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            out = open(self.log_dir / f"{name}.log", "ab")  # noqa: SIM115 - closed in stop()
            self._logs.append(out)
        return subprocess.Popen(
            [sys.executable, "-m", "vrpcoder_verifier", *args],
            env=self._env(),
            stdout=out,  # type: ignore[arg-type]
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def start_worker(self) -> subprocess.Popen[bytes]:
        index = len(self.worker_processes)
        name = f"{self.settings.queue_name}-w{index}-{uuid.uuid4().hex[:4]}"
        process = self._spawn(f"worker-{index}", "worker", "--name", name, "--log-level", self.worker_log_level)
        self.worker_processes.append(process)
        return process

    def start(self, timeout: float = 60.0) -> Self:
        self.port = self.port or free_port()
        self.api_process = self._spawn("api", "api", "--port", str(self.port), "--log-level", "warning")
        for _ in range(self.workers):
            self.start_worker()
        _wait_until(self._api_up, timeout, f"verifier API on port {self.port}", self.api_process)
        self.wait_for_workers(self.workers, timeout)
        return self

    def stop_api(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 30.0) -> None:
        """Stop the API process with ``sig`` (SIGTERM: a rolling restart; SIGKILL: a crash) and wait for it."""
        process = self.api_process
        if process is None:
            return
        _signal_group(process, sig)
        process.wait(timeout=timeout)

    def start_api(self, timeout: float = 60.0) -> None:
        """Start the API again on the same port (after ``stop_api``) and wait until it answers."""
        self.api_process = self._spawn("api", "api", "--port", str(self.port), "--log-level", "warning")
        _wait_until(self._api_up, timeout, f"verifier API on port {self.port}", self.api_process)

    def kill_worker(self, index: int) -> None:
        """Kill a worker and its sandboxes at once (SIGKILL: an OOM kill or a lost node)."""
        process = self.worker_processes[index]
        _signal_group(process, signal.SIGKILL)
        process.wait(timeout=10)

    def _api_up(self) -> bool:
        try:
            return httpx.get(f"{self.base_url}/healthz", timeout=0.5).status_code == 200
        except httpx.HTTPError:
            return False

    def alive_workers(self) -> int:
        client = redis.Redis.from_url(self.settings.redis_url, socket_connect_timeout=1)
        try:
            return sum(1 for _ in client.scan_iter(match=self.settings.key("alive", "*")))
        except redis.exceptions.RedisError:
            return 0
        finally:
            client.close()

    def wait_for_workers(self, count: int, timeout: float = 60.0) -> None:
        _wait_until(lambda: self.alive_workers() >= count, timeout, f"{count} verifier workers")

    def stop(self) -> None:
        processes = [p for p in (self.api_process, *self.worker_processes) if p is not None]
        for process in processes:
            _signal_group(process, signal.SIGTERM)
        # One grace period for all parts together, so a stop is bounded whatever the number of workers.
        deadline = time.monotonic() + 10
        for process in processes:
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
        for process in processes:
            process.wait(timeout=10)
        for log in self._logs:
            assert hasattr(log, "close")
            log.close()
        self._logs.clear()

    def __enter__(self) -> Self:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


def _signal_group(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    """Each part runs in its own session, so its children (sandboxes) go down with it."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


@contextlib.contextmanager
def local_redis(url: str | None = None, *, env: str = "REDIS_URL") -> Iterator[str]:
    """The Redis at ``url`` or at the environment variable ``env`` when one is named (it must
    answer), else a private redis-server on a free port for as long as the block runs: nothing
    shared unless asked for. (The tests name theirs with VRPCODER_TEST_REDIS_URL, so a REDIS_URL
    meant for the service never points them at a shared server.)"""
    wanted = url or os.environ.get(env)
    if wanted:
        if not redis_answers(wanted):
            raise StackError(f"no Redis answers at {wanted}")
        yield wanted
        return
    server = RedisServer()
    server.start()
    try:
        yield server.url
    finally:
        server.close()


def _stack_keys(client: redis.Redis, settings: Settings) -> list[bytes]:
    """Every key a stack created: its own prefix, rq's keys named after its queue or its workers
    (whose names start with the queue's), and rq's keys of each job that came from its queue."""
    keys = [*client.scan_iter(match=f"{settings.key_prefix}:*", count=1000),
            *client.scan_iter(match=f"rq:*{settings.queue_name}*", count=1000)]
    job_keys = list(client.scan_iter(match="rq:job:*", count=1000))
    with client.pipeline(transaction=False) as pipe:
        for key in job_keys:
            pipe.hget(key, "origin")
        origins = pipe.execute()
    ours = [key.decode().removeprefix("rq:job:") for key, origin in zip(job_keys, origins, strict=True)
            if origin is not None and origin.decode() == settings.queue_name]
    for job_id in ours:
        keys += [f"rq:job:{job_id}".encode(), f"rq:results:{job_id}".encode(), f"rq:executions:{job_id}".encode()]
        keys += client.scan_iter(match=f"rq:execution:{job_id}:*", count=1000)
    return keys


def purge(settings: Settings) -> None:
    """Delete everything a stack left in a Redis it shared: its keys, its jobs' keys, and its queue's
    and workers' entries in rq's global sets (``rq:queues``, ``rq:workers``)."""
    client = redis.Redis.from_url(settings.redis_url, socket_connect_timeout=1)
    try:
        batch = _stack_keys(client, settings)
        for start in range(0, len(batch), 500):
            client.delete(*batch[start : start + 500])
        client.srem("rq:queues", f"rq:queue:{settings.queue_name}")
        workers = [w for w in client.smembers("rq:workers") if settings.queue_name in w.decode()]
        if workers:
            client.srem("rq:workers", *workers)
    except redis.exceptions.RedisError:
        return
    finally:
        client.close()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (make or docker stopping a command) unwinds like Ctrl-C, so a stack a command started
    goes down with it (outside the main thread signals are left alone)."""

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def private_stack(
    *, workers: int = 2, port: int = 0, log_dir: Path | None = None, **overrides: object
) -> Iterator[LocalStack]:
    """A private ``redis-server``, the API and ``workers`` workers for as long as the block runs, for a
    command that needs the service and was given none (``vrpcoder eval run``/``score``/``audit``).
    Everything is stopped and the throw-away Redis removed afterwards, on Ctrl-C and SIGTERM too.
    ``port`` 0 picks a free one. ``overrides`` go to :func:`stack_settings` (``executor``,
    ``allow_unsandboxed``, time limits, ``api_tokens``)."""
    server = RedisServer()
    try:
        with sigterm_as_interrupt():
            server.start()
            settings = stack_settings(server.url, **overrides)
            with LocalStack(settings, workers=workers, port=port, log_dir=log_dir) as stack:
                yield stack
    finally:
        server.close()

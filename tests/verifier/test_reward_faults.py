"""A GRPO-shaped client against a real stack while its parts fail: the shipped reward function, a
``sample_id`` column of samples registered once at the start (as the trainer does), groups of 8
completions, and during the run the API is killed and restarted, Redis (with the shipped
persistence) is restarted, and a worker is killed. The run must finish with every completion
scored or given a counted ``None`` with its reason, no exception reaching the trainer, and no job
lost or counted twice.
"""

from __future__ import annotations

import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
from vrpcoder.samples import Sample
from vrpcoder_client.client import VerifierClient
from vrpcoder_client.reward import make_verifier_reward
from vrpcoder_client.schemas import VerifyOptions, VerifyResult
from vrpcoder_verifier.stack import LocalStack, RedisServer, stack_settings

from tests.verifier.support import EXECUTOR, SYNTAX_ERROR, slow_gold

GROUP = 8
OPTIONS = VerifyOptions(time_limit=10.0)


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    sample_id: str
    expected: float


def _fenced(code: str) -> str:
    return f"Here is the model.\n```python\n{code}```\n"


def _group(step: int, samples: dict[str, Sample], ids: dict[str, str]) -> list[Completion]:
    """Eight completions for one prompt: golds (1.0), one slow gold (keeps items in flight while a
    part fails), a syntax error and a reply without code (0.0); every text distinct (no cache hit)."""
    name = sorted(samples)[step % len(samples)]
    sample, sample_id = samples[name], ids[name]
    golds = [Completion(_fenced(f"{sample.gold_code}\n# step {step} gold {i}\n"), sample_id, 1.0) for i in range(5)]
    slow = Completion(_fenced(f"{slow_gold(sample, 1.0)}\n# step {step} slow\n"), sample_id, 1.0)
    broken = Completion(_fenced(f"{SYNTAX_ERROR}# step {step}\n"), sample_id, 0.0)
    no_code = Completion(f"I cannot write this one (step {step}).", sample_id, 0.0)
    return [*golds, slow, broken, no_code]


@dataclass
class Faults:
    """Each fault fires once, on its own thread, half a second into the reward call of its step."""

    stack: LocalStack
    server: RedisServer
    at: dict[int, str]
    fired: list[str] = field(default_factory=list)
    _threads: list[threading.Thread] = field(default_factory=list)

    def step(self, index: int) -> None:
        fault = self.at.get(index)
        if fault is not None:
            thread = threading.Thread(target=self._fire, args=(fault,))
            thread.start()
            self._threads.append(thread)

    def _fire(self, fault: str) -> None:
        time.sleep(0.5)
        actions: dict[str, Callable[[], None]] = {
            "kill api": self._kill_api, "restart redis": self._restart_redis, "kill worker": self._kill_worker,
            "sigterm api": self._sigterm_api,
        }
        actions[fault]()
        self.fired.append(fault)

    def _kill_api(self) -> None:
        self.stack.stop_api(signal.SIGKILL)
        time.sleep(1.0)
        self.stack.start_api()

    def _sigterm_api(self) -> None:
        self.stack.stop_api(signal.SIGTERM)
        self.stack.start_api()

    def _restart_redis(self) -> None:
        self.server.restart(graceful=True, down_seconds=2.0)

    def _kill_worker(self) -> None:
        alive = [i for i, p in enumerate(self.stack.worker_processes) if p.poll() is None]
        self.stack.kill_worker(alive[0])
        self.stack.start_worker()

    def join(self) -> None:
        for thread in self._threads:
            thread.join(timeout=120)


@dataclass
class Run:
    rewards: list[float | None]
    expected: list[float]
    none_by_reason: dict[str, int]
    results: list[VerifyResult]
    made: set[str]
    recorded: set[str]
    counted: int
    seconds: float
    fired: list[str]


def _service_view(stack: LocalStack) -> tuple[set[str], set[str], int]:
    """The items the service made, those with a record, and how many endings its stats counted."""
    client = redis.Redis.from_url(stack.settings.redis_url, decode_responses=True)
    try:
        item, job = stack.settings.key("item", ""), stack.settings.key("job", "")
        made = {str(k).removeprefix(item) for k in client.scan_iter(match=f"{item}*", count=1000)}
        recorded = {str(k).removeprefix(job) for k in client.scan_iter(match=f"{job}*", count=1000)}
        stats = client.hgetall(stack.settings.key("stats"))
        counted = sum(int(v) for k, v in stats.items() if k == "failed" or str(k).startswith("verdict:"))
        return made, recorded, counted
    finally:
        client.close()


@pytest.fixture
def persistent_redis() -> Iterator[RedisServer]:
    server = RedisServer(persistent=True)
    server.start()
    try:
        yield server
    finally:
        server.close()


def _grpo_run(server: RedisServer, log_dir: Path, samples: dict[str, Sample], steps: int, faults: dict[int, str]) -> Run:
    settings = stack_settings(server.url, executor=EXECUTOR, allow_unsandboxed=True, check_licence=False)
    with LocalStack(settings, workers=2, log_dir=log_dir) as stack, VerifierClient(stack.base_url, stack.token) as client:
        ids = {name: client.register_sample(sample) for name, sample in samples.items()}
        seen: list[VerifyResult] = []
        reward = make_verifier_reward(client, OPTIONS, on_scored=lambda rs: seen.extend(r.result for r in rs if r.result is not None))
        drill = Faults(stack, server, faults)
        rewards: list[float | None] = []
        expected: list[float] = []
        started = time.monotonic()
        for step in range(steps):
            group = _group(step, samples, ids)
            drill.step(step)
            rewards += reward(["prompt"] * GROUP, [c.text for c in group], sample_id=[c.sample_id for c in group])
            expected += [c.expected for c in group]
        drill.join()
        seconds = time.monotonic() - started
        made, recorded, counted = _service_view(stack)
    return Run(rewards, expected, dict(reward.stats.none_by_reason), seen, made, recorded, counted, seconds, drill.fired)


def _check(run: Run, steps: int, faults: dict[int, str]) -> None:
    assert sorted(run.fired) == sorted(faults.values()), "a fault did not fire"
    assert len(run.rewards) == len(run.expected) == steps * GROUP
    nones = [i for i, r in enumerate(run.rewards) if r is None]
    assert sum(run.none_by_reason.values()) == len(nones), "a None was not counted with its reason"
    assert all(r == pytest.approx(e) for r, e in zip(run.rewards, run.expected, strict=True) if r is not None)
    job_ids = [r.job_id for r in run.results if r.job_id is not None]
    assert len(job_ids) == len(set(job_ids)), "two completions share a job"
    assert set(job_ids) <= run.made
    assert run.made <= run.recorded, f"jobs lost: {sorted(run.made - run.recorded)[:5]}"
    assert run.counted == len(run.recorded), "a job was counted twice (or not at all)"


def _summary(run: Run) -> str:
    nones = Counter(run.none_by_reason)
    return (f"{len(run.rewards)} completions in {run.seconds:.0f} s; faults: {', '.join(run.fired)}; "
            f"None: {sum(nones.values())} {dict(nones)}; jobs made {len(run.made)}, recorded {len(run.recorded)}, "
            f"counted {run.counted}")


FAST_FAULTS = {1: "kill api", 3: "restart redis", 4: "kill worker"}


def test_a_grpo_run_rides_out_each_part_failing_once(
    persistent_redis: RedisServer, tmp_path: Path, cvrp: Sample, tsp: Sample
) -> None:
    steps = 6
    run = _grpo_run(persistent_redis, tmp_path, {"CVRP": cvrp, "TSP": tsp}, steps, FAST_FAULTS)
    print(_summary(run))
    _check(run, steps, FAST_FAULTS)


SLOW_FAULTS = {2: "kill api", 6: "restart redis", 10: "kill worker", 14: "sigterm api", 18: "restart redis", 21: "kill worker"}


@pytest.mark.slow
def test_a_grpo_run_of_200_completions_rides_out_repeated_faults(
    persistent_redis: RedisServer, tmp_path: Path, cvrp: Sample, tsp: Sample
) -> None:
    steps = 26
    run = _grpo_run(persistent_redis, tmp_path, {"CVRP": cvrp, "TSP": tsp}, steps, SLOW_FAULTS)
    print(_summary(run))
    _check(run, steps, SLOW_FAULTS)

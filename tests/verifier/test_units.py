"""Pure parts of the service, no Redis or processes: settings, cache keys, wire models, the client's
retry rules (against httpx's in-memory transport)."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest
from pydantic import ValidationError
from vrpcoder.errors import ErrorKind, VerificationError
from vrpcoder.samples import Sample
from vrpcoder.verification import RewardWeights, Verdict, VerifyConfig
from vrpcoder_verifier.cache import CachedVerdict, cache_key, cacheable
from vrpcoder_client.client import RetryPolicy, VerifierClient, VerifierHTTPError, VerifierUnavailable
from vrpcoder_verifier.api.core.limits import ECHO_CHARS, NonFinite, brief, loads_finite
from vrpcoder_verifier.api.core.metrics import JobOutcomes
from vrpcoder_verifier.jobs import ItemSpec
from vrpcoder_verifier.queue import drains_for, infrastructure_verdict, text_fault
from vrpcoder_verifier.schemas import (
    BatchRequest,
    BatchResponse,
    JobState,
    VerifyRequest,
    VerifyResult,
    batch_response_json,
    cached_result_json,
    sample_digest,
)
from vrpcoder_verifier.settings import ExecutorKind, Settings
from vrpcoder_verifier.stack import settings_env

FAST_RETRY = RetryPolicy(attempts=3, backoff=0.001, max_backoff=0.002)


def test_settings_read_tokens_and_redis_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VRPCODER_VERIFIER_API_TOKENS", " alpha, beta ,,")
    monkeypatch.setenv("REDIS_URL", "redis://cache:6380/2")
    settings = Settings()
    assert settings.token_values() == {"alpha", "beta"}
    assert settings.redis_url == "redis://cache:6380/2"


def test_settings_env_round_trips_through_a_child_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    original = Settings(api_tokens="t1,t2", executor="in-process", max_time_limit=33.0, default_time_limit=30.0, queue_name="q")
    for name, value in settings_env(original).items():
        monkeypatch.setenv(name, value)
    assert Settings() == original


@pytest.mark.parametrize(
    "values",
    [
        {"default_time_limit": 200.0, "max_time_limit": 100.0},
        {"default_wait_seconds": 90.0, "max_wait_seconds": 60.0},
        {"worker_heartbeat_seconds": 3.0, "worker_dead_after_seconds": 5.0},
        {"sandbox_wall_seconds": 900.0, "job_timeout_seconds": 900},
        {"executor": "docker"},
        {"max_body_bytes": 10},
    ],
    ids=["time-limit", "wait", "heartbeat", "sandbox-vs-job-timeout", "executor", "tiny-body"],
)
def test_inconsistent_settings_are_refused(values: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Settings(**values)  # type: ignore[arg-type]


def test_in_process_executor_counts_as_an_explicit_opt_out() -> None:
    assert Settings(executor=ExecutorKind.IN_PROCESS).unsandboxed_ok
    assert not Settings().unsandboxed_ok


BASE_KEY = ("code", "a" * 64, "v1", VerifyConfig())


@pytest.mark.parametrize(
    "changed",
    [
        ("code ", "a" * 64, "v1", VerifyConfig()),
        ("code", "b" * 64, "v1", VerifyConfig()),
        ("code", "a" * 64, "v2", VerifyConfig()),
        ("code", "a" * 64, "v1", VerifyConfig(time_limit=5.0)),
        ("code", "a" * 64, "v1", VerifyConfig(weights=RewardWeights(build=0.1, diff=0.6, inj=0.3))),
    ],
    ids=["candidate", "sample", "version", "time-limit", "weights"],
)
def test_cache_key_changes_with_every_part(changed: tuple[str, str, str, VerifyConfig]) -> None:
    assert cache_key(*changed) != cache_key(*BASE_KEY)
    assert cache_key(*BASE_KEY) == cache_key(*BASE_KEY)


def test_cache_key_parts_cannot_bleed_into_each_other() -> None:
    assert cache_key("ab", "c", "v", VerifyConfig()) != cache_key("a", "bc", "v", VerifyConfig())


def test_infrastructure_verdicts_are_not_cached(cvrp: Sample) -> None:
    ours = infrastructure_verdict(cvrp, "worker lost")
    theirs = ours.model_copy(update={"reward": 0.0, "error": VerificationError(kind=ErrorKind.TIMEOUT, detail="slow")})
    assert ours.reward is None
    assert not cacheable(ours) and cacheable(theirs)


def test_time_budget_verdicts_are_not_cached(cvrp: Sample) -> None:
    """A less loaded worker, or a later attempt, may decide what this one ran out of time for."""
    budget = infrastructure_verdict(cvrp, "n/a").model_copy(
        update={"error": VerificationError(kind=ErrorKind.TIME_BUDGET, detail="out of time")}
    )
    assert not cacheable(budget)


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e999", "-1e400"])
def test_a_non_finite_number_in_a_body_is_read_as_a_marker(text: str) -> None:
    body = loads_finite(f'{{"options": {{"weights": {{"build": {text}}}}}, "ok": 1.5}}')
    value = body["options"]["weights"]["build"]
    assert isinstance(value, NonFinite) and value.text == text
    assert body["ok"] == 1.5


def test_a_validation_error_shows_a_non_finite_input_as_text() -> None:
    assert json.dumps([brief(float("nan")), brief(float("-inf")), brief(NonFinite("Infinity"))]) == '["nan", "-inf", "Infinity"]'


def test_sample_digest_is_content_addressed(cvrp: Sample, tsp: Sample) -> None:
    assert sample_digest(cvrp) == sample_digest(Sample.model_validate_json(cvrp.model_dump_json()))
    assert sample_digest(cvrp) != sample_digest(tsp)
    renamed = cvrp.model_copy(update={"reference_objective": cvrp.reference_objective + 1})
    assert sample_digest(renamed) != sample_digest(cvrp)


def test_a_job_s_wall_limit_follows_its_time_limit_and_probes_up_to_the_cap() -> None:
    settings = Settings(job_build_seconds=10.0, job_grace_seconds=5.0, sandbox_wall_seconds=600.0)
    assert settings.job_wall_seconds(5.0, 5) == pytest.approx(10.0 + 5.0 * 7 + 5.0)
    assert settings.job_wall_seconds(1.0, 0) == pytest.approx(17.0)
    assert settings.job_wall_seconds(5.0, 6) - settings.job_wall_seconds(5.0, 5) == pytest.approx(5.0)
    assert settings.job_wall_seconds(120.0, 30) == 600.0


@pytest.mark.parametrize(
    ("items", "workers", "drains"),
    [(1, 2, 1), (8, 2, 3), (315, 14, 15), (8, 0, 1), (3, 8, 3)],
    ids=["single", "group", "large-batch", "no-worker-counted", "few-items"],
)
def test_a_batch_gets_a_drain_per_alive_worker_and_one_more(items: int, workers: int, drains: int) -> None:
    assert drains_for(items, workers) == drains


def test_an_item_crosses_the_queue_unchanged() -> None:
    spec = ItemSpec(id="0" * 32, candidate="x = '\ud800'", sample_id="s", cache_key="k")
    assert ItemSpec(**json.loads(json.dumps(spec.wire()))) == spec


@pytest.mark.parametrize(
    ("candidate", "faulty"),
    [("def build_model():\n    return None\n", False), ("é → ∑ 😀", False), ("x = 1\n\ud800", True), ("\udfff", True)],
    ids=["ascii", "unicode", "lone-high-surrogate", "lone-low-surrogate"],
)
def test_text_that_is_not_unicode_is_the_candidate_s_syntax_error(candidate: str, faulty: bool) -> None:
    fault = text_fault(candidate)
    assert (fault is not None) == faulty
    if fault is not None:
        assert fault.kind is ErrorKind.SYNTAX_ERROR and fault.kind.is_candidate_fault
        fault.model_dump_json()  # the verdict that carries it can be written


def test_cache_keys_of_text_with_lone_surrogates_are_distinct() -> None:
    keys = {cache_key(text, "a" * 64, "v1", VerifyConfig()) for text in ("\ud800", "\ud801", "\udc00", "?")}
    assert len(keys) == 4


def test_a_validation_error_echoes_its_input_in_brief() -> None:
    body = {"candidate": "#" * 7_000_000, "sample_id": "\ud800", "items": list(range(1000)), "deep": {"a": {"b": {"c": 1}}}}
    shown = brief(body)
    text = json.dumps(shown, ensure_ascii=False).encode("utf-8")
    assert len(text) < 4 * ECHO_CHARS + 1000
    assert shown["candidate"].endswith("(7000000 characters)")
    assert shown["sample_id"] == "\\ud800"
    assert shown["items"][-1] == "... 990 more items"
    assert shown["deep"]["a"] == "{...} (1 keys)"


def test_job_outcomes_are_read_from_the_stats_hash() -> None:
    ended = JobOutcomes.of({b"failed": b"3", b"verdict:none": b"7", b"verdict:timeout": b"2",
                            b"drains_failed": b"4", b"batches_failed": b"1"})
    assert ended.failed == 3 and dict(ended.verdicts) == {"none": 7, "timeout": 2}
    assert (ended.failed_drains, ended.failed_batches) == (4, 1)
    assert JobOutcomes.of({}).failed == 0


def _cached_verdicts(sample: Sample) -> list[Verdict]:
    fault = infrastructure_verdict(sample, "worker lost")
    syntax = VerificationError(kind=ErrorKind.SYNTAX_ERROR, detail="line 1")
    return [_verdict(sample, 0.85), fault.model_copy(update={"reward": 0.0, "error": syntax}), fault]


def test_a_cache_hit_spliced_from_the_stored_verdict_is_the_model_s_json(cvrp: Sample) -> None:
    for verdict in _cached_verdicts(cvrp):
        cached = CachedVerdict.parse(verdict.model_dump_json().encode())
        model = VerifyResult(job_id=None, state=JobState.FINISHED, cached=True, verdict=verdict)
        spliced = cached_result_json(cached.raw, cached.reward)
        assert json.loads(spliced) == json.loads(model.model_dump_json())
        assert VerifyResult.model_validate_json(spliced) == model
        assert cached.error_kind == (verdict.error.kind.value if verdict.error is not None else "none")


def test_a_batch_body_joined_from_results_is_the_model_s_json(cvrp: Sample) -> None:
    results = [
        VerifyResult(job_id=None, state=JobState.FINISHED, cached=True, verdict=_verdict(cvrp, 1.0)),
        VerifyResult(job_id="a" * 32, state=JobState.QUEUED),
    ]
    for chosen in (results, results[:1]):
        model = BatchResponse(results=tuple(chosen))
        joined = batch_response_json([r.model_dump_json().encode() for r in chosen], model.complete)
        assert json.loads(joined) == json.loads(model.model_dump_json())


@pytest.mark.parametrize(
    "payload",
    [
        {"candidate": "x"},
        {"candidate": "x", "sample_id": "a" * 64, "sample": None, "extra": 1},
        {"candidate": "x", "sample_id": "A" * 64},
    ],
    ids=["no-sample", "extra-field", "upper-case-digest"],
)
def test_verify_request_validation(payload: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        VerifyRequest.model_validate(payload)


def test_batch_request_checks_inline_indices(cvrp: Sample) -> None:
    BatchRequest(items=({"candidate": "x", "sample_index": 0},), samples=(cvrp,))  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="sample_index 1"):
        BatchRequest(items=({"candidate": "x", "sample_index": 1},), samples=(cvrp,))  # type: ignore[arg-type]


def _client(handler: Callable[[httpx.Request], httpx.Response]) -> VerifierClient:
    return VerifierClient("http://verifier.test", "tok", retry=FAST_RETRY, transport=httpx.MockTransport(handler))


def _finished(verdict: Verdict) -> dict[str, object]:
    return VerifyResult(job_id="j" * 32, state=JobState.FINISHED, verdict=verdict).model_dump(mode="json")


def _batch_of(verdicts: list[Verdict]) -> dict[str, object]:
    return {"results": [_finished(v) for v in verdicts]}


def _verdict(sample: Sample, reward: float | None) -> Verdict:
    verdict = infrastructure_verdict(sample, "n/a")
    if reward is None:
        return verdict
    return verdict.model_copy(update={"reward": reward, "error": None, "build": True})


def test_client_retries_503_then_succeeds(cvrp: Sample) -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if len(calls) < 3:
            return httpx.Response(503, json={"detail": "queue backend unavailable"})
        assert request.headers["Authorization"] == "Bearer tok"
        return httpx.Response(200, json=_batch_of([_verdict(cvrp, 1.0)]))

    with _client(handler) as client:
        (result,) = client.verify_batch(["code"], "a" * 64)
    assert result.reward == 1.0
    assert calls == ["/v1/verify/batch"] * 3


def test_client_gives_up_after_its_attempts() -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        raise httpx.ConnectError("refused", request=request)

    with _client(handler) as client, pytest.raises(VerifierUnavailable):
        client.verify_batch(["code"], "a" * 64)
    assert calls == FAST_RETRY.attempts


@pytest.mark.parametrize("status", [400, 401, 403, 413, 422])
def test_client_does_not_retry_client_errors(status: int) -> None:
    calls = 0

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal calls
        calls += 1
        return httpx.Response(status, json={"detail": "no"})

    with _client(handler) as client, pytest.raises(VerifierHTTPError) as raised:
        client.job("0" * 32)
    assert (calls, raised.value.status) == (1, status)


def test_client_registers_a_sample_again_when_the_service_lost_it(cvrp: Sample) -> None:
    registrations = 0
    known: set[str] = set()

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal registrations
        if request.url.path == "/v1/samples":
            registrations += 1
            known.add(sample_digest(cvrp))
            return httpx.Response(201, json={"sample_id": sample_digest(cvrp), "name": cvrp.id})
        if registrations == 1:
            known.clear()  # the service restarted and forgot it
            registrations += 1
        if sample_digest(cvrp) not in known:
            return httpx.Response(404, json={"detail": "sample(s) not registered (...)"})
        return httpx.Response(200, json=_batch_of([_verdict(cvrp, 0.5)]))

    with _client(handler) as client:
        (result,) = client.verify_batch(["code"], cvrp)
    assert result.reward == 0.5
    assert registrations == 3

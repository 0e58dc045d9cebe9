"""The API over real HTTP: uvicorn, Redis and two worker processes (the session `stack`).

The central claim: a verdict fetched through the service is the verdict the in-process ``verify``
gives for the same candidate and sample (timings aside). The rest pins the HTTP contract: 202 with
a job id when the wait runs out, the cache, auth, body limit, validation, unknown ids.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
from vrpcoder.errors import ErrorKind
from vrpcoder.samples import Sample
from vrpcoder.verification import VerifyConfig, verify
from vrpcoder_client.client import VerifierClient, VerifierHTTPError
from vrpcoder_verifier.schemas import JobState, VerifyOptions, VerifyResult, sample_digest
from vrpcoder_verifier.stack import LocalStack

from tests.verifier.support import NO_BUILD_MODEL, RAISES, SYNTAX_ERROR, comparable, slow_gold, tiny_samples

CONFIG = VerifyConfig(time_limit=10.0)
OPTIONS = VerifyOptions(time_limit=10.0)


def _auth(stack: LocalStack) -> dict[str, str]:
    return {"Authorization": f"Bearer {stack.token}"}


@pytest.mark.parametrize(
    ("variant", "candidate_of"),
    [
        ("CVRP", lambda s: s.gold_code),
        ("TSP", lambda s: s.gold_code),
        ("VRPHTW", lambda s: s.gold_code),
        ("CVRP", lambda s: tiny_samples("TSP")[0].gold_code),
        ("CVRP", lambda s: SYNTAX_ERROR),
        ("CVRP", lambda s: NO_BUILD_MODEL),
        ("CVRP", lambda s: RAISES),
    ],
    ids=["cvrp-gold", "tsp-gold", "vrphtw-gold", "tsp-gold-on-cvrp", "syntax", "no-build-model", "raises"],
)
def test_http_verdict_equals_in_process_verify(client: VerifierClient, variant: str, candidate_of: object) -> None:
    assert callable(candidate_of)
    for sample in tiny_samples(variant):
        code = candidate_of(sample)
        remote = client.verify(code, sample, options=OPTIONS)
        local = verify(code, sample, CONFIG)
        assert remote.state is JobState.FINISHED
        assert remote.verdict is not None
        assert comparable(remote.verdict) == comparable(local)
        assert remote.reward == local.reward


def test_gold_earns_full_reward_and_garbage_earns_zero_not_none(client: VerifierClient, cvrp: Sample) -> None:
    gold, broken = client.verify_batch([cvrp.gold_code, SYNTAX_ERROR], cvrp, options=OPTIONS)
    assert gold.reward == pytest.approx(1.0)
    assert broken.verdict is not None and broken.verdict.error is not None
    assert broken.verdict.error.kind is ErrorKind.SYNTAX_ERROR
    assert broken.reward == 0.0


def test_batch_answers_in_request_order_across_samples(client: VerifierClient, cvrp: Sample, tsp: Sample) -> None:
    candidates = [cvrp.gold_code, SYNTAX_ERROR, tsp.gold_code, cvrp.gold_code, NO_BUILD_MODEL]
    samples = [cvrp, cvrp, tsp, tsp, tsp]
    results = client.verify_batch(candidates, samples, options=OPTIONS)
    expected = [verify(c, s, CONFIG) for c, s in zip(candidates, samples, strict=True)]
    assert [r.verdict.sample_id if r.verdict else None for r in results] == [s.id for s in samples]
    assert [comparable(r.verdict) for r in results if r.verdict] == [comparable(v) for v in expected]


def test_repeated_request_is_answered_from_the_cache(client: VerifierClient, cvrp: Sample) -> None:
    code = cvrp.gold_code + "\n# cache probe\n"
    first = client.verify(code, cvrp, options=OPTIONS)
    second = client.verify(code, cvrp, options=OPTIONS)
    other_config = client.verify(code, cvrp, options=VerifyOptions(time_limit=9.0))
    assert (first.cached, second.cached, other_config.cached) == (False, True, False)
    assert second.job_id is None
    assert second.verdict == first.verdict


def test_identical_items_of_a_batch_share_one_job(client: VerifierClient, cvrp: Sample) -> None:
    code = cvrp.gold_code + "\n# shared job\n"
    results = client.verify_batch([code, code, code], cvrp, options=OPTIONS)
    assert len({r.job_id for r in results}) == 1
    assert all(r.reward == pytest.approx(1.0) for r in results)


def test_slow_job_gets_202_then_finishes_via_get_job(stack: LocalStack, client: VerifierClient, cvrp: Sample) -> None:
    client.register_sample(cvrp)
    payload = {"candidate": slow_gold(cvrp, 1.5), "sample_id": sample_digest(cvrp), "wait": 0.1}
    response = httpx.post(f"{stack.base_url}/v1/verify", json=payload, headers=_auth(stack), timeout=30)
    assert response.status_code == 202
    pending = response.json()
    assert pending["state"] in ("queued", "running") and pending["reward"] is None
    done = client.wait([client.job(pending["job_id"])], timeout=60)[0]
    assert done.state is JobState.FINISHED
    assert done.reward == pytest.approx(1.0)


def test_registered_sample_is_referred_to_by_its_digest(client: VerifierClient, tsp: Sample) -> None:
    sample_id = client.register_sample(tsp)
    assert sample_id == sample_digest(tsp)
    result = client.verify(tsp.gold_code, sample_id, options=OPTIONS)
    assert result.reward == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("headers", "status"),
    [({}, 401), ({"Authorization": "Basic abc"}, 401), ({"Authorization": "Bearer wrong"}, 403)],
    ids=["none", "not-bearer", "wrong-token"],
)
def test_v1_needs_a_valid_bearer_token(stack: LocalStack, headers: dict[str, str], status: int) -> None:
    response = httpx.post(f"{stack.base_url}/v1/verify", json={}, headers=headers)
    assert response.status_code == status


@pytest.mark.parametrize("path", ["/healthz", "/metrics", "/readyz"])
def test_operational_endpoints_are_open(stack: LocalStack, path: str) -> None:
    assert httpx.get(f"{stack.base_url}{path}").status_code == 200


def test_body_over_the_limit_is_refused_with_413(stack: LocalStack) -> None:
    payload = {"candidate": "#" * (stack.settings.max_body_bytes + 10), "sample_id": "0" * 64}
    response = httpx.post(f"{stack.base_url}/v1/verify", json=payload, headers=_auth(stack))
    assert response.status_code == 413


def test_chunked_body_over_the_limit_is_refused_with_413(stack: LocalStack) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(stack.settings.max_body_bytes // 65536 + 2):
            yield b" " * 65536

    response = httpx.post(
        f"{stack.base_url}/v1/verify", content=chunks(), headers={**_auth(stack), "Content-Type": "application/json"}
    )
    assert response.status_code == 413


@pytest.mark.parametrize(
    "payload",
    [
        "not json",
        {"candidate": "x"},
        {"candidate": "x", "sample_id": "0" * 64, "sample": {"id": "s"}},
        {"candidate": "x", "sample_id": "not-a-digest"},
        {"candidate": 5, "sample_id": "0" * 64},
        {"candidate": "x", "sample_id": "0" * 64, "options": {"time_limit": -1}},
        {"candidate": "x", "sample_id": "0" * 64, "options": {"time_limit": 31}},
        {"candidate": "x", "sample_id": "0" * 64, "unknown": 1},
        {"candidate": "x", "sample_id": "0" * 64, "wait": -1},
    ],
    ids=["not-json", "no-sample", "both-samples", "bad-digest", "candidate-not-str", "negative-limit",
         "limit-over-cap", "extra-field", "negative-wait"],
)
def test_malformed_verify_requests_get_422(stack: LocalStack, payload: object) -> None:
    kwargs = {"content": payload} if isinstance(payload, str) else {"json": payload}
    response = httpx.post(
        f"{stack.base_url}/v1/verify", headers={**_auth(stack), "Content-Type": "application/json"}, **kwargs
    )
    assert response.status_code == 422, response.text


@pytest.mark.parametrize(
    "payload",
    [
        {"items": []},
        {"items": [{"candidate": "x", "sample_index": 0}]},
        {"items": [{"candidate": "x"}]},
        {"items": [{"candidate": "x", "sample_index": 0, "sample_id": "0" * 64}], "samples": []},
        {"items": [{"candidate": "x", "sample_id": "0" * 64}] * 301},
    ],
    ids=["empty", "index-without-samples", "no-reference", "two-references", "too-many-items"],
)
def test_malformed_batches_get_422(stack: LocalStack, payload: object) -> None:
    response = httpx.post(f"{stack.base_url}/v1/verify/batch", json=payload, headers=_auth(stack))
    assert response.status_code == 422, response.text


def test_unknown_job_is_404(client: VerifierClient) -> None:
    with pytest.raises(VerifierHTTPError) as raised:
        client.job("0" * 32)
    assert raised.value.status == 404


def test_unregistered_sample_id_is_404(client: VerifierClient) -> None:
    with pytest.raises(VerifierHTTPError) as raised:
        client.verify("x", "f" * 64)
    assert raised.value.status == 404
    assert "not registered" in str(raised.value.detail)


def test_readyz_reports_redis_workers_licence_and_sandbox(client: VerifierClient, stack: LocalStack) -> None:
    report = client.ready()
    assert report.ready and report.redis
    assert len(report.workers) >= 2
    assert report.licence in ("checking", "full", "size-limited") or report.licence.startswith("unavailable")
    assert all(w.sandbox.mechanism for w in report.workers)
    assert report.sandbox.mechanism


def test_metrics_expose_queue_latency_verdicts_and_cache(client: VerifierClient, stack: LocalStack, cvrp: Sample) -> None:
    code = cvrp.gold_code + "\n# metrics\n"
    client.verify(code, cvrp, options=OPTIONS)
    client.verify(code, cvrp, options=OPTIONS)
    text = httpx.get(f"{stack.base_url}/metrics").text
    for name in ("verifier_queue_depth", "verifier_job_latency_seconds_bucket", "verifier_cache_hit_ratio"):
        assert name in text
    assert 'verifier_verdicts_total{error_kind="none",source="cache"}' in text
    hits = next(line for line in text.splitlines() if line.startswith("verifier_cache_hits_total"))
    assert float(hits.split()[-1]) >= 1


def test_openapi_documents_the_versioned_routes(stack: LocalStack) -> None:
    paths = httpx.get(f"{stack.base_url}/openapi.json").json()["paths"]
    assert {"/v1/verify", "/v1/verify/batch", "/v1/jobs/{job_id}", "/v1/samples", "/readyz"} <= set(paths)


def test_openapi_documents_how_a_job_s_wall_limit_is_derived(stack: LocalStack) -> None:
    schema = httpx.get(f"{stack.base_url}/openapi.json").json()
    time_limit = schema["components"]["schemas"]["VerifyOptions"]["properties"]["time_limit"]
    assert "time_limit * (probes + 2)" in time_limit["description"]
    for path in ("/v1/verify", "/v1/verify/batch"):
        assert "sandbox_wall_seconds" in schema["paths"][path]["post"]["description"]


def test_a_wait_longer_than_redis_read_timeouts_still_gets_the_verdict(
    stack: LocalStack, client: VerifierClient, cvrp: Sample
) -> None:
    """redis-py reads time out after 5 s by default; a request may legitimately wait longer."""
    client.register_sample(cvrp)
    payload = {"candidate": slow_gold(cvrp, 5.5), "sample_id": sample_digest(cvrp), "wait": 20}
    response = httpx.post(f"{stack.base_url}/v1/verify", json=payload, headers=_auth(stack), timeout=30)
    assert response.status_code == 200, response.text
    assert response.json()["reward"] == pytest.approx(1.0)


def test_a_batch_answers_in_order_with_one_job_per_distinct_item(
    stack: LocalStack, client: VerifierClient, cvrp: Sample
) -> None:
    kinds = [cvrp.gold_code, SYNTAX_ERROR, NO_BUILD_MODEL, RAISES]
    unique = [f"{kinds[i % 4]}\n# batch item {i}\n" for i in range(8)]
    candidates = [*unique, unique[0], unique[5]]
    results = client.verify_batch(candidates, cvrp, options=OPTIONS)
    expected = [comparable(verify(c, cvrp, CONFIG)) for c in candidates]
    assert [comparable(r.verdict) for r in results if r.verdict] == expected
    ids = [r.job_id for r in results]
    assert all(ids) and len(set(ids[:8])) == 8 and (ids[8], ids[9]) == (ids[0], ids[5])
    for result in results[:8]:
        assert result.job_id is not None
        assert client.job(result.job_id) == result
    again = client.verify_batch(candidates, cvrp, options=OPTIONS)
    assert all(r.cached and r.job_id is None for r in again)
    assert [r.verdict for r in again] == [r.verdict for r in results]


def test_a_finished_batch_leaves_no_candidate_text_in_redis(stack: LocalStack, client: VerifierClient, cvrp: Sample) -> None:
    """Records, notices and cached verdicts hold no candidate; the batch's own keys go as it ends."""
    marker = "# text that must not stay in Redis"
    results = client.verify_batch([f"{cvrp.gold_code}\n{marker} {i}\n" for i in range(4)], cvrp, options=OPTIONS)
    assert all(r.reward == pytest.approx(1.0) for r in results)
    connection = redis.Redis.from_url(stack.settings.redis_url, decode_responses=True)
    try:
        token = connection.get(stack.settings.key("item", str(results[0].job_id)))
        assert token is not None
        assert list(connection.scan_iter(match=stack.settings.key("batch", str(token), "*"))) == []
    finally:
        connection.close()


def test_items_of_a_pending_batch_answer_get_job_by_their_own_ids(
    stack: LocalStack, client: VerifierClient, cvrp: Sample
) -> None:
    sample_id = client.register_sample(cvrp)
    slow = slow_gold(cvrp, 0.5)
    items = [{"candidate": f"{slow}\n# pending {i}\n", "sample_id": sample_id} for i in range(6)]
    payload = {"items": items, "options": OPTIONS.model_dump(mode="json"), "wait": 0}
    response = httpx.post(f"{stack.base_url}/v1/verify/batch", json=payload, headers=_auth(stack), timeout=30)
    assert response.status_code == 202
    pending = [VerifyResult.model_validate(r) for r in response.json()["results"]]
    assert all(r.job_id is not None and not r.done for r in pending)
    assert len({r.job_id for r in pending}) == len(items)
    polled = [client.job(r.job_id) for r in pending if r.job_id is not None]
    assert all(r.state in (JobState.QUEUED, JobState.RUNNING, JobState.FINISHED) for r in polled)
    done = client.wait(pending, timeout=60)
    assert all(r.state is JobState.FINISHED and r.reward == pytest.approx(1.0) for r in done)


def test_the_api_serves_on_uvloop_and_httptools(stack: LocalStack) -> None:
    """uvicorn picks them when installed; a plain asyncio loop and h11 cost a good share of a request."""
    assert stack.api_process is not None
    maps = Path(f"/proc/{stack.api_process.pid}/maps")
    if not maps.exists():
        pytest.skip("no /proc on this platform")
    loaded = maps.read_text()
    assert "uvloop" in loaded and "httptools" in loaded


LONE_SURROGATE = '{"candidate": "def build_model():\\n    return \\"\\ud800\\"\\n", "sample_id": "%s"}'
"""Valid JSON whose candidate holds a lone surrogate (``\\ud800``): a str Python cannot encode."""


def test_a_candidate_with_a_lone_surrogate_gets_a_syntax_error_verdict(
    stack: LocalStack, client: VerifierClient, cvrp: Sample
) -> None:
    sample_id = client.register_sample(cvrp)
    headers = {**_auth(stack), "Content-Type": "application/json"}
    response = httpx.post(f"{stack.base_url}/v1/verify", content=LONE_SURROGATE % sample_id, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    result = VerifyResult.model_validate(response.json())
    assert result.verdict is not None and result.verdict.error is not None
    assert result.verdict.error.kind is ErrorKind.SYNTAX_ERROR and result.reward == 0.0


def test_a_lone_surrogate_in_a_batch_does_not_break_its_neighbours(
    stack: LocalStack, client: VerifierClient, cvrp: Sample
) -> None:
    sample_id = client.register_sample(cvrp)
    items = [
        '{"candidate": "x = \\"\\udfff\\"", "sample_id": "%s"}' % sample_id,
        '{"candidate": %s, "sample_id": "%s"}' % (json.dumps(cvrp.gold_code + "\n# beside a surrogate\n"), sample_id),
    ]
    body = '{"items": [%s], "options": {"time_limit": 10}}' % ", ".join(items)
    headers = {**_auth(stack), "Content-Type": "application/json"}
    response = httpx.post(f"{stack.base_url}/v1/verify/batch", content=body, headers=headers, timeout=60)
    assert response.status_code == 200, response.text
    broken, gold = (VerifyResult.model_validate(r) for r in response.json()["results"])
    assert broken.verdict is not None and broken.verdict.error is not None
    assert broken.verdict.error.kind is ErrorKind.SYNTAX_ERROR
    assert gold.reward == pytest.approx(1.0)


def test_the_client_sends_a_lone_surrogate_and_its_batch_gets_every_verdict(client: VerifierClient, cvrp: Sample) -> None:
    broken, gold = client.verify_batch(["x = '\ud800'\n", cvrp.gold_code + "\n# the client's neighbour\n"], cvrp, options=OPTIONS)
    assert broken.verdict is not None and broken.verdict.error is not None
    assert broken.verdict.error.kind is ErrorKind.SYNTAX_ERROR and broken.reward == 0.0
    assert gold.reward == pytest.approx(1.0)


@pytest.mark.parametrize(
    "body",
    [
        lambda big: {"candidate": big, "sample_id": "0" * 64, "sample": {"id": "s"}},
        lambda big: {"candidate": big, "sample_id": "not-a-digest" * 1000},
        lambda big: {"items": [{"candidate": big}]},
    ],
    ids=["whole-body-error", "long-bad-field", "batch-item-error"],
)
def test_a_422_does_not_echo_a_huge_input(stack: LocalStack, body: object) -> None:
    assert callable(body)
    big = "#" * (stack.settings.max_body_bytes // 2)
    path = "/v1/verify/batch" if "items" in body("") else "/v1/verify"
    response = httpx.post(f"{stack.base_url}{path}", json=body(big), headers=_auth(stack), timeout=30)
    assert response.status_code == 422
    assert len(response.content) < 5000, f"{len(response.content)} bytes echoed"
    assert all({"type", "loc", "msg"} <= set(error) for error in response.json()["detail"])


def test_a_422_with_a_lone_surrogate_in_its_input_is_still_a_422(stack: LocalStack) -> None:
    body = '{"candidate": "\\ud800", "sample_id": "0", "sample": {"id": "\\ud800"}}'
    response = httpx.post(
        f"{stack.base_url}/v1/verify", content=body, headers={**_auth(stack), "Content-Type": "application/json"}
    )
    assert response.status_code == 422, response.text


def _counter(stack: LocalStack, name: str, labels: str = "") -> float:
    text = httpx.get(f"{stack.base_url}/metrics").text
    line = next((line for line in text.splitlines() if line.startswith(f"{name}{labels} ")), None)
    return 0.0 if line is None else float(line.split()[-1])


def test_a_verdict_fetched_through_get_job_after_a_202_is_counted_once(
    stack: LocalStack, client: VerifierClient, cvrp: Sample
) -> None:
    passed = '{error_kind="none",source="job"}'
    before = _counter(stack, "verifier_verdicts_total", passed)
    payload = {"candidate": slow_gold(cvrp, 1.0) + "\n# counted once\n", "sample_id": client.register_sample(cvrp), "wait": 0}
    response = httpx.post(f"{stack.base_url}/v1/verify", json=payload, headers=_auth(stack), timeout=30)
    assert response.status_code == 202
    done = client.wait([client.job(response.json()["job_id"])], timeout=60)[0]
    assert done.reward == pytest.approx(1.0)
    for _ in range(3):
        assert client.job(response.json()["job_id"]).state is JobState.FINISHED
    assert _counter(stack, "verifier_verdicts_total", passed) == before + 1


ZEROS = "0" * 64
NON_FINITE_BODIES = [
    ("/v1/verify", '{"candidate": "x", "sample_id": "%s", "options": {"time_limit": NaN}}' % ZEROS,
     ["body", "options", "time_limit"]),
    ("/v1/verify", '{"candidate": "x", "sample_id": "%s", "options": {"diff_tolerance": Infinity}}' % ZEROS,
     ["body", "options", "diff_tolerance"]),
    ("/v1/verify", '{"candidate": "x", "sample_id": "%s", "options": {"weights": {"build": NaN}}}' % ZEROS,
     ["body", "options", "weights", "build"]),
    ("/v1/verify", '{"candidate": "x", "sample_id": "%s", "wait": 1e999}' % ZEROS, ["body", "wait"]),
    ("/v1/verify/batch", '{"items": [{"candidate": "x", "sample_id": "%s"}], "options": {"weights": {"inj": -Infinity}}}' % ZEROS,
     ["body", "options", "weights", "inj"]),
]


@pytest.mark.parametrize(("path", "body", "loc"), NON_FINITE_BODIES,
                         ids=["time-limit-nan", "tolerance-inf", "weight-nan", "wait-1e999", "batch-weight-minus-inf"])
def test_non_finite_numbers_are_refused_with_422_at_their_field(stack: LocalStack, path: str, body: str, loc: list[str]) -> None:
    """JSON's NaN/Infinity once reached the workers as a configuration no drain could read (and a
    NaN time limit answered 500: the 422 could not encode its own input)."""
    response = httpx.post(f"{stack.base_url}{path}", content=body,
                          headers={**_auth(stack), "Content-Type": "application/json"}, timeout=30)
    assert response.status_code == 422, response.text
    errors = response.json()["detail"]
    assert any(e["loc"] == loc and e["type"] == "finite_number" for e in errors), errors


def _sample_json_with(sample: Sample, old: str, new: str) -> str:
    text = sample.model_dump_json()
    assert old in text
    return text.replace(old, new, 1)


def test_a_non_finite_number_in_a_sample_is_refused_everywhere_a_sample_goes(stack: LocalStack, cvrp: Sample) -> None:
    x = cvrp.instance.customers[0].x
    poisoned = _sample_json_with(cvrp, f'"customers":[{{"x":{x!r}', '"customers":[{"x":NaN')
    headers = {**_auth(stack), "Content-Type": "application/json"}
    bodies = {
        "/v1/samples": (poisoned, ["body", "instance", "customers", 0, "x"]),
        "/v1/verify": ('{"candidate": "x", "sample": %s}' % poisoned, ["body", "sample", "instance", "customers", 0, "x"]),
        "/v1/verify/batch": ('{"items": [{"candidate": "x", "sample_index": 0}], "samples": [%s]}' % poisoned,
                             ["body", "samples", 0, "instance", "customers", 0, "x"]),
    }
    for path, (body, loc) in bodies.items():
        response = httpx.post(f"{stack.base_url}{path}", content=body, headers=headers, timeout=30)
        assert response.status_code == 422, (path, response.text)
        assert any(e["loc"] == loc for e in response.json()["detail"]), (path, response.text)


def test_negative_reward_weights_are_refused(stack: LocalStack) -> None:
    payload = {"candidate": "x", "sample_id": ZEROS, "options": {"weights": {"diff": -4.2}}}
    response = httpx.post(f"{stack.base_url}/v1/verify", json=payload, headers=_auth(stack), timeout=30)
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["loc"] == ["body", "options", "weights", "diff"]


def _cut_sample(sample: Sample, customers: int) -> dict[str, object]:
    """The sample with its instance cut to its first ``customers`` and its probes left as they were."""
    data = sample.model_dump(mode="json")
    data["instance"]["customers"] = data["instance"]["customers"][:customers]  # type: ignore[index]
    return data


def test_a_sample_whose_probes_do_not_fit_its_instance_is_refused_with_the_path(stack: LocalStack, cvrp: Sample) -> None:
    """Cut to 2 customers with probes still for 5: the gold script would have scored 0.7 (index_mismatch)."""
    cut = _cut_sample(cvrp, 2)
    response = httpx.post(f"{stack.base_url}/v1/samples", json=cut, headers=_auth(stack), timeout=30)
    assert response.status_code == 422, response.text
    errors = response.json()["detail"]
    assert all(e["type"] == "sample_misfit" and e["loc"][:2] == ["body", "probes"] for e in errors)
    assert any(e["loc"][-2] == "visits" and "does not exist" in e["msg"] for e in errors), errors
    inline = httpx.post(f"{stack.base_url}/v1/verify", json={"candidate": cvrp.gold_code, "sample": cut},
                        headers=_auth(stack), timeout=30)
    assert inline.status_code == 422 and inline.json()["detail"][0]["loc"][:3] == ["body", "sample", "probes"]


def test_a_repeated_request_gets_the_jobs_of_its_first_attempt(
    stack: LocalStack, client: VerifierClient, cvrp: Sample
) -> None:
    """A client retrying after a 503 or a broken connection sends the same Idempotency-Key: the same
    job ids come back, and nothing is verified twice."""
    sample_id = client.register_sample(cvrp)
    items = [{"candidate": f"{slow_gold(cvrp, 0.5)}\n# repeated {i}\n", "sample_id": sample_id} for i in range(3)]
    headers = {**_auth(stack), "Idempotency-Key": "repeat-" + "0123456789abcdef"}
    connection = redis.Redis.from_url(stack.settings.redis_url)
    try:
        ran_before = sum(int(v) for v in connection.hvals(stack.settings.key("stats")))
        first = httpx.post(f"{stack.base_url}/v1/verify/batch", json={"items": items, "options": OPTIONS.model_dump(mode="json"),
                           "wait": 0}, headers=headers, timeout=30)
        assert first.status_code == 202
        again = httpx.post(f"{stack.base_url}/v1/verify/batch", json={"items": items, "options": OPTIONS.model_dump(mode="json"),
                           "wait": 30}, headers=headers, timeout=60)
        assert again.status_code == 200, again.text
        ids = [r["job_id"] for r in first.json()["results"]]
        assert [r["job_id"] for r in again.json()["results"]] == ids
        assert [r["reward"] for r in again.json()["results"]] == [pytest.approx(1.0)] * 3
        ran = sum(int(v) for v in connection.hvals(stack.settings.key("stats"))) - ran_before
    finally:
        connection.close()
    assert ran == 3, "an item of the repeated request was verified again"


def test_metrics_show_the_backlog_and_failed_drains(stack: LocalStack) -> None:
    text = httpx.get(f"{stack.base_url}/metrics", timeout=10).text
    for name in ("verifier_backlog_items", "verifier_queue_depth", "verifier_jobs_running",
                 "verifier_failed_drains_total", "verifier_failed_batches_total"):
        assert f"\n{name} " in text, name

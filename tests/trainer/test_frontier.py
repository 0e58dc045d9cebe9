"""Frontier filtering: classification of reward groups, scripted rollouts scored by the real
verifier, and the OpenAI-compatible rollout client against a local HTTP server (real sockets)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from vrpcoder.mutants import mutation_rules
from vrpcoder_client.client import VerifierClient
from vrpcoder_trainer.config import DatasetSettings, EndpointSettings, FrontierConfig, GenerationSettings, load_config
from vrpcoder_trainer.dataset import fenced, load_records
from vrpcoder_trainer.frontier import EndpointRollouts, Outcome, classify, reward_variance, run_frontier

from tests.trainer.support import NO_MODEL, cvrp_samples


def test_classification_by_reward_variance() -> None:
    assert classify([1.0, 1.0, 0.7], [True, True, False]) is Outcome.KEPT
    assert classify([1.0] * 6, [True] * 6) is Outcome.ALL_CORRECT
    assert classify([0.7] * 6, [False] * 6) is Outcome.ALL_WRONG, "equal but not passing: no signal, not correct"
    assert classify([0.0] * 6, [False] * 6) is Outcome.ALL_WRONG
    assert classify([None, None, 1.0], [False, False, True]) is Outcome.UNSCORED
    assert classify([None, 0.0, 1.0], [False, False, True]) is Outcome.KEPT, "None is left out, not counted as 0"
    assert reward_variance([None, 1.0, 1.0]) == 0.0 and reward_variance([0.0, 1.0]) == 0.25


@pytest.mark.parametrize("probes", [6, 12, 30])
def test_one_wrong_probe_in_a_group_is_signal_enough_to_keep_the_prompt(probes: int) -> None:
    """The paper keeps every prompt whose rollouts' rewards differ at all. The smallest difference
    the verifier makes is one probe answered wrongly (0.3 / probes of reward) in one rollout of M = 6;
    such a group teaches GRPO exactly the injection signal DIFF cannot give."""
    one_probe_short = round(1.0 - 0.3 / probes, 6)
    rewards = [1.0] * 5 + [one_probe_short]
    variance = reward_variance(rewards)
    assert variance is not None and 0.0 < variance < 1e-3
    assert classify(rewards, [True] * 5 + [False]) is Outcome.KEPT


class ScriptedRollouts:
    """Rollouts decided by the test, one script per prompt position (the policy's place)."""

    def __init__(self, scripts: Sequence[Sequence[str]]) -> None:
        self.scripts = list(scripts)
        self.calls = 0

    def sample(self, prompts: Sequence[Sequence[dict[str, str]]], n: int) -> list[list[str]]:
        out = []
        for _ in prompts:
            chosen = self.scripts[self.calls]
            assert len(chosen) == n
            out.append([fenced(code) if code else "I cannot help." for code in chosen])
            self.calls += 1
        return out


def test_frontier_keeps_only_prompts_with_reward_variance(client: VerifierClient, dataset_dir: Path, tmp_path: Path) -> None:
    samples = cvrp_samples()
    base, attacked = samples[0], samples[1]
    (ban,) = [r for r in mutation_rules("CVRP") if r.name == "spurious:arc_ban"]
    blind = ban.apply(attacked.gold_code, attacked)
    assert blind is not None
    rollouts = ScriptedRollouts([
        [base.gold_code] * 6,                                   # every rollout right: nothing to learn
        [attacked.gold_code] * 3 + [blind] * 3,                 # right and DIFF-blind: kept
    ][: len(samples)] + [[NO_MODEL] * 6] * (len(samples) - 2))  # any further prompt: uniformly wrong
    config = load_config("packaged:tiny_frontier_cpu.yaml", FrontierConfig,
                         {"dataset.path": str(dataset_dir), "output_dir": str(tmp_path / "frontier")})
    report = run_frontier(config, client=client, source=rollouts)
    assert report.prompts == len(samples) and report.rollouts_per_prompt == 6
    assert report.totals.get("all_correct") == 1 and report.totals.get("kept") == 1
    assert report.totals.get("all_wrong", 0) == len(samples) - 2
    assert report.by_variant["CVRP"]["kept"] == 1 and report.none_rewards == 0
    kept = load_records(DatasetSettings(path=str(tmp_path / "frontier"), config="frontier"))
    assert list(kept["id"]) == [attacked.id]
    assert (tmp_path / "frontier" / "samples" / f"{kept[0]['sample_id']}.json").is_file()
    lines = [json.loads(line) for line in (tmp_path / "frontier" / "rollouts.jsonl").read_text().splitlines()]
    assert [line["outcome"] for line in lines][:2] == ["all_correct", "kept"]
    assert "| CVRP |" in (tmp_path / "frontier" / "report.md").read_text()


class _ChatServer(BaseHTTPRequestHandler):
    requests: list[dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        choices = [{"index": i, "message": {"role": "assistant", "content": f"reply {i} to {body['messages'][-1]['content']}"}}
                   for i in range(body["n"])]
        payload = json.dumps({"id": "x", "object": "chat.completion", "choices": choices}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        return None


@pytest.fixture
def chat_server() -> Iterator[str]:
    _ChatServer.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _ChatServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_endpoint_rollouts_speak_the_openai_chat_protocol(chat_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ROLLOUT_KEY", "secret")
    source = EndpointRollouts(EndpointSettings(base_url=chat_server, model="policy", api_key_env="ROLLOUT_KEY", concurrency=2),
                              GenerationSettings(temperature=0.4, top_p=0.95, max_completion_length=128))
    try:
        out = source.sample([[{"role": "user", "content": "a"}], [{"role": "user", "content": "b"}]], 6)
    finally:
        source.close()
    assert out[0] == [f"reply {i} to a" for i in range(6)] and out[1][5] == "reply 5 to b"
    sent = _ChatServer.requests[0]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == "Bearer secret"
    assert {k: sent["body"][k] for k in ("model", "n", "temperature", "top_p", "max_tokens")} == {
        "model": "policy", "n": 6, "temperature": 0.4, "top_p": 0.95, "max_tokens": 128}
    assert "chat_template_kwargs" not in sent["body"], "sent only when the config asks for it"


def test_endpoint_rollouts_pass_chat_template_kwargs(chat_server: str) -> None:
    """Qwen3 thinking off: vLLM reads chat_template_kwargs from the request body."""
    settings = EndpointSettings(base_url=chat_server, model="policy", chat_template_kwargs={"enable_thinking": False})
    source = EndpointRollouts(settings, GenerationSettings(max_completion_length=16))
    try:
        source.sample([[{"role": "user", "content": "a"}]], 2)
    finally:
        source.close()
    assert _ChatServer.requests[0]["body"]["chat_template_kwargs"] == {"enable_thinking": False}
    shipped = load_config("packaged:frontier_qwen3_8b.yaml", FrontierConfig)
    assert shipped.endpoint is not None and shipped.endpoint.chat_template_kwargs == {"enable_thinking": False}


def test_frontier_with_local_rollouts_from_the_tiny_model(
    client: VerifierClient, dataset_dir: Path, tiny_model: Path, sft_adapter: Path, tmp_path: Path
) -> None:
    config = load_config("packaged:tiny_frontier_cpu.yaml", FrontierConfig, {
        "dataset.path": str(dataset_dir), "output_dir": str(tmp_path / "local"),
        "model.name_or_path": str(tiny_model), "model.adapters": [str(sft_adapter)]})
    report = run_frontier(config, client=client)
    assert report.prompts == len(cvrp_samples()) and report.rollouts_per_prompt == 6
    assert sum(report.totals.values()) == report.prompts and report.none_rewards == 0
    lines = [json.loads(line) for line in (tmp_path / "local" / "rollouts.jsonl").read_text().splitlines()]
    assert all(len(line["completions"]) == 6 and len(line["rewards"]) == 6 for line in lines)
    assert any("```python" in c for line in lines for c in line["completions"]), "the SFT'd tiny model writes code"

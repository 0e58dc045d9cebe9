"""KEDA's trigger against a live Redis: with a batch waiting and no worker to take it, the key the
ScaledObject reads (k8s/worker-autoscaler.yaml, listName) counts one entry per waiting item, as
KEDA's own length script reads it (a sorted set is counted with ZCARD).

The key is read from the manifest, never repeated here, so a manifest and a verifier that name
different keys fail this test."""

from __future__ import annotations

from pathlib import Path

import pytest
import redis
import yaml
from vrpcoder.samples import build_grid_point
from vrpcoder_client.client import VerifierClient
from vrpcoder_verifier.settings import Settings
from vrpcoder_verifier.stack import LocalStack, purge, stack_settings

from tests.verifier.support import KEDA_LIST_LENGTH

ROOT = Path(__file__).resolve().parents[2]
WAITING = 6


def _list_name() -> str:
    (scaled,) = [d for d in yaml.safe_load_all((ROOT / "k8s" / "worker-autoscaler.yaml").read_text()) if d]
    (trigger,) = scaled["spec"]["triggers"]
    return str(trigger["metadata"]["listName"])


def test_keda_list_counts_the_items_of_a_waiting_batch(redis_url: str, tmp_path: Path) -> None:
    # The deployed key prefix (k8s sets none), a queue of its own: what KEDA would see in the cluster.
    settings = stack_settings(redis_url, key_prefix=Settings.model_fields["key_prefix"].default, allow_unsandboxed=True)
    sample = build_grid_point("CVRP", 1, 0, time_limit=10).samples[0]
    connection = redis.Redis.from_url(redis_url)
    key = _list_name()
    connection.delete(key)
    try:
        with LocalStack(settings, workers=0, log_dir=tmp_path) as stack, VerifierClient(stack.base_url, stack.token) as client:
            sample_id = client.register_sample(sample.model_dump(mode="json"))
            candidates = [f"{sample.gold_code}\n# waiting {i}\n" for i in range(WAITING)]  # identical ones share a job
            results = client.verify_batch(candidates, sample_id, wait=0, until_done=False)
            assert len(results) == WAITING
            assert connection.exists(key), f"the verifier keeps no backlog under {key}, the key KEDA reads"
            assert int(connection.eval(KEDA_LIST_LENGTH, 1, key)) == WAITING
    finally:
        connection.delete(key)
        purge(settings)

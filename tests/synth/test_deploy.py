"""The synth job's deployment files: the k8s Job (schema-valid, hardened, suspended, resumable
volume), its ConfigMap's run config (a valid config that verifies through the service), and the
compose service."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from vrpcoder_synth.config import SynthConfig, default_config_text

ROOT = Path(__file__).resolve().parents[2]
JOB_FILE = ROOT / "k8s" / "synth-job.yaml"
DOCS = [d for d in yaml.safe_load_all(JOB_FILE.read_text()) if d]
BY_KIND = {d["kind"]: d for d in DOCS}


@pytest.mark.parametrize("document", DOCS, ids=[d["kind"] for d in DOCS])
def test_manifests_are_schema_valid(document: dict[str, Any]) -> None:
    kubernetes_validate.validate(document, "1.30.0", strict=True)


def test_job_is_hardened_suspended_and_writes_to_its_volume() -> None:
    job = BY_KIND["Job"]
    assert job["spec"]["suspend"] is True
    pod = job["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] and pod["automountServiceAccountToken"] is False
    (container,) = pod["containers"]
    assert container["securityContext"] == {
        "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "capabilities": {"drop": ["ALL"]},
    }
    assert container["resources"]["requests"] and container["resources"]["limits"]
    assert container["args"][:2] == ["synth", "run"]
    mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
    claims = {v["name"]: v for v in pod["volumes"]}
    out = container["args"][container["args"].index("--out") + 1]
    storage = yaml.safe_load((ROOT / "k8s" / "storage.yaml").read_text())
    assert claims[mounts["/data"]]["persistentVolumeClaim"]["claimName"] == storage["metadata"]["name"], "the one data volume"
    assert out.startswith("/data/")
    assert claims[mounts["/config"]]["configMap"]["name"] == BY_KIND["ConfigMap"]["metadata"]["name"]


def test_config_map_holds_a_valid_service_backed_config() -> None:
    config = SynthConfig.model_validate(tomllib.loads(BY_KIND["ConfigMap"]["data"]["synth.toml"]))
    assert config.verifier.backend == "service"
    assert config.verifier.url == "http://verifier-api:8000"
    env = {e["name"] for e in BY_KIND["Job"]["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert {config.verifier.token_env, config.teacher.api_key_env} <= env


def test_shipped_default_config_is_valid() -> None:
    config = SynthConfig.model_validate(tomllib.loads(default_config_text()))
    assert config.teacher.kind == "offline" and config.verifier.backend == "inprocess"


def test_kustomization_and_compose_know_the_synth_job() -> None:
    assert "synth-job.yaml" in yaml.safe_load((ROOT / "k8s" / "kustomization.yaml").read_text())["resources"]
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    synth = compose["services"]["synth"]
    assert synth["profiles"] == ["synth"]
    assert "vrpcoder synth run" in " ".join(synth["command"])
    assert synth["depends_on"]["verifier-api"]["condition"] == "service_healthy"
    assert synth["read_only"] is True and synth["cap_drop"] == ["ALL"]
    assert synth["build"]["target"] == "synth"


def test_dockerfile_has_a_light_synth_target_and_the_job_uses_it() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "FROM verifier AS synth" in dockerfile
    stage = dockerfile.split("FROM verifier AS synth", 1)[1].split("\nFROM ", 1)[0]
    assert "pip install --no-cache-dir ./services/synth" in stage and "USER 10001" in stage
    assert "trainer" not in stage
    assert dockerfile.rstrip().splitlines()[-1].startswith("USER "), "workspace stays the last (default) stage"
    image = BY_KIND["Job"]["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image.startswith("vrpcoder-synth:") and not image.endswith(":latest")

"""Deployment files: every Kubernetes manifest against the official schemas, and the hardening the
issue asks for (non-root, read-only root, no privilege escalation, requests/limits, worker egress
limited to Redis); the compose file's and the Dockerfile's structure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
KUBERNETES_VERSION = "1.30.0"

KEDA_SCALED_OBJECT = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "keda.sh/v1alpha1"},
        "kind": {"const": "ScaledObject"},
        "metadata": {"type": "object", "required": ["name"]},
        "spec": {
            "type": "object",
            "required": ["scaleTargetRef", "triggers"],
            "properties": {
                "scaleTargetRef": {"type": "object", "required": ["name"]},
                "minReplicaCount": {"type": "integer", "minimum": 0},
                "maxReplicaCount": {"type": "integer", "minimum": 1},
                "pollingInterval": {"type": "integer"},
                "cooldownPeriod": {"type": "integer"},
                "triggers": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "required": ["type", "metadata"],
                        "properties": {"metadata": {"type": "object", "additionalProperties": {"type": "string"}}},
                    },
                },
            },
        },
    },
}
"""The fields of KEDA's ScaledObject CRD this repository uses (KEDA ships no schema to validate against)."""


def _documents() -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        docs += [(f"{path.name}:{d['kind']}/{d['metadata']['name']}", d) for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


DOCUMENTS = _documents()
BY_NAME = {(d["kind"], d["metadata"]["name"]): d for _, d in DOCUMENTS}


@pytest.mark.parametrize(("name", "document"), DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
def test_manifest_is_valid(name: str, document: dict[str, Any]) -> None:
    if document["apiVersion"].startswith("keda.sh/"):
        jsonschema.validate(document, KEDA_SCALED_OBJECT)
    else:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def test_schema_validation_rejects_a_broken_manifest() -> None:
    broken = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "x"}, "spec": {"ports": [{"port": "http"}]}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


def test_kustomization_lists_every_manifest() -> None:
    listed = set(yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"])
    assert listed == {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}


DEPLOYMENTS = ["verifier-api", "verifier-worker", "redis"]


@pytest.mark.parametrize("name", DEPLOYMENTS)
def test_deployment_is_hardened_and_sized(name: str) -> None:
    spec = BY_NAME[("Deployment", name)]["spec"]["template"]["spec"]
    assert spec["securityContext"]["runAsNonRoot"] is True
    assert spec["securityContext"]["runAsUser"] != 0
    assert spec["automountServiceAccountToken"] is False
    for container in spec["containers"]:
        context = container["securityContext"]
        assert context["allowPrivilegeEscalation"] is False
        assert context["readOnlyRootFilesystem"] is True
        assert context["capabilities"]["drop"] == ["ALL"]
        assert {"cpu", "memory"} <= set(container["resources"]["requests"])
        assert {"cpu", "memory"} <= set(container["resources"]["limits"])


def test_api_and_worker_run_the_same_image_with_different_commands() -> None:
    api = BY_NAME[("Deployment", "verifier-api")]["spec"]["template"]["spec"]["containers"][0]
    worker = BY_NAME[("Deployment", "verifier-worker")]["spec"]["template"]["spec"]["containers"][0]
    assert api["image"] == worker["image"]
    assert api["args"][:2] == ["verifier", "api"] and worker["args"][:2] == ["verifier", "worker"]
    assert api["readinessProbe"]["httpGet"]["path"] == "/readyz"


def test_services_select_their_deployments() -> None:
    for name in ("verifier-api", "redis"):
        selector = BY_NAME[("Service", name)]["spec"]["selector"]
        labels = BY_NAME[("Deployment", name)]["spec"]["template"]["metadata"]["labels"]
        assert selector.items() <= labels.items()


def test_autoscaler_targets_the_worker_deployment_and_the_backlog() -> None:
    scaled = BY_NAME[("ScaledObject", "verifier-worker")]["spec"]
    assert scaled["scaleTargetRef"]["name"] == "verifier-worker"
    (trigger,) = scaled["triggers"]
    assert trigger["type"] == "redis"
    assert not trigger["metadata"]["listName"].startswith("rq:queue:"), "rq's queue holds a few drain jobs per batch"
    assert scaled["minReplicaCount"] <= scaled["maxReplicaCount"]


def test_worker_egress_reaches_only_redis_and_dns() -> None:
    policy = BY_NAME[("NetworkPolicy", "verifier-worker-egress")]["spec"]
    assert policy["podSelector"]["matchLabels"] == {"app.kubernetes.io/name": "verifier-worker"}
    assert set(policy["policyTypes"]) == {"Ingress", "Egress"}
    assert policy["ingress"] == []
    ports = {(p["protocol"], p["port"]) for rule in policy["egress"] for p in rule["ports"]}
    assert ports == {("TCP", 6379), ("UDP", 53), ("TCP", 53)}
    assert all(rule.get("to") for rule in policy["egress"]), "an egress rule without 'to' allows every address"


def _compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_compose_runs_api_workers_and_redis_from_one_image() -> None:
    services = _compose()["services"]
    assert {"redis", "verifier-api", "verifier-worker", "demo"} <= set(services)
    assert services["verifier-api"]["image"] == services["verifier-worker"]["image"]
    assert services["verifier-api"]["command"][:2] == ["verifier", "api"]
    assert services["verifier-worker"]["command"][:2] == ["verifier", "worker"]
    assert services["verifier-worker"]["deploy"]["replicas"] >= 2
    for name in ("verifier-api", "verifier-worker"):
        assert services[name]["environment"]["REDIS_URL"] == "redis://redis:6379/0"
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
        assert services[name]["read_only"] is True
        assert "no-new-privileges:true" in services[name]["security_opt"]


def test_compose_workers_have_no_route_out() -> None:
    compose = _compose()
    worker_networks = compose["services"]["verifier-worker"]["networks"]
    assert all(compose["networks"][n].get("internal") is True for n in worker_networks)
    assert "ports" not in compose["services"]["verifier-worker"]


def test_dockerfile_runs_as_a_non_root_user_with_bubblewrap() -> None:
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines() if line.strip()]
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    assert any("bubblewrap" in line for line in lines)
    assert any("./services/verifier" in line for line in lines if line.startswith("RUN pip install"))


def _run_instructions() -> list[str]:
    """The Dockerfile's RUN instructions, continuation lines joined: one string per layer."""
    joined = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("RUN ")]


def test_dockerfile_cleans_apt_in_the_layer_that_installs() -> None:
    """A later layer cannot shrink an earlier one: apt's lists and caches go in the same RUN."""
    installs = [run for run in _run_instructions() if "apt-get install" in run]
    assert installs
    for run in installs:
        assert "rm -rf /var/lib/apt/lists/*" in run and "/var/cache/apt" in run, run
        assert "--no-install-recommends" in run


def test_dockerfile_pip_keeps_no_cache() -> None:
    for run in _run_instructions():
        if "pip install" in run:
            assert "--no-cache-dir" in run, run


def test_compose_builds_the_verifier_target_and_lets_the_base_images_be_swapped() -> None:
    services = _compose()["services"]
    build = services["verifier-api"]["build"]
    assert build["target"] == "verifier"
    assert "VRPCODER_PYTHON_IMAGE" in build["args"]["PYTHON_IMAGE"]
    assert "VRPCODER_REDIS_IMAGE" in services["redis"]["image"]
    targets = [line.split()[-1] for line in (ROOT / "Dockerfile").read_text().splitlines() if line.startswith("FROM ")]
    assert "verifier" in targets


def test_only_the_workers_leave_the_default_seccomp_profile() -> None:
    """Candidates run in the workers only: the API keeps the runtime's seccomp profile in compose and
    in Kubernetes (so it has no sandbox of its own, which its readiness must not need); in Kubernetes
    the workers use the Localhost profiles of deploy/node/, never Unconfined."""
    worker = BY_NAME[("Deployment", "verifier-worker")]["spec"]["template"]["spec"]["securityContext"]
    assert worker["seccompProfile"]["type"] == worker["appArmorProfile"]["type"] == "Localhost"
    services = _compose()["services"]
    assert "seccomp=unconfined" in services["verifier-worker"]["security_opt"]
    assert not any("unconfined" in opt for opt in services["verifier-api"]["security_opt"])
    assert "/readyz" in " ".join(services["verifier-api"]["healthcheck"]["test"])
    api = BY_NAME[("Deployment", "verifier-api")]["spec"]["template"]["spec"]
    assert api["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    for container in api["containers"]:
        assert container["securityContext"].get("seccompProfile", {}).get("type", "RuntimeDefault") == "RuntimeDefault"
        assert "add" not in container["securityContext"]["capabilities"]

"""The eval job's deployment: k8s/eval-job.yaml against the official schemas, hardened like the
verifier's pods and wired to it; the compose `eval` service; the image that carries the service."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from vrpcoder_verifier.settings import Settings


ROOT = Path(__file__).resolve().parents[2]
KUBERNETES_VERSION = "1.30.0"
DOCS = [d for d in yaml.safe_load_all((ROOT / "k8s" / "eval-job.yaml").read_text()) if d]
BY_KIND = {d["kind"]: d for d in DOCS}


def _option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


@pytest.mark.parametrize("document", DOCS, ids=[d["kind"] for d in DOCS])
def test_manifest_is_valid(document: dict[str, Any]) -> None:
    kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def test_job_is_hardened_sized_and_suspended() -> None:
    job = BY_KIND["Job"]["spec"]
    assert job["suspend"] is True, "`kubectl apply -k` must not start an evaluation by itself"
    pod = job["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] != 0
    assert pod["automountServiceAccountToken"] is False and pod["restartPolicy"] == "Never"
    (container,) = pod["containers"]
    context = container["securityContext"]
    assert context["allowPrivilegeEscalation"] is False and context["readOnlyRootFilesystem"] is True
    assert context["capabilities"]["drop"] == ["ALL"]
    assert {"cpu", "memory"} <= set(container["resources"]["requests"]) <= set(container["resources"]["limits"])
    env = {e["name"]: e for e in container["env"]}
    assert env["MPLCONFIGDIR"]["value"].startswith("/tmp/"), "matplotlib needs a writable folder on a read-only root"
    assert any(m["mountPath"] == "/tmp" for m in container["volumeMounts"])


def test_job_runs_eval_against_the_verifier_service_with_a_resumable_volume() -> None:
    pod = BY_KIND["Job"]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    args = container["args"]
    assert args[:2] == ["eval", "run"]
    env = {e["name"]: e for e in container["env"]}
    verifier = yaml.safe_load_all((ROOT / "k8s" / "verifier-api.yaml").read_text())
    service = next(d for d in verifier if d and d["kind"] == "Service")
    assert env["VRPCODER_VERIFIER_URL"]["value"] == f"http://{service['metadata']['name']}:{service['spec']['ports'][0]['port']}"
    assert env["VRPCODER_VERIFIER_TOKEN"]["valueFrom"]["secretKeyRef"] == {"name": "verifier-client-token", "key": "token"}, \
        "one token, not the API's list"
    assert float(_option(args, "--time-limit")) <= Settings.model_fields["max_time_limit"].default
    data = next(v for v in pod["volumes"] if v["name"] == "data")
    storage = yaml.safe_load((ROOT / "k8s" / "storage.yaml").read_text())
    assert data["persistentVolumeClaim"]["claimName"] == storage["metadata"]["name"], "the one data volume"
    mount = next(m for m in container["volumeMounts"] if m["name"] == "data")["mountPath"]
    assert _option(args, "--out").startswith(mount) and _option(args, "--bench-dir").startswith(mount)
    kustomization = yaml.safe_load((ROOT / "k8s" / "kustomization.yaml").read_text())
    assert "eval-job.yaml" in kustomization["resources"]


def test_compose_eval_service() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    service = compose["services"]["eval"]
    assert service["profiles"] == ["eval"], "a plain `docker compose up` must not start an evaluation"
    assert service["command"][:3] == ["vrpcoder", "eval", "run"]
    assert float(_option(service["command"], "--time-limit")) <= Settings.model_fields["max_time_limit"].default
    assert service["environment"]["VRPCODER_VERIFIER_URL"] == "http://verifier-api:8000"
    assert service["depends_on"]["verifier-api"]["condition"] == "service_healthy"
    assert set(service["networks"]) & set(compose["services"]["verifier-api"]["networks"])
    assert service["read_only"] is True and "no-new-privileges:true" in service["security_opt"]
    assert service["build"]["target"] == "eval", "eval only calls HTTP: the light image, not the torch workspace"
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "AS eval" in dockerfile and "./services/eval" in dockerfile

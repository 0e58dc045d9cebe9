"""Training deployment files: Kubernetes manifests against the official schemas, GPU requests and
scheduling, shared checkpoint volume, hardening; the compose profile; the two trainer images."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import kubernetes_validate
import pytest
import yaml
from vrpcoder_trainer.config import FrontierConfig, GRPORunConfig, load_config

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s" / "training"
KUBERNETES_VERSION = "1.30.0"


def _documents() -> list[tuple[str, dict[str, Any]]]:
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        docs += [(f"{path.name}:{d['kind']}/{d['metadata']['name']}", d) for d in yaml.safe_load_all(path.read_text()) if d]
    return docs


DOCUMENTS = _documents()
BY_NAME = {(d["kind"], d["metadata"]["name"]): d for _, d in DOCUMENTS}
GPU_PODS = {("Job", "trainer-sft"): 4, ("Job", "trainer-grpo"): 3, ("Deployment", "vllm-grpo-server"): 1, ("Deployment", "vllm-openai"): 1}


@pytest.mark.parametrize(("name", "document"), DOCUMENTS, ids=[n for n, _ in DOCUMENTS])
def test_manifest_is_valid(name: str, document: dict[str, Any]) -> None:
    kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def test_kustomization_lists_every_manifest() -> None:
    listed = set(yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"])
    assert listed == {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}


def _pod(kind: str, name: str) -> dict[str, Any]:
    return BY_NAME[(kind, name)]["spec"]["template"]["spec"]


@pytest.mark.parametrize("key", [*GPU_PODS, ("Job", "trainer-frontier")], ids=lambda k: k[1])
def test_pods_are_hardened_and_sized(key: tuple[str, str]) -> None:
    spec = _pod(*key)
    assert spec["securityContext"]["runAsNonRoot"] is True and spec["securityContext"]["runAsUser"] != 0
    assert spec["automountServiceAccountToken"] is False
    for container in spec["containers"]:
        context = container["securityContext"]
        assert context["allowPrivilegeEscalation"] is False and context["readOnlyRootFilesystem"] is True
        assert context["capabilities"]["drop"] == ["ALL"]
        assert {"cpu", "memory"} <= set(container["resources"]["requests"]) and {"cpu", "memory"} <= set(container["resources"]["limits"])
        assert any(m["mountPath"] == "/tmp" for m in container["volumeMounts"]), "a read-only root needs a writable /tmp"


@pytest.mark.parametrize(("key", "gpus"), GPU_PODS.items(), ids=lambda k: k[1] if isinstance(k, tuple) else str(k))
def test_gpu_pods_request_their_gpus_and_land_on_gpu_nodes(key: tuple[str, str], gpus: int) -> None:
    spec = _pod(*key)
    (container,) = spec["containers"]
    assert container["resources"]["limits"]["nvidia.com/gpu"] == gpus == container["resources"]["requests"]["nvidia.com/gpu"]
    assert spec["nodeSelector"] and any(t["key"] == "nvidia.com/gpu" for t in spec["tolerations"])
    claims = {v["persistentVolumeClaim"]["claimName"] for v in spec["volumes"] if "persistentVolumeClaim" in v}
    assert "trainer-checkpoints" in claims
    assert any(m["mountPath"] == "/checkpoints" for m in container["volumeMounts"])


def test_checkpoint_volume_is_shared_between_pods() -> None:
    claim = BY_NAME[("PersistentVolumeClaim", "trainer-checkpoints")]
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]


def test_training_jobs_use_the_shipped_configs_and_accelerate_process_counts() -> None:
    grpo = " ".join(_pod("Job", "trainer-grpo")["containers"][0]["command"])
    sft = " ".join(_pod("Job", "trainer-sft")["containers"][0]["command"])
    assert "accelerate_zero2_3gpu.yaml" in grpo and "packaged:grpo_qwen3_8b.yaml" in grpo and "--resume last" in grpo
    assert "accelerate_zero2_4gpu.yaml" in sft and "packaged:sft_qwen3_8b.yaml" in sft
    config = load_config("packaged:grpo_qwen3_8b.yaml", GRPORunConfig)
    assert config.batch.num_processes == GPU_PODS[("Job", "trainer-grpo")]


def _service_url(name: str, port_name: str = "http") -> tuple[str, int]:
    service = BY_NAME[("Service", name)]
    labels = BY_NAME[("Deployment", name)]["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    (port,) = [p["port"] for p in service["spec"]["ports"] if p["name"] == port_name]
    return name, port


def test_grpo_rollouts_and_frontier_point_at_the_vllm_services() -> None:
    grpo = load_config("packaged:grpo_qwen3_8b.yaml", GRPORunConfig)
    assert grpo.vllm.base_url is not None
    url = urlparse(grpo.vllm.base_url)
    assert (url.hostname, url.port) == _service_url("vllm-grpo-server")
    nccl = [p for p in BY_NAME[("Service", "vllm-grpo-server")]["spec"]["ports"] if p["name"] == "nccl"]
    assert nccl and nccl[0]["port"] == 51216, "TRL's weight sync group port must be reachable"
    frontier = load_config("packaged:frontier_qwen3_8b.yaml", FrontierConfig)
    assert frontier.endpoint is not None
    url = urlparse(frontier.endpoint.base_url)
    assert (url.hostname, url.port) == _service_url("vllm-openai") and url.path == "/v1"
    command = _pod("Deployment", "vllm-openai")["containers"][0]["command"]
    assert "--enable-lora" in command and any(arg.startswith(f"{frontier.endpoint.model}=") for arg in command)


def test_compose_trainer_profile_runs_the_cpu_image() -> None:
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    trainer = services["trainer"]
    assert trainer["profiles"] == ["trainer"], "the CPU training demo must not start with the verifier stack"
    assert trainer["build"]["dockerfile"] == "Dockerfile.trainer-cpu"
    assert "benchmarks/grpo_injection_ablation.py" in trainer["command"]
    assert trainer["cap_drop"] == ["ALL"] and "no-new-privileges:true" in trainer["security_opt"]


def _pinned_torch() -> str:
    text = (ROOT / "services" / "trainer" / "pyproject.toml").read_text()
    (pin,) = re.findall(r'"torch==([^"]+)"', text)
    return pin


@pytest.mark.parametrize(("dockerfile", "index"), [("Dockerfile.trainer", "/whl/cu"), ("Dockerfile.trainer-cpu", "/whl/cpu")])
def test_trainer_images_install_the_pinned_torch_build_and_run_as_non_root(dockerfile: str, index: str) -> None:
    lines = [line.strip() for line in (ROOT / dockerfile).read_text().splitlines() if line.strip() and not line.startswith("#")]
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1] not in ("root", "0")
    torch_lines = [line for line in lines if "torch==" in line]
    assert torch_lines and all(f"torch=={_pinned_torch()}" in line and index in line for line in torch_lines)
    if dockerfile == "Dockerfile.trainer":
        assert lines[0].startswith("FROM nvidia/cuda:")
        assert any("services/trainer[vllm" in line for line in lines)
    else:
        assert not any("vllm" in line for line in lines), "the CPU image carries no vLLM"

"""Training deployment files of the trainer itself: the compose profile and the two trainer images.
The Kubernetes workflow (k8s/training) is rendered and cross-checked in tests/deploy/test_cluster.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


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
        (extras,) = [line.split("=", 1)[1] for line in lines if line.startswith("ARG TRAINER_EXTRAS=")]
        assert set(extras.split(",")) == {"vllm", "deepspeed"}, "flash-attn stays opt-in"
        assert any("services/trainer[${TRAINER_EXTRAS}]" in line for line in lines)
    else:
        assert not any("vllm" in line for line in lines), "the CPU image carries no vLLM"

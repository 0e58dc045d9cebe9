"""k8s/ and k8s/training/ rendered with kustomize and checked for what a cluster would trip over:
schemas (Kubernetes 1.30 and 1.33, Argo's own models), every URL reaching a Service port, every
volume a stage reads written by an earlier stage, images overridable and never :latest, the
namespace's Pod Security level admitting every pod, KEDA's trigger, GPU requests per stage."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import kubernetes_validate
import pytest
import yaml
from vrpcoder_verifier.jobs import backlog_key
from vrpcoder_verifier.settings import Settings

from tests.deploy import pod_security
from tests.deploy.cluster import (
    K8S,
    NAMESPACE,
    ROOT,
    TRAINING,
    by_kind,
    cluster,
    render,
    stages,
    unknown_keys,
    workflow,
    workloads,
)

KUBERNETES_VERSIONS = ("1.30.0", "1.33.0")
WORKER = "verifier-worker"


# ---- schemas ---------------------------------------------------------------------------------

@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_core_document_is_schema_valid(version: str) -> None:
    documents = [d for d in cluster() if not d["apiVersion"].startswith(("keda.sh/", "argoproj.io/"))]
    assert len(documents) > 10
    for document in documents:
        kubernetes_validate.validate(document, version, strict=True)


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_argo_pods_are_schema_valid_pod_specs(version: str) -> None:
    """Argo passes a template's container through to the pod: it must be a valid Kubernetes container."""
    argo = [w for w in workloads() if w.kind == "ArgoTemplate"]
    assert len(argo) >= 10
    for workload in argo:
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": workload.pod}
        kubernetes_validate.validate(pod, version, strict=True)


def test_workflow_template_matches_argos_models() -> None:
    from hera.workflows.models import WorkflowTemplate

    document = workflow()
    model = WorkflowTemplate.model_validate(document)
    assert unknown_keys(model, document) == []


def test_unknown_key_check_catches_a_typo() -> None:
    from hera.workflows.models import WorkflowTemplate

    document = yaml.safe_load(yaml.safe_dump(workflow()))
    document["spec"]["templates"][1]["container"]["imagee"] = "x"
    assert unknown_keys(WorkflowTemplate.model_validate(document), document) == [".spec.templates[1].container.imagee"]


def test_applying_the_training_kustomization_starts_nothing() -> None:
    """The old manifests started 5 GPU workloads at once; now only the workflow run starts pods."""
    training = render(TRAINING)
    assert not [d for d in training if d["kind"] in ("Deployment", "Job", "Pod", "StatefulSet", "Workflow")]
    assert {d["kind"] for d in training} >= {"WorkflowTemplate", "Service", "PersistentVolumeClaim"}


# ---- URLs -> Services --------------------------------------------------------------------------

URL = re.compile(r"https?://[A-Za-z0-9.-]+(?::\d+)?(?:/[^\s\"',}]*)?")


def _service_ports() -> dict[str, set[int]]:
    return {name: {p["port"] for p in s["spec"]["ports"]} for name, s in by_kind("Service").items()}


def _resolve(host: str, port: int) -> str | None:
    """Why ``host:port`` does not reach a Service in the namespace (None when it does)."""
    parts = host.split(".")
    service, rest = parts[0], parts[1:]
    if rest and rest[0] != NAMESPACE:
        return f"{host}: another namespace"
    if rest[1:] and rest[1:] not in (["svc"], ["svc", "cluster", "local"]):
        return f"{host}: not a Service name"
    ports = _service_ports().get(service)
    if ports is None:
        return f"{host}: no Service {service!r} in the render"
    if port not in ports:
        return f"{host}:{port}: Service {service} listens on {sorted(ports)}"
    return None


def _packaged_configs(text: str) -> set[str]:
    return set(re.findall(r"packaged:([\w.-]+\.yaml)", text))


def _urls_in_render() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for workload in workloads():
        text = yaml.safe_dump(workload.pod["containers"])
        found += [(workload.name, u) for u in URL.findall(text)]
        for name in _packaged_configs(text):
            config = (ROOT / "services/trainer/vrpcoder_trainer/configs" / name).read_text()
            found += [(f"{workload.name} -> {name}", u) for u in URL.findall(config)]
    for name, config_map in by_kind("ConfigMap").items():
        found += [(f"ConfigMap/{name}", u) for u in URL.findall(yaml.safe_dump(config_map["data"]))]
    return found


def test_every_url_resolves_to_a_service_port() -> None:
    urls = _urls_in_render()
    hosts = {urlparse(u).hostname for _, u in urls}
    assert {"verifier-api", "vllm-openai", "vllm-grpo-server"} <= hosts, hosts
    problems = []
    for where, url in urls:
        parsed = urlparse(url)
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        why = _resolve(parsed.hostname or "", port)
        if why:
            problems.append(f"{where}: {url}: {why}")
    assert problems == []


def test_url_check_catches_the_old_verifier_port() -> None:
    """The reported break: jobs called verifier-api:8000 while the Service listened on 80."""
    assert _resolve("verifier-api", 80) is not None and _resolve("vllm", 8000) is not None
    assert _resolve("verifier-api", 8000) is None and _resolve("redis.vrpcoder.svc.cluster.local", 6379) is None


def test_services_select_pods_that_listen_on_their_target_ports() -> None:
    pods = workloads()
    for name, service in by_kind("Service").items():
        selected = [w for w in pods if service["spec"]["selector"].items() <= w.labels.items()]
        assert selected, f"Service {name} selects no pod"
        for port in service["spec"]["ports"]:
            target = port.get("targetPort", port["port"])
            for workload in selected:
                container_ports = [p for c in workload.pod["containers"] for p in c.get("ports") or []]
                assert any(target in (p.get("name"), p["containerPort"]) for p in container_ports), (name, workload.name, target)


def test_grpo_weight_sync_port_is_trls() -> None:
    from trl import GRPOConfig

    ports = {p["name"]: p["port"] for p in by_kind("Service")["vllm-grpo-server"]["spec"]["ports"]}
    assert ports["nccl"] == GRPOConfig.__dataclass_fields__["vllm_group_port"].default


# ---- data flow between stages ------------------------------------------------------------------

def _config_paths(name: str) -> tuple[set[str], set[str]]:
    """(reads, writes) of a packaged run config: its model, adapters and dataset; its output."""
    from vrpcoder_trainer.config import load_config

    config = load_config(f"packaged:{name}")
    reads: set[str] = set()
    model = getattr(config, "model", None)
    if model is not None:
        reads |= {model.name_or_path, *model.adapters}
    if getattr(config, "dataset", None) is not None:
        reads.add(config.dataset.path)
    # a training run's product is its adapter (beside it only its own checkpoints); a merge or a
    # frontier filter writes its whole output folder
    output = f"{config.run.output_dir}/adapter" if hasattr(config, "run") else config.output_dir
    return {p for p in reads if p.startswith("/")}, {output}


def _step_paths(text: str) -> tuple[set[str], set[str]]:
    reads = set(re.findall(r"(?:--bench-dir|--model|vllm serve) (/[\w./-]+)", text))
    writes = set(re.findall(r"(?:--out|--local-dir|eval build) \"?(/[\w./-]+)", text))
    for name in _packaged_configs(text):
        config_reads, config_writes = _config_paths(name)
        reads |= config_reads
        writes |= config_writes
    return reads, writes


def _claim(step_template: dict[str, Any], path: str) -> str | None:
    spec = workflow()["spec"]
    body = step_template.get("container") or step_template.get("script") or {}
    volumes = {v["name"]: v for v in spec["volumes"]}
    for mount in body.get("volumeMounts") or []:
        if path == mount["mountPath"] or path.startswith(mount["mountPath"].rstrip("/") + "/"):
            return volumes[mount["name"]].get("persistentVolumeClaim", {}).get("claimName")
    return None


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def test_every_path_a_stage_reads_was_written_before_on_the_same_volume() -> None:
    steps = stages()
    writes = {step.path: _step_paths(step.text)[1] for step in steps}
    checked = 0
    for step in steps:
        reads, _ = _step_paths(step.text)
        for path in reads:
            writers = [w for w in steps if any(_within(path, out) for out in writes[w.path])]
            assert writers, f"{step.path} reads {path}, which no stage writes"
            assert any(w.path in step.after for w in writers), f"{step.path} reads {path} before its writer {writers[0].path} ran"
            claim = _claim(step.template, path)
            assert claim is not None, f"{step.path} reads {path} but mounts no volume there"
            writer_claims = {_claim(w.template, path) for w in writers if w.path in step.after}
            assert writer_claims == {claim}, f"{step.path} reads {path} from {claim}, written on {writer_claims}"
            checked += 1
    assert checked >= 10


def test_stages_run_in_the_papers_order() -> None:
    steps = stages()

    def stage(step_path: str) -> str:
        return step_path.split("/")[1]

    for later, earlier in [("sft", "download-model"), ("sft", "synth"), ("merge-sft", "sft"), ("frontier", "merge-sft"),
                           ("grpo", "frontier"), ("merge-grpo", "grpo"), ("eval", "merge-grpo"), ("eval", "eval-benchmarks")]:
        for step in (s for s in steps if stage(s.path) == later):
            assert any(stage(a) == earlier for a in step.after), f"{step.path} may start before {earlier}"


def test_the_model_is_downloaded_once_and_read_from_the_shared_volume() -> None:
    steps = stages()
    downloads = [s for s in steps if "hf download" in s.text]
    assert len(downloads) == 1
    model_dir = next(p["value"] for p in workflow()["spec"]["arguments"]["parameters"] if p["name"] == "model-dir")
    assert _claim(downloads[0].template, model_dir) == "vrpcoder-models"
    for step in steps:
        env = {e["name"]: e.get("value") for e in (step.template.get("container") or {}).get("env") or []}
        if step is not downloads[0] and "HF_HOME" in env:
            assert env.get("HF_HUB_OFFLINE") == "1", f"{step.path} could download the model again"


def test_synth_output_and_eval_read_the_same_volume_as_the_standalone_jobs() -> None:
    data_claims = set()
    for job in ("vrpcoder-synth", "vrpcoder-eval"):
        pod = by_kind("Job")[job]["spec"]["template"]["spec"]
        data_claims |= {v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"] if "persistentVolumeClaim" in v}
    synth = next(s for s in stages() if s.path == "/synth")
    assert data_claims == {_claim(synth.template, "/data/synth")} == {"vrpcoder-data"}


def test_every_claim_is_defined_and_shared_claims_are_read_write_many() -> None:
    claims = by_kind("PersistentVolumeClaim")
    used = {v["persistentVolumeClaim"]["claimName"] for w in workloads() for v in w.pod.get("volumes") or []
            if "persistentVolumeClaim" in v}
    assert used <= set(claims), used - set(claims)
    for name in used - {"redis-data"}:
        assert claims[name]["spec"]["accessModes"] == ["ReadWriteMany"], name


# ---- images ------------------------------------------------------------------------------------

def _images() -> list[tuple[str, str]]:
    return [(w.name, c["image"]) for w in workloads() for c in w.pod["containers"]]


def test_no_image_is_latest_or_untagged() -> None:
    for where, image in _images():
        name, _, tag = image.rpartition(":")
        assert name and tag and tag != "latest" and "/" not in tag, f"{where}: {image}"


def test_every_image_is_overridable_by_an_overlay(tmp_path: Path) -> None:
    """What `make k8s-overlay` writes: every image of ours moves to the registry and tag given."""
    ours = sorted({image.rpartition(":")[0] for _, image in _images() if image.startswith("vrpcoder-")})
    assert {"vrpcoder-verifier", "vrpcoder-synth", "vrpcoder-eval", "vrpcoder-trainer"} <= set(ours)
    for source in (K8S, TRAINING):
        overlay = tmp_path / source.name
        overlay.mkdir()
        images = [{"name": n, "newName": f"registry.example/team/{n}", "newTag": "9.9.9"} for n in ours]
        (overlay / "kustomization.yaml").write_text(yaml.safe_dump({"resources": [os.path.relpath(source, overlay)], "images": images}))
        for document in render(overlay):
            for image in re.findall(r"image: (\S+)", yaml.safe_dump(document)):
                if "vrpcoder-" in image:
                    assert image.startswith("registry.example/team/vrpcoder-") and image.endswith(":9.9.9"), image


def test_makefile_tag_matches_the_manifests() -> None:
    makefile = (ROOT / "Makefile").read_text()
    (tag,) = re.findall(r"^TAG \?= (\S+)$", makefile, flags=re.M)
    for source in (K8S, TRAINING):
        kustomization = yaml.safe_load((source / "kustomization.yaml").read_text())
        for entry in kustomization["images"]:
            if entry["name"].startswith("vrpcoder-"):
                assert entry["newTag"] == tag, (source, entry)
    compose = (ROOT / "docker-compose.yml").read_text()
    assert set(re.findall(r"VRPCODER_TAG:-([^}]+)\}", compose)) == {tag}
    built = set(re.findall(r"\b(\w[\w-]*):--(?:target|file)=", makefile))
    assert {image.rpartition(":")[0].removeprefix("vrpcoder-") for _, image in _images() if image.startswith("vrpcoder-")} <= built


# ---- Pod Security ------------------------------------------------------------------------------

def _namespace_level() -> str:
    labels = by_kind("Namespace")[NAMESPACE]["metadata"]["labels"]
    return labels["pod-security.kubernetes.io/enforce"]


def test_the_namespace_enforces_a_pod_security_level() -> None:
    labels = by_kind("Namespace")[NAMESPACE]["metadata"]["labels"]
    assert _namespace_level() in ("baseline", "restricted")
    assert labels["pod-security.kubernetes.io/warn"] == labels["pod-security.kubernetes.io/audit"] == "restricted"


def test_the_worker_is_admitted_by_its_namespace() -> None:
    worker = next(w for w in workloads() if w.name == WORKER)
    assert pod_security.violations(worker.pod, _namespace_level(), worker.annotations) == []


@pytest.mark.parametrize("workload", workloads(), ids=lambda w: w.name)
def test_every_pod_of_ours_meets_restricted(workload: Any) -> None:
    """Stricter than enforced: only Argo's injected executor containers keep the namespace at baseline."""
    assert pod_security.violations(workload.pod, "restricted", workload.annotations) == []


def test_the_old_worker_would_have_been_refused() -> None:
    worker = next(w for w in workloads() if w.name == WORKER)
    old = {**worker.pod, "securityContext": {**worker.pod["securityContext"], "seccompProfile": {"type": "Unconfined"}}}
    old["securityContext"].pop("appArmorProfile")
    assert pod_security.violations(old, "baseline") == ["securityContext.seccompProfile: Unconfined is not allowed"]


# ---- KEDA --------------------------------------------------------------------------------------

def _trigger() -> dict[str, str]:
    (scaled,) = by_kind("ScaledObject").values()
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "redis"
    return trigger["metadata"]


def test_keda_scales_the_worker_on_the_backlog_list() -> None:
    (scaled,) = by_kind("ScaledObject").values()
    assert scaled["spec"]["scaleTargetRef"]["name"] == WORKER and WORKER in by_kind("Deployment")
    metadata = _trigger()
    deployed = Settings.model_construct(key_prefix=Settings.model_fields["key_prefix"].default)  # k8s sets no prefix
    assert metadata["listName"] == backlog_key(deployed), "KEDA must read the key the verifier fills"
    assert not metadata["listName"].startswith("rq:queue:"), "rq's queue holds drain jobs, not the waiting items"
    host, port = metadata["address"].rsplit(":", 1)
    assert _resolve(host, int(port)) is None
    manifests = "".join(p.read_text() for p in K8S.glob("*.yaml"))
    assert manifests.count(metadata["listName"]) == 1, "the key is named in one place only"


def test_keda_operator_may_reach_redis() -> None:
    policy = by_kind("NetworkPolicy")["redis-ingress"]["spec"]
    keda = {"namespace": {"kubernetes.io/metadata.name": "keda"}, "pod": {"app.kubernetes.io/name": "keda-operator"}}
    port = int(_trigger()["address"].rsplit(":", 1)[1])
    allowed = False
    for rule in policy["ingress"]:
        ports = {p["port"] for p in rule.get("ports") or []}
        for peer in rule["from"]:
            ns = (peer.get("namespaceSelector") or {}).get("matchLabels")
            pod = (peer.get("podSelector") or {}).get("matchLabels") or {}
            if ns is not None and ns.items() <= keda["namespace"].items() and pod.items() <= keda["pod"].items():
                allowed |= not ports or port in ports
    assert allowed


# ---- GPUs --------------------------------------------------------------------------------------

GPUS = {"sft": 4, "grpo": 3, "vllm-openai": 1, "vllm-grpo-server": 1}


@pytest.mark.parametrize(("template", "gpus"), GPUS.items())
def test_gpu_stages_request_their_gpus_on_gpu_nodes(template: str, gpus: int) -> None:
    workload = next(w for w in workloads() if w.name.endswith(f".{template}"))
    (container,) = workload.pod["containers"]
    assert int(container["resources"]["requests"]["nvidia.com/gpu"]) == gpus == int(container["resources"]["limits"]["nvidia.com/gpu"])
    assert workload.pod["nodeSelector"] and any(t["key"] == "nvidia.com/gpu" for t in workload.pod["tolerations"])


def test_cpu_stages_request_no_gpu() -> None:
    for workload in workloads():
        if not any(workload.name.endswith(f".{t}") for t in GPUS):
            for container in workload.pod["containers"]:
                assert "nvidia.com/gpu" not in (container.get("resources") or {}).get("limits", {}), workload.name


def test_launch_configs_match_the_gpus_and_the_run_configs() -> None:
    from vrpcoder_trainer.config import load_config, packaged_path

    for template, config in (("sft", "sft_qwen3_8b.yaml"), ("grpo", "grpo_qwen3_8b.yaml")):
        step = next(s for s in stages() if s.template["name"] == template)
        (launch,) = re.findall(r"config-path (accelerate_\w+\.yaml)", step.text)
        accelerate = yaml.safe_load(packaged_path(launch).read_text())
        assert accelerate["num_processes"] == GPUS[template] == load_config(f"packaged:{config}").batch.num_processes
        assert f"packaged:{config}" in step.text and "--resume last" in step.text


def test_no_manifest_file_names_latest() -> None:
    """The render's tags come from kustomization images; the files themselves name a release too."""
    for path in [*K8S.glob("*.yaml"), *TRAINING.glob("*.yaml")]:
        assert not re.search(r"image: \S+:latest\b", path.read_text()), path

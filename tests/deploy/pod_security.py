"""Kubernetes Pod Security Standards (baseline, restricted) as the admission controller checks them,
for the fields our pods can carry (no PyPI package implements them; this follows the published
policy, https://kubernetes.io/docs/concepts/security/pod-security-standards/, version 1.30).

``violations(pod_spec, level)`` returns one line per failed check, empty when the pod is admitted.
Metadata annotations (the pre-1.30 AppArmor annotation) are passed separately.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

LEVELS = ("privileged", "baseline", "restricted")

BASELINE_CAPABILITIES = frozenset(
    {"AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP",
     "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"}
)
SAFE_SYSCTLS = frozenset(
    {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
     "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
     "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
     "net.ipv4.tcp_keepalive_probes"}
)
RESTRICTED_VOLUMES = frozenset(
    {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim", "projected", "secret"}
)
ALLOWED_SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"})
ALLOWED_PROFILE_TYPES = frozenset({"RuntimeDefault", "Localhost"})


def _containers(pod: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for field in ("initContainers", "containers", "ephemeralContainers"):
        for container in pod.get(field) or []:
            yield f"{field}[{container.get('name', '?')}]", container


def _baseline(pod: dict[str, Any], annotations: dict[str, str]) -> Iterator[str]:
    pod_context = pod.get("securityContext") or {}
    if pod_context.get("windowsOptions", {}).get("hostProcess"):
        yield "hostProcess: Windows host processes are not allowed"
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(field):
            yield f"{field}: host namespaces are not allowed"
    for volume in pod.get("volumes") or []:
        if "hostPath" in volume:
            yield f"volume {volume.get('name')}: hostPath volumes are not allowed"
    if (pod_context.get("seccompProfile") or {}).get("type") == "Unconfined":
        yield "securityContext.seccompProfile: Unconfined is not allowed"
    if (pod_context.get("appArmorProfile") or {}).get("type") == "Unconfined":
        yield "securityContext.appArmorProfile: Unconfined is not allowed"
    for key, value in annotations.items():
        if key.startswith("container.apparmor.security.beta.kubernetes.io/") and not (
            value == "runtime/default" or value.startswith("localhost/")
        ):
            yield f"annotation {key}={value}: only runtime/default or localhost/* are allowed"
    yield from _selinux("securityContext", pod_context)
    for sysctl in pod_context.get("sysctls") or []:
        if sysctl.get("name") not in SAFE_SYSCTLS:
            yield f"sysctl {sysctl.get('name')}: not a safe sysctl"
    for where, container in _containers(pod):
        context = container.get("securityContext") or {}
        if context.get("privileged"):
            yield f"{where}: privileged containers are not allowed"
        if context.get("windowsOptions", {}).get("hostProcess"):
            yield f"{where}: Windows host processes are not allowed"
        added = set((context.get("capabilities") or {}).get("add") or []) - BASELINE_CAPABILITIES
        if added:
            yield f"{where}: capabilities {sorted(added)} beyond the baseline set"
        for port in container.get("ports") or []:
            if port.get("hostPort"):
                yield f"{where}: hostPort {port['hostPort']} is not allowed"
        for field in ("seccompProfile", "appArmorProfile"):
            if (context.get(field) or {}).get("type") == "Unconfined":
                yield f"{where}: {field} Unconfined is not allowed"
        if context.get("procMount", "Default") != "Default":
            yield f"{where}: procMount must be Default"
        yield from _selinux(where, context)


def _selinux(where: str, context: dict[str, Any]) -> Iterator[str]:
    options = context.get("seLinuxOptions") or {}
    if options.get("type", "") not in ALLOWED_SELINUX_TYPES:
        yield f"{where}: SELinux type {options['type']} is not allowed"
    if options.get("user") or options.get("role"):
        yield f"{where}: SELinux user and role must not be set"


def _restricted(pod: dict[str, Any]) -> Iterator[str]:
    pod_context = pod.get("securityContext") or {}
    for volume in pod.get("volumes") or []:
        kinds = set(volume) - {"name"}
        if not kinds <= RESTRICTED_VOLUMES:
            yield f"volume {volume.get('name')}: type {sorted(kinds)} is not allowed"
    if pod_context.get("runAsUser") == 0:
        yield "securityContext.runAsUser: 0 is not allowed"
    pod_non_root = pod_context.get("runAsNonRoot") is True
    pod_seccomp = (pod_context.get("seccompProfile") or {}).get("type")
    for where, container in _containers(pod):
        context = container.get("securityContext") or {}
        if context.get("allowPrivilegeEscalation") is not False:
            yield f"{where}: allowPrivilegeEscalation must be false"
        if context.get("runAsNonRoot") is False or not (pod_non_root or context.get("runAsNonRoot") is True):
            yield f"{where}: runAsNonRoot must be true (pod or container)"
        if context.get("runAsUser") == 0:
            yield f"{where}: runAsUser 0 is not allowed"
        seccomp = (context.get("seccompProfile") or {}).get("type") or pod_seccomp
        if seccomp not in ALLOWED_PROFILE_TYPES:
            yield f"{where}: seccompProfile must be RuntimeDefault or Localhost (got {seccomp})"
        capabilities = context.get("capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []):
            yield f"{where}: capabilities must drop ALL"
        added = set(capabilities.get("add") or []) - {"NET_BIND_SERVICE"}
        if added:
            yield f"{where}: only NET_BIND_SERVICE may be added (got {sorted(added)})"


def violations(pod: dict[str, Any], level: str, annotations: dict[str, str] | None = None) -> list[str]:
    """What Pod Security admission at ``level`` would refuse in this pod spec (empty: admitted)."""
    if level not in LEVELS:
        raise ValueError(f"unknown Pod Security level {level!r}; one of {', '.join(LEVELS)}")
    if level == "privileged":
        return []
    found = list(_baseline(pod, annotations or {}))
    if level == "restricted":
        found += list(_restricted(pod))
    return found

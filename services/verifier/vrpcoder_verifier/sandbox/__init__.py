"""Sandboxed execution of untrusted candidate scripts (bubblewrap namespaces, rlimits, a warm
supervisor that forks one child per job). The threat model is in docs/sandbox.md."""

from vrpcoder_verifier.sandbox.executor import (
    ExecutionRecord,
    SandboxExecutor,
    SandboxStatus,
    SandboxUnavailable,
    sandbox_status,
)
from vrpcoder_verifier.sandbox.policy import SandboxPolicy

__all__ = [
    "ExecutionRecord",
    "SandboxExecutor",
    "SandboxPolicy",
    "SandboxStatus",
    "SandboxUnavailable",
    "sandbox_status",
]

"""SandboxPolicy: the defaults the service relies on, validation, and the derived byte counts."""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from vrpcoder_verifier.sandbox import SandboxPolicy


def test_defaults_are_the_documented_limits() -> None:
    policy = SandboxPolicy()
    assert (policy.wall_seconds, policy.cpu_seconds, policy.memory_mb) == (120, 120, 2048)
    assert (policy.max_processes, policy.max_file_mb, policy.max_output_kb) == (64, 16, 256)
    assert policy.allow_unsandboxed is False


def test_derived_sizes() -> None:
    policy = SandboxPolicy(max_output_kb=2, max_file_mb=3)
    assert policy.max_output_bytes == 2048
    assert policy.output_flood_bytes == 64 * 2048
    assert policy.scratch_bytes == 4 * 3 * 1024 * 1024


def test_policy_is_frozen() -> None:
    policy = SandboxPolicy()
    with pytest.raises(ValidationError):
        policy.wall_seconds = 1.0  # type: ignore[misc]


@pytest.mark.parametrize(
    "field",
    [
        {"wall_seconds": 0},
        {"wall_seconds": -5},
        {"cpu_seconds": 0},
        {"memory_mb": 0},
        {"max_processes": 0},
        {"max_file_mb": 0},
        {"max_output_kb": 0},
        {"warm_jobs": 0},
        {"network": True},
    ],
    ids=lambda f: next(iter(f)),
)
def test_invalid_policy_is_rejected(field: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        SandboxPolicy(**field)  # type: ignore[arg-type]

"""The public sampling API: determinism, JSON round trip, input validation and applicability."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

from collections.abc import Callable

import pytest

from vrpcoder.instances import Instance
from vrpcoder.sampling import SamplingError, applicable_profiles, sample_instance, sample_with_plan
from vrpcoder.sampling import sampler as sampler_module
from vrpcoder.solutions import Solution
from vrpcoder.variants import VARIANTS

Sampler = Callable[[str, int, int], tuple[Instance, Solution]]

COMBOS = [(v, p) for v in VARIANTS for p in applicable_profiles(v)]


@pytest.mark.parametrize(("variant", "profile"), COMBOS)
def test_same_inputs_give_byte_identical_json(variant: str, profile: int, sampled: Sampler) -> None:
    earlier = sampled(variant, profile, 0)[0].model_dump_json()
    assert sample_instance(variant, profile, 0).model_dump_json() == earlier


def test_sample_instance_is_the_instance_of_sample_with_plan() -> None:
    assert sample_instance("HFVRPHTW", 15, 4) == sample_with_plan("HFVRPHTW", 15, 4)[0]


@pytest.mark.parametrize(("variant", "profile"), COMBOS)
def test_json_round_trip_is_lossless(variant: str, profile: int, sampled: Sampler) -> None:
    instance, _ = sampled(variant, profile, 0)
    assert Instance.model_validate_json(instance.model_dump_json()) == instance


@pytest.mark.parametrize(("variant", "profile"), COMBOS)
def test_different_seeds_give_different_instances(variant: str, profile: int, sampled: Sampler) -> None:
    first, second = sampled(variant, profile, 0)[0], sampled(variant, profile, 1)[0]
    assert first.customers != second.customers


def test_variant_names_are_case_insensitive() -> None:
    assert sample_instance("cvrp", 3, 2) == sample_instance("CVRP", 3, 2)


def test_the_generator_does_not_depend_on_python_hash_seeds() -> None:
    code = (
        "import hashlib; from vrpcoder.sampling import sample_instance; "
        "print(hashlib.sha256(sample_instance('MCVRPSTW', 15, 3).model_dump_json().encode()).hexdigest())"
    )
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        digests.add(out.stdout.strip())
    here = hashlib.sha256(sample_instance("MCVRPSTW", 15, 3).model_dump_json().encode()).hexdigest()
    assert digests == {here}


@pytest.mark.parametrize(
    ("variant", "profile"),
    [
        ("TSP", 14),
        ("TSP", 15),
        ("PDPTW", 14),
        ("HFVRP", 14),
        ("HFMDVRP", 15),
        ("HFMCVRP", 14),
        ("MCVRP", 14),
        ("MCVRPSTW", 14),
        ("CVRP", 15),
        ("SDVRP", 15),
        ("PDP", 15),
        ("VRPB", 15),
        ("OVRP", 15),
        ("DCVRP", 15),
        ("MDVRP", 15),
    ],
)
def test_inapplicable_profiles_are_refused_by_name(variant: str, profile: int) -> None:
    allowed = ", ".join(str(p) for p in applicable_profiles(variant))
    with pytest.raises(ValueError) as error:
        sample_instance(variant, profile, 0)
    message = str(error.value)
    assert variant in message and f"profile {profile}" in message and allowed in message


@pytest.mark.parametrize(
    ("variant", "profile", "seed", "match"),
    [
        ("VRPXYZ", 1, 0, "unknown variant"),
        ("CVRP", 0, 0, "profile"),
        ("CVRP", 16, 0, "profile"),
        ("CVRP", -3, 0, "profile"),
        ("CVRP", 1.0, 0, "profile"),
        ("CVRP", True, 0, "profile"),
        ("CVRP", 1, -1, "seed"),
        ("CVRP", 1, 2.5, "seed"),
    ],
)
def test_invalid_inputs_are_refused(variant: str, profile: object, seed: object, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        sample_instance(variant, profile, seed)  # type: ignore[arg-type]


def test_an_exhausted_attempt_budget_raises_instead_of_returning(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sampler_module, "MAX_ATTEMPTS", 0)
    with pytest.raises(SamplingError, match="no feasible CVRP instance for profile 14, seed 5"):
        sample_instance("CVRP", 14, 5)


def test_large_seeds_are_fine() -> None:
    instance = sample_instance("VRPB", 5, 2**70)
    assert instance.name == f"VRPB-p5-s{2**70}"


@pytest.mark.parametrize(("variant", "asked", "expected"), [("CVRP", 11, 11), ("PDP", 11, 10), ("VRPHTW", 5, 5)])
def test_customer_override_for_scale_studies(variant: str, asked: int, expected: int) -> None:
    instance = sample_instance(variant, 5, 0, customers=asked)
    assert len(instance.customers) == expected
    assert instance.name.endswith(f"-n{expected}")
    assert sample_instance(variant, 5, 0, customers=asked) == instance


@pytest.mark.parametrize(("profile", "customers", "message"), [(14, 8, "locks"), (5, 1, "2..40"), (5, 41, "2..40")])
def test_customer_override_refused(profile: int, customers: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        sample_instance("CVRP", profile, 0, customers=customers)

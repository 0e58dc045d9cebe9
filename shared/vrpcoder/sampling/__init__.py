"""Deterministic sampling of routing instances from the paper's 15 profiles.

``sample_instance(variant, profile, seed)`` always returns the same instance for the same inputs;
``sample_with_plan`` also returns the feasible reference plan the instance's bounds were sized
from. ``applicable_profiles`` says which profiles a variant accepts and ``PROFILES`` holds the
profile table as data.
"""

from vrpcoder.sampling.profiles import PROFILES, Profile, applicable_profiles
from vrpcoder.sampling.sampler import SamplingError, sample_instance, sample_with_plan

__all__ = [
    "PROFILES",
    "Profile",
    "SamplingError",
    "applicable_profiles",
    "sample_instance",
    "sample_with_plan",
]

"""Helpers shared by the verifier tests (fixtures live in conftest.py)."""

from __future__ import annotations

import os
from functools import cache

from vrpcoder.samples import Sample, build_grid_point
from vrpcoder.verification import Verdict

MACHINE_REDIS = "redis://127.0.0.1:6379/13"
EXECUTOR = os.environ.get("VRPCODER_TEST_EXECUTOR", "auto")
"""How test stacks run candidates: ``auto`` goes through the sandbox wherever one is usable."""

SYNTAX_ERROR = "def build_model(:\n    pass\n"
NO_BUILD_MODEL = "import gurobipy\nanswer = 42\n"
RAISES = "def build_model():\n    raise RuntimeError('no model today')\n"


@cache
def tiny_samples(variant: str) -> tuple[Sample, ...]:
    """Every sample of the variant's profile-1 instance (base first): a handful of customers."""
    samples = tuple(build_grid_point(variant, 1, 0, time_limit=10).samples)
    assert samples, f"no sample built for {variant}"
    return samples


def slow_gold(sample: Sample, seconds: float) -> str:
    """The gold script, made to sleep before it builds: a job that is reliably still running."""
    code = sample.gold_code.replace("def build_model():", f"def build_model():\n    import time\n    time.sleep({seconds})", 1)
    assert code != sample.gold_code, "gold script has no build_model() to slow down"
    return code


def comparable(verdict: Verdict) -> dict[str, object]:
    """A verdict without its wall-clock timings, which differ between any two runs."""
    data = verdict.model_dump(mode="json", exclude={"build_seconds", "probe_seconds"})
    for probe in data["probes"]:
        probe.pop("seconds")
    return data

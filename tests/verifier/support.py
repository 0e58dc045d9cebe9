"""Helpers shared by the verifier tests (fixtures live in conftest.py)."""

from __future__ import annotations

import os
from functools import cache

from vrpcoder.samples import Sample, build_grid_point
from vrpcoder.verification import Verdict

"""Names a Redis for the tests to share (with a key prefix of their own); unset, they start a private one."""
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


_DRAWN = frozenset({"seconds", "control"})
"""Fields that differ between two runs by design: timings, and the control answer, which goes to a
feasible probe drawn afresh for every verification."""


def _timeless(value: object) -> object:
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in _DRAWN and not k.endswith("_seconds")}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def comparable(verdict: Verdict) -> dict[str, object]:
    """A verdict without its wall-clock timings (any ``seconds`` or ``*_seconds`` field, at any
    depth) and without which feasible probe carried the control query, which differ between any
    two runs."""
    data = _timeless(verdict.model_dump(mode="json"))
    assert isinstance(data, dict)
    return data


KEDA_LIST_LENGTH = """
		local listName = KEYS[1]
		local listType = redis.call('type', listName).ok
		local cmd = {
			zset = 'zcard',
			set = 'scard',
			list = 'llen',
			hash = 'hlen',
			none = 'llen'
		}

		return redis.call(cmd[listType], listName)
	"""
"""The script KEDA's ``redis`` trigger runs on ``listName`` (pkg/scalers/redis_scaler.go, 2.x)."""

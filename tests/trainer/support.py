"""Helpers shared by the trainer tests (fixtures live in conftest.py)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from vrpcoder.samples import Sample, build_grid_point
from vrpcoder_client.prompts import code_system_prompt
from vrpcoder_trainer.config import load_config
from vrpcoder_trainer.dataset import DatasetEntry

NO_MODEL = "import gurobipy as gp\n\n\ndef build_model():\n    return None\n"
"""A script that runs and builds nothing: the verifier scores it (a candidate fault, reward 0)."""


@cache
def cvrp_samples() -> tuple[Sample, ...]:
    """Every sample of a small CVRP instance (the base sample first, then its attacked copies)."""
    samples = tuple(build_grid_point("CVRP", 1, 0, time_limit=10).samples)
    assert len(samples) >= 2, "the CVRP grid point should give a base and an attacked sample"
    return samples


def statement(sample: Sample) -> str:
    return f"Write the gurobipy model of routing instance {sample.id} ({sample.variant})."


def entries(samples: tuple[Sample, ...], target: str | None = None) -> list[DatasetEntry]:
    """One record per sample; its SFT target is ``target`` (default: the sample's gold script)."""
    return [
        DatasetEntry(id=s.id, variant=s.variant, path="scenario", statement=statement(s), target_code=target or s.gold_code,
                     sample_json=s.model_dump_json())
        for s in samples
    ]


def tokenizer_corpus(samples: tuple[Sample, ...]) -> list[str]:
    """What the tiny tokenizer is trained on: the texts its model reads and writes (prompt repeated so it compresses)."""
    return [code_system_prompt()] * 20 + [statement(s) for s in samples] + [s.gold_code for s in samples] + [NO_MODEL]


def tiny_config(name: str, **overrides: Any) -> Any:
    """A shipped tiny CPU config with paths (and anything else) overridden."""
    return load_config(f"packaged:{name}", None, overrides)


def paths(base: Path) -> dict[str, str]:
    return {"model": str(base / "tiny-model"), "data": str(base / "data")}

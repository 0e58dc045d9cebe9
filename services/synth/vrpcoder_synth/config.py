"""What a synthesis run does, read from a TOML or JSON file (every field has a default).

The defaults are the embedded offline run: all 18 training variants at two small profiles and
one seed, every path, the offline teacher and coder, in-process verification. A held-out variant
named in the grid is refused outright: synthesis must never see one.
"""

from __future__ import annotations

import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from vrpcoder.variants import train_variants, training_variant_names

PathName = Literal["scenario", "condensed", "strict", "index"]


class GridConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    variants: tuple[str, ...] = ()
    """Empty: every training variant of the registry."""
    profiles: tuple[int, ...] = (1, 3)
    seeds: tuple[int, ...] = (0,)
    customers: int | None = Field(default=6, ge=2)
    """Customers per instance (None: the profile's own count)."""
    kinds: Literal["all", "base"] = "all"
    """``all``: the base sample and every attacked copy; ``base``: the base sample only."""

    @field_validator("variants")
    @classmethod
    def _training_only(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return training_variant_names(value)

    def variant_names(self) -> tuple[str, ...]:
        return self.variants or tuple(v.name for v in train_variants())


class TeacherConfig(BaseModel):
    """``offline``: the embedded template writer and formulation coder; ``openai``: any
    OpenAI-compatible chat endpoint (statements and code)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["offline", "openai"] = "offline"
    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "teacher"
    api_key_env: str = "VRPCODER_TEACHER_API_KEY"
    temperature: float = Field(default=0.2, ge=0.0)
    max_tokens: int = Field(default=4096, gt=0)
    concurrency: int = Field(default=4, ge=1)
    retries: int = Field(default=5, ge=0)
    timeout: float = Field(default=120.0, gt=0.0)
    token_budget: int | None = Field(default=None, gt=0)
    """Tokens (prompt + completion) one run may spend; None: no limit."""
    critic_rounds: int = Field(default=2, ge=0)


class VerifierConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    backend: Literal["inprocess", "service"] = "inprocess"
    url: str = "http://127.0.0.1:8000"
    token_env: str = "VRPCODER_VERIFIER_TOKEN"
    time_limit: float = Field(default=60.0, gt=0.0)
    batch_size: int = Field(default=16, ge=1)


class SynthConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    grid: GridConfig = GridConfig()
    paths: tuple[PathName, ...] = ("scenario", "condensed", "strict", "index")
    """``index`` gives each sample the one id scheme its (variant, seed, profile) selects."""
    mutants: bool = True
    """Also send constraint-dropping mutants of the offline formulations through Stage 4, so the
    reserved set (DIFF passes, INJ fails) is exercised; only for the offline coders."""
    mutant_paths: Literal["scenario", "all"] = "scenario"
    """Statement paths a mutant is written for: the scenario alone, or every path of its sample (when
    the reserved set trains a model, as in the no-injection ablation, its prompts should vary as much
    as the accepted ones)."""
    coder: Literal["formulations", "compact"] = "formulations"
    """The offline coder: ``formulations`` renders the shipped alternative formulations; ``compact``
    the short fixed-skeleton script a small model learns to write (``vrpcoder_synth.compact``; TSP and
    CVRP only)."""
    teacher: TeacherConfig = TeacherConfig()
    verifier: VerifierConfig = VerifierConfig()
    gold_time_limit: float = Field(default=60.0, gt=0.0)

    @model_validator(mode="after")
    def _compact_variants(self) -> SynthConfig:
        if self.coder == "compact":
            from vrpcoder_synth.compact import compact_variants

            covered = compact_variants()
            outside = [v for v in self.grid.variant_names() if v not in covered]
            if outside:
                raise ValueError(f"the compact coder writes {', '.join(sorted(covered))} only (not {', '.join(outside)}): name them in grid.variants")
        return self


def default_config_text() -> str:
    return resources.files(__package__).joinpath("default.toml").read_text()


def load_config(path: Path | None) -> SynthConfig:
    """The config in ``path`` (.toml or .json), or the embedded default (``default.toml``)."""
    if path is None:
        return SynthConfig.model_validate(tomllib.loads(default_config_text()))
    text = path.read_text()
    data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    return SynthConfig.model_validate(data)

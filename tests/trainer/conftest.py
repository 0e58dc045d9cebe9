"""Fixtures of the trainer tests: a tiny dataset in the synth contract, a tiny local model, a short
SFT run on it, and the verifier service as deployed (real Redis, the API under uvicorn, workers).

The model is built here (random init, tokenizer trained on the dataset's texts): no hub is reached.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from vrpcoder_client.client import RetryPolicy, VerifierClient
from vrpcoder_trainer.dataset import write_dataset
from vrpcoder_trainer.sft import run_sft
from vrpcoder_trainer.tiny import TinyModelSpec, build_tiny_model
from vrpcoder_verifier.settings import Settings
from vrpcoder_verifier.stack import LocalStack, purge, stack_settings

from tests.trainer.support import NO_MODEL, cvrp_samples, entries, tiny_config, tokenizer_corpus


@pytest.fixture(scope="session")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("trainer")


@pytest.fixture(scope="session")
def dataset_dir(workdir: Path) -> Path:
    """Prompts for the CVRP samples; the SFT target is a short script that runs and builds nothing,
    which a tiny model learns in a few steps (the gold scripts take the benchmark minutes)."""
    return write_dataset(workdir / "data", entries(cvrp_samples(), NO_MODEL))


@pytest.fixture(scope="session")
def tiny_model(workdir: Path) -> Path:
    # The whole-script tokenizer: these tests exercise the training machinery, and with it a 20-step SFT
    # already makes the policy emit a code block for the verifier to score.
    return build_tiny_model(workdir / "tiny-model", tokenizer_corpus(cvrp_samples()), TinyModelSpec(tokenizer="whole-script"))


@pytest.fixture(scope="session")
def sft_adapter(workdir: Path, dataset_dir: Path, tiny_model: Path) -> Path:
    """The tiny model after a short LoRA SFT: it now writes fenced code for the verifier to score."""
    config = tiny_config(
        "tiny_sft_cpu.yaml",
        **{"model.name_or_path": str(tiny_model), "dataset.path": str(dataset_dir), "run.output_dir": str(workdir / "sft"),
           "run.max_steps": 20, "run.save_steps": 10},
    )
    return run_sft(config)


@pytest.fixture(scope="session")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    settings: Settings = stack_settings(redis_url, executor=os.environ.get("VRPCODER_TEST_EXECUTOR", "auto"),
                                        allow_unsandboxed=True, max_time_limit=30.0, default_time_limit=10.0)
    try:
        with LocalStack(settings, workers=2, log_dir=tmp_path_factory.mktemp("stack-logs")) as running:
            yield running
    finally:
        purge(settings)


@pytest.fixture
def client(stack: LocalStack) -> Iterator[VerifierClient]:
    with VerifierClient(stack.base_url, stack.token, timeout=60) as verifier:
        yield verifier


@pytest.fixture
def down_client() -> Iterator[VerifierClient]:
    """A client of a verifier that is not there: a real port on which nothing listens."""
    from vrpcoder_verifier.stack import free_port

    with VerifierClient(f"http://127.0.0.1:{free_port()}", "token", timeout=2, retry=RetryPolicy(attempts=2)) as verifier:
        yield verifier

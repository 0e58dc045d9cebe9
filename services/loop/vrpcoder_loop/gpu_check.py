"""The GPU path at small scale on one host (``deploy/gpu-check.sh``): the real code, tiny sizes.

It builds a randomly initialised model of the Qwen3 architecture from a config (no hub) with a
tokenizer trained here, a small dataset from real CVRP and VRPHTW samples, and a private verifier
stack (Redis, the API, sandboxed workers) on the same host; gives the model a short LoRA SFT on the
gold scripts and merges it (so that its rollouts hold code for the verifier), as the cluster's
workflow does; then runs GRPO with LoRA through the same ``build_grpo_trainer`` the cluster uses,
with TRL's vLLM rollouts:

* colocate: vLLM inside the training process on GPU 0 (the packaged ``gpu_check_colocate.yaml``);
* server: ``trl vllm-serve`` on GPU 1, training on GPU 0 (``gpu_check_server.yaml``), where a
  second GPU is there.

Each mode runs in its own process (its own CUDA_VISIBLE_DEVICES) and reports rollout tokens per
second, verifier seconds per step, and the step time split into generation, reward and
optimisation (the rest of the step). Without CUDA the configs are still parsed and checked, and the
command stops with a clear message (exit 3). ``--mode cpu`` runs the same measured loop with
transformers' generate on the CPU (no vLLM): what CI can run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import urllib.request
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vrpcoder_trainer.config import GRPORunConfig, MergeConfig, ModelSettings, SFTRunConfig, load_config
from vrpcoder_trainer.tiny import TinyModelSpec, build_tiny_model

EXIT_NO_GPU = 3
CONFIGS = {"colocate": "gpu_check_colocate.yaml", "server": "gpu_check_server.yaml", "cpu": "tiny_grpo_cpu.yaml"}
SFT_CONFIG = "gpu_check_sft.yaml"
SERVER_PORT = 8765
SERVER_GROUP_PORT = 51216


GPU_SPEC = TinyModelSpec(architecture="qwen3", hidden_size=256, intermediate_size=768, num_hidden_layers=4,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=64, vocab_size=2048)
"""A small Qwen3: big enough that vLLM and the kernels do real work, small enough to build in seconds."""


@dataclass
class StepTimes:
    """What one mode measured, summed over the steps after the first (start-up and compilation)."""

    mode: str
    steps: int = 0
    seconds: float = 0.0
    generation: float = 0.0
    reward: float = 0.0
    completion_tokens: int = 0
    first_step_seconds: float = 0.0
    per_step: list[dict[str, float]] = field(default_factory=list)

    @property
    def optimisation(self) -> float:
        return max(self.seconds - self.generation - self.reward, 0.0)

    def summary(self) -> dict[str, Any]:
        steps = max(self.steps, 1)
        return {
            "mode": self.mode,
            "steps_measured": self.steps,
            "rollout_tokens_per_s": self.completion_tokens / self.generation if self.generation else None,
            "verifier_s_per_step": self.reward / steps,
            "step_s": self.seconds / steps,
            "split": {"generation": self.generation / steps, "reward": self.reward / steps, "optimisation": self.optimisation / steps},
            "first_step_s": self.first_step_seconds,
        }


CPU_SPEC = TinyModelSpec(architecture="qwen3", hidden_size=64, intermediate_size=128, num_hidden_layers=2, vocab_size=1024)
CPU_SFT = {"model.dtype": "float32", "run.bf16": False, "run.use_cpu": True, "run.max_steps": 4,
           "batch.per_device_train_batch_size": 4, "batch.effective_batch_size": 4}


def plan(out: Path, steps: int) -> dict[str, GRPORunConfig]:
    """Every GRPO mode's run config with this run's paths: parsed and validated even where no GPU is."""
    configs = {}
    for mode, name in CONFIGS.items():
        overrides: dict[str, Any] = {
            "model.name_or_path": str(out / "policy"), "dataset.path": str(out / "data"),
            "run.output_dir": str(out / "runs" / mode), "run.max_steps": steps, "model.adapters": [],
        }
        if mode == "server":
            overrides["vllm.base_url"] = f"http://127.0.0.1:{SERVER_PORT}"
        configs[mode] = load_config(f"packaged:{name}", GRPORunConfig, overrides)
    return configs


def sft_plan(out: Path, cpu: bool) -> SFTRunConfig:
    overrides: dict[str, Any] = {"model.name_or_path": str(out / "model"), "dataset.path": str(out / "data"),
                                 "run.output_dir": str(out / "runs" / "sft")}
    return load_config(f"packaged:{SFT_CONFIG}", SFTRunConfig, {**overrides, **(CPU_SFT if cpu else {})})


def prepare_policy(out: Path, cpu: bool) -> Path:
    """SFT the random model on the gold scripts and merge the adapter: the policy GRPO and vLLM start from."""
    from vrpcoder_trainer.merge import run_merge
    from vrpcoder_trainer.sft import run_sft

    sft = sft_plan(out, cpu)
    adapter = run_sft(sft)
    merge = MergeConfig(kind="merge", model=ModelSettings(name_or_path=str(out / "model"), adapters=(str(adapter),)),
                        output_dir=str(out / "policy"), dtype="float32" if cpu else "bfloat16")
    return run_merge(merge)


def build_inputs(out: Path, spec: TinyModelSpec = GPU_SPEC) -> None:
    """The dataset (every sample of two small instances, gold scripts as SFT targets) and the model."""
    from vrpcoder.samples import build_grid_point
    from vrpcoder_client.prompts import code_system_prompt

    from vrpcoder_trainer.dataset import DatasetEntry, write_dataset

    samples = [s for variant in ("CVRP", "VRPHTW") for s in build_grid_point(variant, 1, 0, time_limit=10).samples]
    entries = [
        DatasetEntry(id=s.id, variant=s.variant, path="scenario", statement=f"Model routing instance {s.id} ({s.variant}).",
                     target_code=s.gold_code, sample_json=s.model_dump_json())
        for s in samples
    ]
    write_dataset(out / "data", entries)
    corpus = [code_system_prompt()] * 20 + [e.statement for e in entries] + [e.target_code for e in entries]
    build_tiny_model(out / "model", corpus, spec)


def measure(config: GRPORunConfig, client: Any, mode: str) -> StepTimes:
    """GRPO through the cluster's own trainer, with generation and reward timed inside each step."""
    from transformers import TrainerCallback

    from vrpcoder_trainer.grpo import build_grpo_trainer

    times = StepTimes(mode=mode)
    current: dict[str, float] = {}

    class Clock(TrainerCallback):  # type: ignore[misc]
        def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            current.update(start=time.perf_counter(), generation=0.0, reward=0.0, tokens=0.0)

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            seconds = time.perf_counter() - current["start"]
            record = {"seconds": seconds, "generation": current["generation"], "reward": current["reward"], "tokens": current["tokens"]}
            times.per_step.append(record)
            if len(times.per_step) == 1:
                times.first_step_seconds = seconds
                return
            times.steps += 1
            times.seconds += seconds
            times.generation += current["generation"]
            times.reward += current["reward"]
            times.completion_tokens += int(current["tokens"])

    trainer = build_grpo_trainer(config, client, callbacks=[Clock()])
    generate, rewards = trainer._generate, trainer._calculate_rewards

    def timed_generate(prompts: list[Any]) -> Any:
        started = time.perf_counter()
        result = generate(prompts)
        current["generation"] = current.get("generation", 0.0) + time.perf_counter() - started
        current["tokens"] = current.get("tokens", 0.0) + sum(len(ids) for ids in result[1])
        return result

    def timed_rewards(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        result = rewards(*args, **kwargs)
        current["reward"] = current.get("reward", 0.0) + time.perf_counter() - started
        return result

    trainer._generate, trainer._calculate_rewards = timed_generate, timed_rewards
    trainer.train()
    return times


def _run_mode(args: argparse.Namespace) -> int:
    """One mode in this process (the orchestrator sets CUDA_VISIBLE_DEVICES): prints its JSON summary."""
    from vrpcoder_client.client import VerifierClient

    if args.mode == "prepare":
        print(json.dumps({"policy": str(prepare_policy(args.out, args.cpu))}))
        return 0

    config = plan(args.out, args.steps)[args.mode]
    with VerifierClient(args.verifier_url, os.environ.get("VRPCODER_VERIFIER_TOKEN")) as client:
        times = measure(config, client, args.mode)
    (args.out / f"{args.mode}.json").write_text(json.dumps({**times.summary(), "per_step": times.per_step}, indent=2))
    print(json.dumps(times.summary()))
    return 0


def _wait_http(url: str, seconds: float, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the vLLM server exited with status {process.returncode} (see its log)")
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(2)
    raise RuntimeError(f"no answer from {url} within {seconds:.0f} s")


def _child(mode: str, args: argparse.Namespace, url: str, token: str, devices: str) -> dict[str, Any]:
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": devices, "VRPCODER_VERIFIER_TOKEN": token}
    command = [sys.executable, "-m", "vrpcoder_loop.gpu_check", "--mode", mode, "--out", str(args.out),
               "--steps", str(args.steps), "--verifier-url", url, *(["--cpu"] if args.cpu else [])]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    (args.out / f"{mode}.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0:
        raise RuntimeError(f"{mode} run failed (status {done.returncode}); last lines:\n" + "\n".join(done.stderr.splitlines()[-15:]))
    return json.loads(done.stdout.strip().splitlines()[-1])


def _print_table(results: list[dict[str, Any]]) -> None:
    print(f"{'mode':<10}{'steps':>6}{'rollout tok/s':>15}{'verifier s/step':>17}{'step s':>9}"
          f"{'generation':>12}{'reward':>9}{'optimisation':>14}")
    for r in results:
        split = r["split"]
        tokens = f"{r['rollout_tokens_per_s']:.0f}" if r["rollout_tokens_per_s"] else "-"
        print(f"{r['mode']:<10}{r['steps_measured']:>6}{tokens:>15}{r['verifier_s_per_step']:>17.2f}{r['step_s']:>9.2f}"
              f"{split['generation']:>12.2f}{split['reward']:>9.2f}{split['optimisation']:>14.2f}")


def _orchestrate(args: argparse.Namespace) -> int:
    configs = plan(args.out, args.steps)
    sft = sft_plan(args.out, args.cpu)
    print(f"config {SFT_CONFIG} (sft): ok; steps={sft.run.max_steps} lora r={sft.lora.r}")
    for mode, config in configs.items():
        print(f"config {CONFIGS[mode]} ({mode}): ok; vllm={config.vllm.enabled} mode={config.vllm.mode} "
              f"G={config.num_generations} steps={config.run.max_steps} lora r={config.lora.r}")
    if args.plan_only:
        return 0
    import torch

    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    modes = ["cpu"] if args.cpu else ["colocate", "server"][: max(0, min(gpus, 2))]
    if not modes:
        print("error: no CUDA device: the GPU check needs one (its configs parse; run it on a GPU host, or --cpu "
              "for the same measured loop without vLLM)", file=sys.stderr)
        return EXIT_NO_GPU
    if not args.cpu:
        try:
            import vllm  # noqa: F401
        except ImportError:
            print("error: vllm is not installed: pip install './services/trainer[vllm]' (the GPU image has it)", file=sys.stderr)
            return EXIT_NO_GPU
    if gpus == 1 and not args.cpu:
        print("one GPU: colocate mode only (server mode needs a second GPU for trl vllm-serve)")
    from vrpcoder_verifier.stack import LocalStack, local_redis, purge, stack_settings

    args.out.mkdir(parents=True, exist_ok=True)
    print(f"building the random Qwen3 model, its tokenizer and the dataset in {args.out}")
    build_inputs(args.out, CPU_SPEC if args.cpu else GPU_SPEC)
    results = []
    with local_redis() as redis_url:
        settings = stack_settings(redis_url, max_time_limit=60.0, default_time_limit=20.0)
        try:
            with LocalStack(settings, workers=args.workers, log_dir=args.out / "stack") as stack:
                print(f"verifier stack up at {stack.base_url} ({args.workers} workers)")
                print("== SFT + merge (the policy GRPO starts from)")
                _child("prepare", args, stack.base_url, stack.token, "" if args.cpu else "0")
                for mode in modes:
                    server = None
                    if mode == "server":
                        log = (args.out / "vllm-serve.log").open("wb")
                        server = subprocess.Popen(
                            ["trl", "vllm-serve", "--model", str(args.out / "model"), "--port", str(SERVER_PORT),
                             "--gpu-memory-utilization", "0.5"],
                            env={**os.environ, "CUDA_VISIBLE_DEVICES": "1"}, stdout=log, stderr=subprocess.STDOUT)
                        _wait_http(f"http://127.0.0.1:{SERVER_PORT}/health/", 600, server)
                    try:
                        print(f"== {mode}")
                        results.append(_child(mode, args, stack.base_url, stack.token, "" if mode == "cpu" else "0"))
                    finally:
                        if server is not None:
                            server.terminate()
                            server.wait(60)
        finally:
            purge(settings)
    _print_table(results)
    (args.out / "gpu-check.json").write_text(json.dumps(results, indent=2))
    print(f"written: {args.out / 'gpu-check.json'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="deploy/gpu-check.sh", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("gpu-check-out"), help="Work folder (model, data, logs, results).")
    parser.add_argument("--steps", type=int, default=6, help="GRPO steps per mode (the first is reported apart).")
    parser.add_argument("--workers", type=int, default=4, help="Verifier workers of the private stack.")
    parser.add_argument("--plan-only", action="store_true", help="Parse and check the configs, then stop.")
    parser.add_argument("--cpu", action="store_true", help="The measured loop on the CPU, without vLLM (what CI runs).")
    parser.add_argument("--mode", choices=sorted([*CONFIGS, "prepare"]), help=argparse.SUPPRESS)
    parser.add_argument("--verifier-url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.out = args.out.resolve()
    if args.steps < 2:
        parser.error("--steps must be at least 2 (the first step is reported apart)")
    return _run_mode(args) if args.mode else _orchestrate(args)


if __name__ == "__main__":
    sys.exit(main())

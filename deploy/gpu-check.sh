#!/usr/bin/env bash
# The GPU path at small scale on one host: TRL GRPO with vLLM rollouts (colocate on GPU 0; server
# mode with `trl vllm-serve` on GPU 1 where a second GPU is there), LoRA, a random-init Qwen3 built
# from a config (no hub), the verifier over HTTP from a private stack on this host. Prints rollout
# tokens/s, verifier seconds per step and the step time split (generation / reward / optimisation).
#
#   deploy/gpu-check.sh [--out DIR] [--steps N] [--workers N]
#   deploy/gpu-check.sh --plan-only        parse and check the configs only (no GPU needed)
#   deploy/gpu-check.sh --cpu              the same measured loop on the CPU, without vLLM
#
# Needs `make install` (the .venv, redis-server, bubblewrap) and the trainer's [vllm] extra on the
# GPU host: .venv/bin/pip install './services/trainer[vllm]'. Without CUDA it exits 3 after
# checking its configs. Module: services/trainer/vrpcoder_loop.gpu_check.py.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
[[ -x "$PYTHON" ]] || { echo "error: $PYTHON not found: run 'make install' first (or set PYTHON)" >&2; exit 2; }
export PATH="$(dirname "$PYTHON"):$PATH"
exec "$PYTHON" -m vrpcoder_loop.gpu_check "$@"

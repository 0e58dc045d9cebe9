"""End-to-end evaluation throughput: items per minute with a scripted policy and 2 verifier workers.

Everything is the real path of `vrpcoder eval run`: the runner asks an OpenAI-compatible server over
HTTP (a scripted policy answering each statement with its gold script, so no GPU is needed and the
model's own speed is taken out), extracts the code, and verifies it through the verifier service
(uvicorn API, Redis, rq workers, sandboxes) in batches while later completions are still arriving.
The benchmark items are built first (B1 over every training variant, B3 from the repository's library
files) and are not timed. Every item must pass (the gold policy), or the figure would time failures.

The completion cache is disabled between repetitions (a fresh run folder each time), and the
verifier's result cache is bypassed by a unique comment in each script, so each repetition verifies
everything again.

    .venv/bin/python benchmarks/eval_throughput.py [--b1 36] [--b3 24] [--workers 2] [--repeat 2]
        [--concurrency 8] [--batch-size 16] [--executor auto|sandbox|in-process]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from vrpcoder.variants import train_variants
from vrpcoder_client.client import AsyncVerifierClient
from vrpcoder_verifier.stack import LocalStack, local_redis, purge, stack_settings

from vrpcoder_eval.benchmark import BenchmarkDir, BenchmarkName
from vrpcoder_eval.builders import build_b3, build_sampled
from vrpcoder_eval.generation import OpenAIChatGenerator
from vrpcoder_eval.metrics import compute
from vrpcoder_eval.prompts import shared_prompt
from vrpcoder_eval.runner import RunConfig, Runner, load_run
from vrpcoder_eval.scripted import ScriptedServer, fenced
from vrpcoder_eval.statements import default_writer

LIBRARY = Path(__file__).resolve().parents[1] / "tests" / "data" / "instances"


def build(root: Path, b1: int, b3: int) -> tuple[BenchmarkDir, tuple[BenchmarkName, ...]]:
    store = BenchmarkDir(root)
    writer = default_writer()
    started = time.perf_counter()
    first = build_sampled(BenchmarkName.B1, [v.name for v in train_variants()], b1, store, writer, time_limit=30.0)
    third = build_b3(store, writer, LIBRARY, limit=b3, time_limit=30.0)
    store.write(BenchmarkName.B1, first.items)
    store.write(BenchmarkName.B3, third.items)
    print(f"built {len(first.items)} B1 + {len(third.items)} B3 items in {time.perf_counter() - started:.1f} s (not timed below)")
    return store, (BenchmarkName.B1, BenchmarkName.B3)


def gold_policy(store: BenchmarkDir, names: tuple[BenchmarkName, ...], salt: str) -> dict[str, str]:
    answers = {}
    for name in names:
        for item in store.items(name):
            code = store.load_sample(item.sample_id or "").gold_code
            answers[item.statement] = fenced(f"{code}\n# {salt}\n")
    return answers


async def one_run(stack: LocalStack, llm: ScriptedServer, store: BenchmarkDir, names: tuple[BenchmarkName, ...],
                  run_dir: Path, concurrency: int, batch_size: int) -> float:
    generator = OpenAIChatGenerator(llm.base_url)
    prompt = shared_prompt()
    config = RunConfig(model=llm.base_url, model_name=await generator.resolve_model(), benchmark_dir=str(store.root),
                       benchmarks=names, system_prompt_origin=prompt.origin, system_prompt_sha256=prompt.sha256,
                       time_limit=30.0)
    verifier = AsyncVerifierClient(stack.base_url, stack.token, timeout=300)
    runner = Runner(config, run_dir, generator, verifier, prompt, concurrency=concurrency, batch_size=batch_size)
    started = time.perf_counter()
    try:
        await runner.run()
    finally:
        await verifier.aclose()
        await generator.aclose()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--b1", type=int, default=36, help="benchmark-1 items (over the 18 training variants)")
    parser.add_argument("--b3", type=int, default=24, help="benchmark-3 items (library sub-instances)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=8, help="model requests in flight")
    parser.add_argument("--batch-size", type=int, default=16, help="candidates per verifier batch")
    parser.add_argument("--executor", default="auto", choices=["auto", "sandbox", "in-process"])
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="eval-throughput-") as tmp:
        root = Path(tmp)
        store, names = build(root / "bench", args.b1, args.b3)
        items = sum(len(store.items(n)) for n in names)
        with local_redis() as url:
            settings = stack_settings(url, executor=args.executor, allow_unsandboxed=args.executor == "in-process",
                                      max_time_limit=60.0, default_time_limit=30.0, max_batch_items=500)
            try:
                with LocalStack(settings, workers=args.workers, log_dir=root / "logs") as stack:
                    rates = []
                    for repetition in range(args.repeat):
                        answers = gold_policy(store, names, f"repetition {repetition}")
                        with ScriptedServer(lambda s, a=answers: a[s]) as llm:
                            run_dir = root / f"run{repetition}"
                            seconds = asyncio.run(one_run(stack, llm, store, names, run_dir, args.concurrency, args.batch_size))
                        _, results = load_run(run_dir)
                        metrics = compute("gold", results)
                        if metrics.overall.pass_at_1.rate != 1.0 or metrics.scored != items:
                            raise SystemExit(f"the gold policy did not pass everything: {metrics.error_kinds} {metrics.unscored_reasons}")
                        rates.append(60.0 * items / seconds)
                        print(f"repetition {repetition}: {items} items in {seconds:.1f} s = {rates[-1]:.1f} items/min "
                              f"(Pass@1 {100 * metrics.overall.pass_at_1.rate:.0f}%, {sum(len(r.probes) for r in results)} INJ probes)")
            finally:
                purge(settings)
    print(f"end-to-end throughput, {args.workers} verifier workers, executor {args.executor}: "
          f"median {statistics.median(rates):.1f} items/min over {len(rates)} repetitions")


if __name__ == "__main__":
    main()

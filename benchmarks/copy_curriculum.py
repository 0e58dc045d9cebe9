"""Why the small model does not copy, and what makes it: three measurements on fresh instances.

    .venv/bin/python benchmarks/copy_curriculum.py full   --steps 1000            # SFT alone
    .venv/bin/python benchmarks/copy_curriculum.py drill  --drill-steps 900 --steps 600
    .venv/bin/python benchmarks/copy_curriculum.py induction --steps 300          # the bare circuit
    [--digits 1|2] [--variant TSP] [--threads 2] [--held-out 12]

Every training example is a *new* instance (the synth sampler, writer and compact coder, seeds from
1,000 up, 12 profiles, three statement paths), so no number can be memorised and the only way to
lower the loss on the data block is to copy it from the statement. The model is the loop's ``small``
shape and code tokenizer (``vrpcoder_trainer.tiny``), trained by a plain loop (no TRL), so each
run shows the learning dynamics alone:

- ``full``: SFT on statement -> compact script. Prints the loss every 25 steps and, every 250, the
  held-out items whose greedy reply is the gold script exactly and those whose reply holds the
  statement's node lines. A loss that stalls at the entropy of the data block's digits is a model
  that writes the skeleton and guesses the numbers.
- ``drill``: ``--drill-steps`` of the copy drill (``vrpcoder_trainer.copy_drill``: node lines in,
  the ``NODES`` block out), then ``--steps`` of the same SFT, with the same held-out checks.
- ``induction``: the same shape on sequences of 40 random tokens written twice (distinct tokens,
  then digits): how fast the copying circuit forms when copying is the whole loss.

The exact-match count is a lower bound on Pass@1 (a script that differs only in spacing could still
pass). For the verifier's Pass@1, save the model and score it on a loop's B1 (docs/codegen.md):

    .venv/bin/python benchmarks/copy_curriculum.py drill --drill-steps 450 --steps 400 --save /tmp/drilled
    .venv/bin/vrpcoder eval run --model /tmp/drilled --bench-dir RUN/bench --benchmarks 1 --max-tokens 900
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

PATHS = ("scenario", "condensed", "strict")


@dataclass(frozen=True)
class Example:
    statement: str
    reply: str
    lines: str
    """The statement's node lines, as the script's ``NODES`` block holds them."""


def fresh_examples(variant: str, count: int, rng: random.Random, seed_low: int) -> list[Example]:
    """``count`` new instances of ``variant`` (5 customers) with their statement and compact reply."""
    from vrpcoder.sampling import sample_instance
    from vrpcoder_synth.compact import node_lines, render_compact
    from vrpcoder_synth.regenerate import as_completion
    from vrpcoder_synth.statements import write_statement

    out: list[Example] = []
    while len(out) < count:
        instance = sample_instance(variant, rng.randrange(1, 13), rng.randrange(seed_low, seed_low + 10**6), customers=5)
        statement = write_statement(instance, rng.choice(PATHS))
        try:
            reply = as_completion(render_compact(statement, instance))
        except ValueError:
            continue
        out.append(Example(statement.text, reply, "\n".join(node_lines(statement, instance.num_nodes, instance.num_depots))))
    return out


class Trainer:
    """The small model and its tokenizer, a step function and the held-out checks."""

    def __init__(self, args: argparse.Namespace) -> None:
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from vrpcoder_client.prompts import code_system_prompt
        from vrpcoder_trainer.tiny import build_tiny_model, model_spec

        self.args = args
        corpus = [t for e in fresh_examples(args.variant, 400, random.Random(0), 1000) for t in (e.statement, e.reply)]
        folder = build_tiny_model(tempfile.mkdtemp(prefix="copy-curriculum-"), corpus,
                                  model_spec("small", digits_per_token=args.digits))
        self.tokenizer = AutoTokenizer.from_pretrained(folder)
        self.model = AutoModelForCausalLM.from_pretrained(folder)
        self.system = code_system_prompt()
        self.held = fresh_examples(args.variant, args.held_out, random.Random(1), 10**7)
        self.rng = random.Random(2)

    def chat(self, example: Example) -> tuple[list[int], list[int]]:
        prompt = self.tokenizer.apply_chat_template([{"role": "system", "content": self.system},
                                                     {"role": "user", "content": example.statement}],
                                                    tokenize=False, add_generation_prompt=True)
        return self.ids(prompt), self.ids(example.reply + self.tokenizer.eos_token)

    def drill(self, example: Example) -> tuple[list[int], list[int]]:
        from vrpcoder_trainer.copy_drill import drill_pair

        prompt, completion = drill_pair(example.reply)  # type: ignore[misc]
        return self.ids(prompt), self.ids(completion + self.tokenizer.eos_token)

    def ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def held_out(self) -> tuple[int, int]:
        """(exact gold replies, replies holding the node lines) among the held-out items, greedy."""
        import torch

        self.model.eval()
        exact = copied = 0
        for example in self.held:
            prompt, reply = self.chat(example)
            with torch.no_grad():
                out = self.model.generate(torch.tensor([prompt]), max_new_tokens=len(reply) + 5, do_sample=False)
            text = self.tokenizer.decode(out[0][len(prompt):], skip_special_tokens=True)
            exact += text.strip() == example.reply.strip()
            copied += example.lines in text
        self.model.train()
        return exact, copied


def train(rows: list[tuple[list[int], list[int]]], model: Any, optimizer: Any, pad: int) -> float:
    """One step on prompt/reply pairs, the loss on the reply only."""
    import torch

    width = max(len(p) + len(r) for p, r in rows)
    ids = torch.full((len(rows), width), pad)
    labels = torch.full((len(rows), width), -100)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for k, (prompt, reply) in enumerate(rows):
        seq = prompt + reply
        ids[k, : len(seq)] = torch.tensor(seq)
        mask[k, : len(seq)] = 1
        labels[k, len(prompt): len(seq)] = torch.tensor(reply)
    loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad()
    return float(loss.item())


def run_sft(args: argparse.Namespace, drill_steps: int) -> None:
    import torch

    t = Trainer(args)
    print(f"model: {sum(p.numel() for p in t.model.parameters()):,} weights, vocabulary {len(t.tokenizer)}, "
          f"digits per token {args.digits}", flush=True)
    optimizer = torch.optim.AdamW(t.model.parameters(), lr=args.lr, weight_decay=0.01, betas=(0.9, 0.98))

    def rate(step: int) -> float:
        warm = min(1.0, (step + 1) / 30)
        if step < drill_steps:
            return warm
        return warm * 0.5 * (1 + math.cos(math.pi * min(step - drill_steps, args.steps) / args.steps))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, rate)
    started = time.monotonic()
    pad = t.tokenizer.pad_token_id
    for step in range(1, drill_steps + args.steps + 1):
        drilling = step <= drill_steps
        examples = fresh_examples(args.variant, 16 if drilling else 8, t.rng, 1000)
        loss = train([t.drill(e) if drilling else t.chat(e) for e in examples], t.model, optimizer, pad)
        schedule.step()
        if step % 25 == 0:
            print(f"step {step} {'drill' if drilling else 'sft'} loss {loss:.4f} ({time.monotonic() - started:.0f} s)", flush=True)
        sft_step = step - drill_steps
        if sft_step > 0 and (sft_step % 250 == 0 or sft_step == args.steps):
            exact, copied = t.held_out()
            print(f"held-out after {sft_step} SFT steps: exact gold {exact}/{len(t.held)}, node lines copied "
                  f"{copied}/{len(t.held)} ({time.monotonic() - started:.0f} s)", flush=True)
    if args.save:
        t.model.save_pretrained(args.save)
        t.tokenizer.save_pretrained(args.save)
        print(f"model saved to {args.save} (evaluate it with: vrpcoder eval run --model {args.save} ...)", flush=True)


def run_induction(args: argparse.Namespace) -> None:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    from vrpcoder_trainer.tiny import model_spec

    spec = model_spec("small")
    for kind, tokens in (("distinct", None), ("digits", range(100, 110))):
        torch.manual_seed(0)
        config = LlamaConfig(vocab_size=200, hidden_size=spec.hidden_size, intermediate_size=spec.intermediate_size,
                             num_hidden_layers=spec.num_hidden_layers, num_attention_heads=spec.num_attention_heads,
                             num_key_value_heads=spec.num_key_value_heads, initializer_range=spec.initializer_range,
                             tie_word_embeddings=False)
        model = LlamaForCausalLM(config)
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98))
        rng = random.Random(0)
        started = time.monotonic()
        for step in range(1, args.steps + 1):
            rows = []
            for _ in range(16):
                body = rng.sample(range(100, 200), 40) if tokens is None else [rng.choice(tokens) for _ in range(40)]
                noise = [rng.randrange(2, 100) for _ in range(rng.randrange(40))]
                rows.append((noise + body + [1], body))
            loss = train(rows, model, optimizer, 0)
            if step % 50 == 0:
                print(f"induction ({kind}) step {step} loss {loss:.4f} ({time.monotonic() - started:.0f} s)", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=("full", "drill", "induction"))
    parser.add_argument("--steps", type=int, default=600, help="SFT steps (batch 8), or induction steps (batch 16).")
    parser.add_argument("--drill-steps", type=int, default=900, help="Copy-drill steps (batch 16) before SFT, in drill mode.")
    parser.add_argument("--digits", type=int, default=2, choices=(1, 2), help="Digits per token of the code tokenizer.")
    parser.add_argument("--variant", default="TSP", choices=("TSP", "CVRP", "VRPHTW"))
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--held-out", type=int, default=12)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--save", default=None, help="Folder to save the trained model and tokenizer in (full and drill modes).")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    if args.mode == "induction":
        run_induction(args)
    else:
        run_sft(args, args.drill_steps if args.mode == "drill" else 0)
    return 0


if __name__ == "__main__":
    sys.exit(main())

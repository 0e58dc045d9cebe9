"""Trainer service: LoRA SFT and GRPO with the verifier as the per-rollout reward. Built on
`vrpcoder` (shared)."""

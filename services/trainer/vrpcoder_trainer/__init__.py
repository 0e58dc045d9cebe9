"""Trainer service: LoRA SFT, frontier filtering and GRPO with the verifier service as the reward.

Modules: ``config`` (typed YAML run configs), ``dataset`` (the synth dataset contract), ``models``
(loading base, adapters, LoRA), ``sft``, ``frontier``, ``rewards`` (the grouped verifier reward and
its logs), ``grpo``, ``merge``, ``tiny`` (a locally built tiny model for tests and the CPU demo),
``cli`` (``vrpcoder train ...``). Heavy libraries are imported where they are used.
"""

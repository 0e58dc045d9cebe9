"""The one code-regeneration system prompt: what synth's Stage 3, the trainer's rollouts and eval send.

It is the candidate protocol in words (``build_model()`` returns the optimized model, the routing
variable ``x`` indexed arc-first over the internal node set, a node table when the statement uses
other ids). One file, read from the package, so the data a model is trained on, the rollouts it is
rewarded on and the benchmark it is scored on all ask for the same contract; its version travels
with every record that used it.
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources

CODE_PROMPT_FILE = "code_regeneration.md"


@cache
def code_system_prompt() -> str:
    """The shared system prompt, exactly as shipped (trailing whitespace stripped)."""
    return resources.files("vrpcoder_client").joinpath("prompts", CODE_PROMPT_FILE).read_text(encoding="utf-8").strip()


def code_prompt_version() -> str:
    """A short content hash of the prompt, recorded beside outputs that used it."""
    return hashlib.sha256(code_system_prompt().encode()).hexdigest()[:12]


CODE_SYSTEM_PROMPT = code_system_prompt()
